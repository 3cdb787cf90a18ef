// @ts-check
// The words the element says itself, where there is no playground to say
// them (it could not start on this page, or its module stopped): the
// `element` part of each language's table, fixtures/i18n/<code>.json (the
// module leaves that part out), copied below by `node tests/js/check.mjs
// --write`; scripts/check-js fails when the copy and the tables differ.
import { hasOwn } from "./builtins.js";
import { DEFAULT_LANGUAGE, codeOf } from "./languages.js";

// ---- words: written from fixtures/i18n/ by `node tests/js/check.mjs --write`; edit the tables, not this
/** By language code: the words by key. @type {Record<string, Record<string, string>>} */
const WORDS = {
  zh: {
    crash_start: "Agent Loop Playground 无法在本页启动：{detail}",
    crash_stopped: "Agent Loop Playground 停止了（{detail}）。重新加载页面即可重新启动。",
    broken_builtins: "本页在演示加载之前改动了 {names}，它们已不像浏览器自带的那样工作（{detail}）",
    answered_wrongly: "它们给出了错误的结果",
    broken_then: "本页给每个对象都加上了 then 方法（{name}），Promise 因此交付不了任何对象，文件也就都取不到",
    module_failed: "没能载入 WebAssembly 模块（{detail}）",
    module_not_wasm: "没能载入 WebAssembly 模块：{url} 返回的不是本浏览器能编译的 WebAssembly 模块（{detail}）。请检查服务器在这个地址提供的是 agent-loop-playground_bg.wasm 本身，而不是一个顶替它的 HTML 页面（如果用的是 Vite 或 VitePress 的开发服务器，请在配置里加上 optimizeDeps: { exclude: [\"agent-loop-playground\"] }）",
    pack_still_needed: "收到 {file} 之后，仍然提示缺少这个文件",
    not_defined: "没能定义这个元素（{detail}）",
    no_shadow_root: "没能建立它的 shadow root（{detail}）",
  },
  en: {
    crash_start: "Agent Loop Playground could not start on this page: {detail}",
    crash_stopped: "Agent Loop Playground stopped ({detail}). Reload the page to start it again.",
    broken_builtins: "this page changed {names} before the playground loaded, and they no longer work as the browser's own do ({detail})",
    answered_wrongly: "they gave wrong answers",
    broken_then: "this page gave every object a then method ({name}), so no promise can hand over an object and no file can be fetched",
    module_failed: "the WebAssembly module could not be loaded ({detail})",
    module_not_wasm: "the WebAssembly module could not be loaded: {url} did not answer with a WebAssembly module this browser can compile ({detail}). Check that the server serves agent-loop-playground_bg.wasm itself at that address, not an HTML page in its place (under the Vite or VitePress dev server: optimizeDeps: { exclude: [\"agent-loop-playground\"] } in its config)",
    pack_still_needed: "it still needs {file} after that file arrived",
    not_defined: "the element could not be defined ({detail})",
    no_shadow_root: "its shadow root could not be made ({detail})",
  },
};
// ---- end of the words

/**
 * A word in the reader's language (`tag`: what lang= or <html lang> says;
 * the default language when the element does not speak it, or when the
 * page broke what reads the tag), each `{name}` in it filled from
 * `values`. Said with operators only: these words are what the element
 * says when the page broke the built-ins it would say them with.
 * @param {unknown} tag
 * @param {string} key
 * @param {Record<string, string>} [values]
 */
export function say(tag, key, values = {}) {
  let table = WORDS[DEFAULT_LANGUAGE];
  try {
    const code = codeOf(tag);
    if (hasOwn(WORDS, code)) table = WORDS[code];
  } catch {}
  const word = key in table ? table[key] : key;
  let text = "";
  for (let i = 0; i < word.length; i++) {
    const close = word[i] === "{" ? closing(word, i) : -1;
    if (close < 0) {
      text += word[i];
      continue;
    }
    let name = "";
    for (let j = i + 1; j < close; j++) name += word[j];
    text += name in values ? `${values[name]}` : "";
    i = close;
  }
  return text;
}

/**
 * Where the `{name}` that opens at `i` closes, or -1 when it is no placeholder.
 * @param {string} word
 * @param {number} i
 */
function closing(word, i) {
  for (let j = i + 1; j < word.length; j++) {
    if (word[j] === "}") return j > i + 1 ? j : -1;
    if (!((word[j] >= "a" && word[j] <= "z") || word[j] === "_")) return -1;
  }
  return -1;
}

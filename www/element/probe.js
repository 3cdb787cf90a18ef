// @ts-check
// What the host page broke before the element loaded: each built-in the
// element keeps (builtins.js) and each the wasm-bindgen glue keeps
// (scripts/glue-guard) is tried once, on a small input whose answer is
// known. A page that wraps one and keeps its behaviour (zone.js, an
// analytics wrapper) passes; one that throws or answers wrongly is named,
// and the element says so in the reader's language instead of running on
// it and giving wrong results (opening.js). Nothing here is awaited: a
// promise is only checked to be one.
import * as B from "./builtins.js";
import { messageOf } from "./crossing.js";

const noop = () => {};
/** A promise, of the page's kind or another (a zone.js page has two). @param {unknown} p */
const isPromise = (p) => p !== null && typeof p === "object" && typeof /** @type {{then?: unknown}} */ (p).then === "function";

/** Each check: the built-in's name, and a try that is true when it works (the first: what every other is called through). @type {[string, () => unknown][]} */
const CHECKS = [
  ["Reflect.apply", () => B.apply((/** @type {number} */ a) => a + 1, null, [1]) === 2],
  ["JSON.parse", () => B.parse('{"a":[1]}').a[0] === 1],
  ["JSON.stringify", () => B.stringify({ a: [1, "b"] }) === '{"a":[1,"b"]}'],
  ["Array.isArray", () => B.isArray([]) && !B.isArray({ length: 0 })],
  ["Array.prototype.push", () => { const list = [1]; return B.push(list, 2) === 2 && list[1] === 2; }],
  ["Array.prototype.pop", () => B.pop([1, 2]) === 2],
  ["Array.prototype.map", () => B.map([1, 2], (/** @type {number} */ n) => n * 2)[1] === 4],
  ["Array.prototype.filter", () => B.filter([1, 2, 3], (/** @type {number} */ n) => n > 1).length === 2],
  ["Array.prototype.flatMap", () => B.flatMap([1, 2], (/** @type {number} */ n) => [n, n]).length === 4],
  ["Array.prototype.every", () => B.every([1, 2], (/** @type {number} */ n) => n > 0) && !B.every([0], Boolean)],
  ["Array.prototype.includes", () => B.includes(["a", "b"], "b") && !B.includes(["a"], "c")],
  ["Array.prototype.indexOf", () => B.indexOf(["a", "b"], "b") === 1],
  ["Array.prototype.splice", () => { const list = [1, 2, 3]; B.splice(list, 1, 1); return list.length === 2 && list[1] === 3; }],
  ["Array.prototype.slice", () => B.slice([1, 2, 3], 1).length === 2],
  ["Array.prototype.join", () => B.join(["a", "b"], "|") === "a|b"],
  ["Object.assign", () => B.assign({ a: 1 }, { b: 2 }).b === 2],
  ["Object.hasOwn", () => B.hasOwn({ a: 1 }, "a") && !B.hasOwn({}, "a")],
  ["Object.getPrototypeOf", () => B.getPrototypeOf([]) === Array.prototype],
  ["Object.setPrototypeOf", () => B.getPrototypeOf(B.plain({})) === null],
  ["Reflect.get", () => B.get({ a: 1 }, "a") === 1],
  ["String.prototype.split", () => B.split("a-b", "-").length === 2],
  ["String.prototype.trim", () => B.trim(" a ") === "a"],
  ["String.prototype.toLowerCase", () => B.toLowerCase("aB") === "ab"],
  ["String.prototype.slice", () => B.textSlice("abc", 1) === "bc"],
  ["String.prototype.replace", () => B.replace("a1", /\d/, "b") === "ab"],
  ["RegExp.prototype.test", () => B.test(/b/, "ab") && !B.test(/c/, "ab")],
  ["RegExp.prototype.exec", () => B.exec(/(b)/, "ab")?.[1] === "b"],
  ["Promise.resolve", () => isPromise(B.resolved(1))],
  ["Promise.prototype.then", () => isPromise(B.then(B.resolved(1), noop))],
  ["Set", () => { const set = new B.Set(); B.setAdd(set, 1); return B.setHas(set, 1) && !B.setHas(set, 2); }],
  ["TextDecoder", () => B.decode(new B.TextDecoder(), new Uint8Array([104, 105])) === "hi"],
  ["fetch", () => typeof globalThis.fetch === "function"],
  ["Response.prototype.text", () => isPromise(B.responseText(new B.Response("x")))],
  ["ReadableStreamDefaultReader.prototype.read", () => isPromise(B.read(B.getReader(/** @type {ReadableStream} */ (new B.Response("x").body))))],
  ["Headers.prototype.get", () => B.headerOf(new B.Headers({ "content-length": "1" }), "content-length") === "1"],
  ["AbortSignal.timeout", () => typeof AbortSignal.timeout === "function"],
  ["setTimeout", () => typeof B.setTimeout(noop, 0) === "number"],
  ["queueMicrotask", () => B.queueMicrotask(noop) === undefined],
  ["requestAnimationFrame", () => { B.cancelAnimationFrame(B.requestAnimationFrame(noop)); return true; }],
  ["CustomEvent", () => new B.CustomEvent("alp-probe", { detail: 1 }).detail === 1],
  ["Document.prototype.createElement", () => B.createElement(document, "div").tagName === "DIV"],
  ["Element.prototype.attachShadow", () => { const box = B.createElement(document, "div"); return B.attachShadow(box, { mode: "open" }).host === box; }],
  ["Node.prototype.appendChild", () => { const box = B.createElement(document, "div"); const child = B.createElement(document, "p"); return B.appendChild(box, child) === child && box.firstChild === child; }],
  ["DocumentFragment.prototype.append", () => { const bag = document.createDocumentFragment(); B.append(bag, "x"); return bag.childNodes.length === 1; }],
  ["Element.prototype.replaceChildren", () => { const box = B.createElement(document, "div"); B.replaceChildren(box, "x"); return box.childNodes.length === 1; }],
  ["EventTarget.prototype.addEventListener", () => { B.listen(B.createElement(document, "div"), "alp-probe", noop); return true; }],
  ["EventTarget.prototype.dispatchEvent", () => B.dispatchEvent(B.createElement(document, "div"), new B.CustomEvent("alp-probe")) === true],
  // (the glue's own: scripts/glue-guard keeps them for it)
  ["Object.freeze", () => {
    const frozen = /** @type {{a: number}} */ (B.freeze({ a: 1 }));
    try {
      frozen.a = 2;
    } catch {}
    return frozen.a === 1;
  }],
  ["Function.prototype.call", () => B.call((/** @type {number} */ a) => a + 1, null, 1) === 2],
  ["String.prototype.charCodeAt", () => B.charCodeAt("a", 0) === 97],
  ["TextEncoder.prototype.encodeInto", () => B.encodeInto(new TextEncoder(), "a", new Uint8Array(1)).written === 1],
];

/** @type {{names: string[], detail: string} | null} */
let found = null;

/**
 * The built-ins that do not work as the browser's do, each named, and what
 * the first one threw (or "" when it answered wrongly); tried once, the
 * first time an element connects. Object.prototype.then is looked at every
 * time: a page may set it at any moment.
 * @returns {{names: string[], detail: string}}
 */
export function brokenBuiltins() {
  if (!found) {
    /** @type {string[]} */
    const names = [];
    let detail = "";
    for (let i = 0; i < CHECKS.length; i++) {
      const name = CHECKS[i][0];
      try {
        if (!CHECKS[i][1]()) names[names.length] = name;
      } catch (error) {
        names[names.length] = name;
        detail ||= messageOf(error);
      }
      // (every other is called through the first: it alone is named)
      if (i === 0 && names.length) break;
    }
    found = { names, detail };
  }
  return found;
}

/**
 * Why the element cannot start on this page, in the reader's words, or ""
 * when it can: a page that gave every object a `then` (no file would ever
 * be handed over), one that broke a built-in the element keeps before it
 * loaded (it would run on it and give wrong results), one that broke the
 * shadow root the playground lives in.
 * @param {import("./base.js").PlaygroundElement} el
 */
export function refusal(el) {
  const everywhere = B.thenEverywhere();
  if (everywhere) return el._words("broken_then", { name: everywhere });
  const { names, detail } = brokenBuiltins();
  let list = "";
  for (let i = 0; i < names.length; i++) list += (i ? ", " : "") + names[i];
  if (names.length) return el._words("broken_builtins", { names: list, detail: detail || el._words("answered_wrongly") });
  try {
    el._container();
  } catch (error) {
    return el._words("no_shadow_root", { detail: messageOf(error) });
  }
  return "";
}

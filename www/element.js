// @ts-check
// <agent-loop-playground> — one script tag, then as many elements as you like.
//
//   <script type="module" src="…/element.js"></script>
//   <agent-loop-playground function="run_loop" scenario="report" lang="zh"
//       breakpoints="loop.ask,loop.save_results"></agent-loop-playground>
//
// Attributes: every one, with its values, default and what it does, is in
// the table of www/element/attributes.js (docs/element-api.md#attributes).
// Each element owns its own trace, breakpoints and listeners; removing it
// from the page frees them.
//
// API: el.state(), el.command(name), el.toggleBreakpoint(function, line|label),
// el.load(scenarioId), el.addScenario(json), el.model = fn, el.process = fn,
// el.lang = "en", el.predict = true, el.answer(i), el.tryAgain(),
// el.whatIf({model, process} | null). Events: "playground-step" (detail =
// state) after every move; "playground-answer" after every answer;
// "playground-ready" once the wasm is loaded.
//
// This file and the modules of www/element/ are the source: the build
// bundles them into the one element.js it ships (scripts/minify, esbuild),
// beside the files they load: the wasm-bindgen glue
// (agent-loop-playground.js), doubles.js, element-style.js, the module and
// data/. Every path in them is relative to that element.js.

import { failIn } from "./element/base.js";
import { define, definedAs } from "./element/builtins.js";
import { messageOf } from "./element/crossing.js";
import { AgentLoopPlayground } from "./element/playground.js";
import { loadWasm, wasmMemoryBytes } from "./element/module.js";
import { say } from "./element/words.js";
import { langWanted } from "./element/languages.js";
import { ATTRIBUTES } from "./element/attributes.js";

// Defined with the registry's define as the page had it when this module
// loaded; where that throws (or what calls it, Reflect.apply, is broken),
// with the page's own of now; where that throws too, each element already
// in the page says why.
const NAME = "agent-loop-playground";
/** @type {(() => unknown)[]} */
const DEFINE = [
  () => definedAs(customElements, NAME) || define(customElements, NAME, AgentLoopPlayground),
  () => customElements.get(NAME) || customElements.define(NAME, AgentLoopPlayground),
];
let undefinedBecause = null;
for (let i = 0; i < DEFINE.length; i++) {
  try {
    DEFINE[i]();
    undefinedBecause = null;
    break;
  } catch (error) {
    undefinedBecause ??= error;
  }
}
if (undefinedBecause) {
  const elements = document.querySelectorAll(NAME);
  for (let i = 0; i < elements.length; i++) {
    const el = /** @type {HTMLElement} */ (elements[i]);
    let lang = "";
    try {
      lang = langWanted(el, null);
    } catch {}
    failIn(el, say(lang, "not_defined", { detail: messageOf(undefinedBecause) }));
  }
}

// (ATTRIBUTES: the attribute table, which the stand-alone page's URL reads)
export { AgentLoopPlayground, ATTRIBUTES, loadWasm, wasmMemoryBytes };

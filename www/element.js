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

import { AgentLoopPlayground } from "./element/playground.js";
import { loadWasm, wasmMemoryBytes } from "./element/module.js";

if (!customElements.get("agent-loop-playground")) {
  customElements.define("agent-loop-playground", AgentLoopPlayground);
}

export { AgentLoopPlayground, loadWasm, wasmMemoryBytes };

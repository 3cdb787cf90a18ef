// @ts-check
// The WebAssembly module, loaded once for the page.
//
// It is found next to element.js (these modules are bundled into it),
// written as the literal `new URL("./file", import.meta.url)` that bundlers
// (Vite, webpack 5, Rollup, Parcel) recognise: a bundled build emits it
// with a hashed name and rewrites this line to find it.
import init from "./agent-loop-playground.js";
import { markTime, then } from "./builtins.js";

/** @type {Promise<import("./agent-loop-playground.js").InitOutput> | null} */
let ready = null;
/** Where the module was fetched from. @type {URL | null} */
let fetched = null;

/**
 * The module's exports, once it is instantiated (one load for the page).
 * @returns {Promise<import("./agent-loop-playground.js").InitOutput>}
 */
export function loadWasm() {
  if (!ready) {
    markTime("alp:wasm-start");
    // (what it resolves with, the module's exports, has no prototype: a
    // page's Object.prototype.then is never asked)
    fetched = new URL("./agent-loop-playground_bg.wasm", import.meta.url);
    ready = then(init({ module_or_path: fetched }), (/** @type {import("./agent-loop-playground.js").InitOutput} */ wasm) => {
      markTime("alp:wasm-ready");
      return wasm;
    });
  }
  return /** @type {Promise<import("./agent-loop-playground.js").InitOutput>} */ (ready);
}

/** Where the module is fetched from (the worker fetches the same). */
export function wasmUrl() {
  return fetched || new URL("./agent-loop-playground_bg.wasm", import.meta.url);
}

/** Bytes of wasm linear memory in use (for the benchmark harness). */
export async function wasmMemoryBytes() {
  const wasm = await loadWasm();
  return wasm.memory.buffer.byteLength;
}

/**
 * The address the module was fetched from when `error` (the load's) says
 * that what came back does not compile (an HTML page in its place: a
 * site's fallback page, a dev server that pre-bundled element.js away
 * from it), else "".
 * @param {unknown} error
 */
export function notCompiledFrom(error) {
  let compile = false;
  try {
    compile = typeof error === "object" && error !== null && /** @type {{name?: unknown}} */ (error).name === "CompileError";
  } catch {}
  return compile && fetched ? `${fetched}` : "";
}

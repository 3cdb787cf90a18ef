// @ts-check
// The page's recording worker (www/element/elsewhere.js starts it): a
// second instance of the module records an author's long file here, off
// the page's thread, on the same doubles (doubles.js), and hands the run
// back as bytes. The page's module shows it only if it is the run of
// exactly that file, language and budgets; otherwise it records the file
// itself. Nothing here touches a page: a worker has none.
import init, { Playground, recordElsewhere } from "./agent-loop-playground.js";
import { fixtureDoubles } from "./doubles.js";

/** The module, instantiated once. @type {Promise<unknown> | null} */
let ready = null;

/**
 * `{id, wasm, packs, text, options}`: record `text` once the module from
 * `wasm` is in, with the packs the page has; say `{id, started: true}` as
 * the recording starts (it ends within its time budget), then answer
 * `{id, bytes}` (bytes undefined when this instance cannot record it).
 * @param {MessageEvent} event
 */
async function answer(event) {
  const { id, wasm, packs, text, options } = event.data;
  /** @type {Uint8Array | undefined} */
  let bytes;
  try {
    ready = ready || init({ module_or_path: wasm });
    await ready;
    for (const pack of packs) Playground.addPack(pack.name, pack.text);
    self.postMessage({ id, started: true });
    bytes = recordElsewhere(fixtureDoubles, text, options);
  } catch {
    bytes = undefined;
  }
  self.postMessage({ id, bytes }, { transfer: bytes ? [bytes.buffer] : [] });
}

self.addEventListener("message", answer);

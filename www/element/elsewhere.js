// @ts-check
// A long author's file is recorded off the page's thread: a worker
// (recorder.js) holds a second instance of the module, records the file on
// the same doubles, in the element's language and budgets, and hands the
// run back as bytes, which the page's module keeps (`giveRun`) and shows
// instead of recording it again. The page's module reads the run only for
// exactly that file, language and budgets: anything else (or a worker that
// cannot start, a page whose policy forbids it) is recorded by the page as
// before — the same run, in one longer task.
import { giveRun } from "./agent-loop-playground.js";
import { Promise, Worker, indexOf, listen, postMessage, push, resolved } from "./builtins.js";
import { packsHere } from "./packs.js";
import { wasmUrl } from "./module.js";

/** Files shorter than this are recorded by the page (a few tens of ms). */
export const ELSEWHERE_BYTES = 64 * 1024;

/** @type {Worker | null} */
let worker = null;
/** Set once the worker failed: every later file is recorded by the page. */
let failed = false;
let asked = 0;
/** id → what settles its request. @type {Record<number, (given: boolean) => void>} */
const waiting = /** @type {any} */ ({ __proto__: null });
/** Packs the worker has been sent. @type {string[]} */
const sent = [];

/** Every request still waiting settles as not given. */
function fail() {
  failed = true;
  worker = null;
  for (const id in waiting) {
    waiting[id](false);
    delete waiting[id];
  }
}

/** @returns {Worker | null} */
function started() {
  if (worker || failed) return worker;
  try {
    // (the literal bundlers recognise, as for the module)
    const w = new Worker(new URL("./recorder.js", import.meta.url), { type: "module" });
    listen(w, "message", (/** @type {MessageEvent} */ event) => {
      const { id, bytes } = event.data || {};
      const settle = waiting[id];
      if (!settle) return;
      delete waiting[id];
      settle(bytes instanceof Uint8Array && giveRun(bytes));
    });
    listen(w, "error", fail);
    listen(w, "messageerror", fail);
    worker = w;
  } catch {
    failed = true;
  }
  return worker;
}

/** Whether files may be sent to the worker (none failed to start). */
export const canRecordElsewhere = () => !failed;

/**
 * Record `text` (a src= file) in the worker for the element's language
 * and budgets, and give the run to the module. Settles true when the
 * page's module now holds it; false when the page is to record it itself.
 * @param {string} text
 * @param {{lang: string, timeBudget: string, memoryBudget: string}} options
 * @returns {Promise<boolean>}
 */
export function recordElsewhere(text, options) {
  const w = text.length >= ELSEWHERE_BYTES ? started() : null;
  if (!w) return resolved(false);
  /** @type {{name: string, text: string}[]} */
  const packs = [];
  const here = packsHere();
  for (let i = 0; i < here.length; i++) {
    if (indexOf(sent, here[i].name) < 0) {
      push(packs, here[i]);
      push(sent, here[i].name);
    }
  }
  const id = ++asked;
  return new Promise((settle) => {
    waiting[id] = settle;
    try {
      postMessage(w, { id, wasm: `${wasmUrl()}`, packs, text, options });
    } catch {
      fail();
    }
  });
}

/** How many runs the worker has been asked for (the tests count them). */
export const runsAsked = () => asked;

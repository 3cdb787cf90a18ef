// @ts-check
// A long author's file is recorded off the page's thread: a worker
// (recorder.js) holds a second instance of the module, records the file on
// the same doubles, in the element's language and budgets, and hands the
// run back as bytes, which the page's module keeps (`giveRun`), reads back
// a slice per task (`readGiven`, `readBack`; a run in another language,
// when it is shown) and shows instead of recording it again. The page's module reads
// the run only for exactly that file, language, budgets and build: anything
// else (a worker that cannot start, a page whose policy forbids it, one that
// does not start recording in time) is recorded by the page as before — the same
// run, in one longer task. The worker is let go once nothing is asked of it.
import { giveRun, readGiven } from "./agent-loop-playground.js";
import {
  Promise, all, clearTimeout, filter, includes, isView, listen, map, postMessage, push, resolved, setTimeout, splice, then,
} from "./builtins.js";
import { packsHere } from "./packs.js";
import { wasmUrl } from "./module.js";

/** Files shorter than this (in characters) are recorded by the page (a few tens of ms). */
export const ELSEWHERE_CHARS = 64 * 1024;
/** How long a request may wait for the worker to start recording (its
 *  start, the module's fetch) before the page records instead; once it has
 *  started, the recording ends within its own time budget. */
const ANSWER_MS = 10_000;
/** Requests kept, so that the same file in the same language is asked once. */
const KEPT = 8;

/** @type {Worker | null} */
let worker = null;
/** Set once the worker could not start: every later file is recorded by the page. */
let failed = false;
let asked = 0;
/** id → what settles its request (once), whether its run is read back as
 *  it comes, and what stops its timer (the worker has started recording it:
 *  the recording ends within its budget, and reading it back is the page's
 *  own work). @type {Record<number, {settle: (given: boolean) => void, now: boolean, answered: () => void}>} */
const waiting = /** @type {any} */ ({ __proto__: null });
/** Packs the worker has been sent. @type {string[]} */
let sent = [];
/** What was asked: the text, its options and language, the answer, and
 *  whether it has come. @type {{text: string, key: string, lang: string, answer: Promise<boolean>, settled: boolean}[]} */
const answers = [];

/** The worker goes (its memory with it); the next request starts another. */
function letGo() {
  const w = worker;
  worker = null;
  sent = [];
  try {
    w?.terminate();
  } catch {}
}

/** Every request still waiting settles as not given; `broken`: for good. */
function fail(broken = true) {
  failed = failed || broken;
  letGo();
  for (const id in waiting) waiting[id].settle(false);
}

/** @param {MessageEvent} event */
function answered(event) {
  let id = 0;
  let given = false;
  try {
    id = event.data.id;
    if (event.data.started === true) return void waiting[id]?.answered();
    const bytes = event.data.bytes;
    given = isView(bytes) && giveRun(/** @type {Uint8Array} */ (bytes), !!waiting[id]?.now);
  } catch {}
  if (given && waiting[id]?.now) {
    waiting[id].answered();
    readOn(id);
  }
  else waiting[id]?.settle(given);
}

/**
 * The refusal of a call whose run the module is still reading back
 * (`{name: "Reading"}`, src/handle.rs): its reading has started.
 * @param {unknown} error
 */
export function isReading(error) {
  return typeof error === "object" && error !== null && "name" in error && error.name === "Reading";
}

/**
 * The runs the module has started to read back, read a slice per task
 * (`readGiven`, from the task after this one); settles after the last.
 * @returns {Promise<void>}
 */
export function readBack() {
  return new Promise((done) => {
    const next = () => {
      let more = false;
      try {
        more = readGiven();
      } catch {}
      if (more) setTimeout(next, 0);
      else done();
    };
    setTimeout(next, 0);
  });
}

/** The run given for request `id` is read back a slice per task, then
 *  the request settles (a run the module cannot read is recorded when it
 *  is shown). @param {number} id */
const readOn = (id) => then(readBack(), () => waiting[id]?.settle(true));

/** @returns {Worker | null} */
function started() {
  if (worker || failed) return worker;
  try {
    // (the global, as written: the literal bundlers recognise as a worker)
    const w = new Worker(new URL("./recorder.js", import.meta.url), { type: "module" });
    listen(w, "message", answered);
    listen(w, "error", () => fail());
    listen(w, "messageerror", () => fail());
    worker = w;
  } catch {
    failed = true;
  }
  return worker;
}

/**
 * Ask the worker for `text`'s run; settles once, true when the page's
 * module holds it.
 * @param {Worker} w
 * @param {string} text
 * @param {{lang: string, timeBudget: string, memoryBudget: string}} options
 * @param {boolean} now  read the run back as it comes (it is shown next)
 * @returns {Promise<boolean>}
 */
function ask(w, text, options, now) {
  /** @type {{name: string, text: string}[]} */
  const packs = [];
  const here = packsHere();
  for (let i = 0; i < here.length; i++) {
    if (!includes(sent, here[i].name)) {
      push(packs, here[i]);
      push(sent, here[i].name);
    }
  }
  const id = ++asked;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      // (a worker that does not start recording in time is not asked again)
      letGo();
      settle(false);
    }, ANSWER_MS);
    /** @param {boolean} given */
    const settle = (given) => {
      if (!waiting[id]) return;
      delete waiting[id];
      clearTimeout(timer);
      // (in a task of its own: the run read back and the display that
      // follows are two tasks, not one)
      setTimeout(() => resolve(given), 0);
      let busy = false;
      for (const _ in waiting) busy = true;
      if (!busy) letGo();
    };
    waiting[id] = { settle, now, answered: () => clearTimeout(timer) };
    try {
      postMessage(w, { id, wasm: `${wasmUrl()}`, packs, text, options });
    } catch {
      fail();
    }
  });
}

/** Whether the worker is to be asked for a text this long. @param {string} text */
export const isLong = (text) => text.length >= ELSEWHERE_CHARS && !failed;

/**
 * Record `text` (a src= file) in the worker for the element's language
 * and budgets, and give the run to the module. Settles true when the
 * page's module now holds it; false when the page is to record it itself.
 * The same text with the same options is asked once.
 * @param {string} text
 * @param {{lang: string, timeBudget: string, memoryBudget: string}} options
 * @param {boolean} [now]  read back as it comes: it is shown next (a run
 *   for another language is read when it is shown)
 * @returns {Promise<boolean>}
 */
export function recordElsewhere(text, options, now = true) {
  if (!isLong(text)) return resolved(false);
  const key = `${options.lang}|${options.timeBudget}|${options.memoryBudget}`;
  for (let i = 0; i < answers.length; i++) if (answers[i].key === key && answers[i].text === text) return answers[i].answer;
  const w = started();
  if (!w) return resolved(false);
  const asked = { text, key, lang: options.lang, answer: ask(w, text, options, now), settled: false };
  then(asked.answer, () => void (asked.settled = true));
  push(answers, asked);
  if (answers.length > KEPT) splice(answers, 0, 1);
  return asked.answer;
}

/**
 * The worker's runs of `text` in `lang` still on their way (a switch to it
 * waits for them rather than record a long file itself meanwhile): settles
 * once they have come; null when none is.
 * @param {string} lang
 * @param {string} text
 * @returns {Promise<unknown> | null}
 */
export function runsOnTheirWay(lang, text) {
  const coming = filter(answers, (/** @type {{lang: string, text: string, settled: boolean}} */ a) => a.lang === lang && a.text === text && !a.settled);
  return coming.length ? all(map(coming, (/** @type {{answer: Promise<boolean>}} */ a) => a.answer)) : null;
}

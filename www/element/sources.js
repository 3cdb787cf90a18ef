// @ts-check
// What an element fetches beside the module as it opens (its src= files,
// its language's table), src= files that arrive after the playground was
// built, and a changed src= (its files fetched and added; those shown stay).
import { optionsOf } from "./attributes.js";
import { parseAhead } from "./agent-loop-playground.js";
import { Promise, all, filter, indexOf, map, push, resolved, setTimeout, some, splice, then } from "./builtins.js";
import { isLong, isReading, readBack, recordElsewhere } from "./elsewhere.js";
import { fetchScenarios, fetchTimeoutOf } from "./fetching.js";
import { DEFAULT_LANGUAGE, LANGUAGES, languagePack, langWanted } from "./languages.js";
import { isPackNeeded, loadPack, packsHere, withPack } from "./packs.js";

/** @typedef {import("./base.js").PlaygroundElement} Host */
/** @typedef {import("./fetching.js").FetchedFile} FetchedFile */
/** @typedef {import("./packs.js").PackFailure} PackFailure */

/**
 * What is fetched beside the module: the src= files, and the language's
 * table when it is a pack (after this task's script: a page that sets lang
 * just after adding the element, as the stand-alone page does, is heard).
 * One that fails is said once the playground is built (not asked for again).
 * @param {Host} el
 */
export function fetchBeside(el) {
  // (those not there shortly after the module, a slow or stalled server,
  // are added when they arrive)
  el._src = el.getAttribute("src");
  const srcGeneration = ++el._srcGeneration;
  const timeoutMs = fetchTimeoutOf(el);
  const pending = fetchScenarios(el._src, timeoutMs);
  const arriving = {
    srcGeneration, timeoutMs, pending,
    /** @type {PackFailure | null} */
    langFailed: null,
    /** @type {Promise<unknown>} */
    lang: resolved(),
  };
  arriving.lang = (async () => {
    await resolved();
    const code = languagePack(langWanted(el, null));
    if (!code) return;
    try {
      await loadPack(code);
    } catch (why) {
      arriving.langFailed = /** @type {PackFailure} */ (why);
    }
  })();
  return arriving;
}


/**
 * Files named by a changed src= are fetched and added (shown ones stay);
 * files of an earlier value still on their way are dropped.
 * @param {Host} el
 * @param {string} value
 */
export function loadSrc(el, value) {
  if (value === el._src) return;
  el._src = value;
  const srcGeneration = ++el._srcGeneration;
  const pending = fetchScenarios(value, fetchTimeoutOf(el));
  for (let i = 0; i < pending.length; i++) then(pending[i].promise, (/** @type {FetchedFile} */ file) => addFile(el, file, srcGeneration));
}

/** A long file not yet sent to the worker: recorded there before it is added. @param {FetchedFile} file */
export const isLongFile = (file) => "text" in file && isLong(file.text) && !sent(file);

/** A file whose run the worker was asked for (marked on the file: once each). @param {FetchedFile} file */
const sent = (file) => /** @type {{sent?: boolean}} */ (file).sent === true;

/**
 * The budgets and language a file is recorded under for `el`.
 * @param {Host} el
 * @param {string} lang
 */
export function runOptions(el, lang) {
  const given = optionsOf(el, false);
  return { lang, timeBudget: given.timeBudget, memoryBudget: given.memoryBudget };
}

/**
 * Each text parsed by the module in a task of its own (`parseAhead`); settles
 * in a task after the last, the one that opens them.
 * @param {string[]} texts
 * @returns {Promise<void>}
 */
function parsedAhead(texts) {
  return new Promise((done) => {
    let i = 0;
    const next = () => {
      if (i === texts.length) return done();
      try {
        parseAhead(texts[i++]);
      } catch {}
      setTimeout(next, 0);
    };
    setTimeout(next, 0);
  });
}

/**
 * Long files (`elsewhere.js`: 64 K characters or more) are recorded in the worker first, in
 * `options.lang`, then parsed ahead: settles once the module holds their
 * runs (or is to record them itself) and their parse, each read in a task
 * of its own. Then they are recorded in the page's other languages, one
 * after the other, for a switch.
 * @param {FetchedFile[]} files
 * @param {{lang: string, timeBudget: string, memoryBudget: string}} options
 * @returns {Promise<void>}
 */
export function recordFirst(files, options) {
  const long = filter(files, isLongFile);
  if (!long.length) return resolved();
  for (let i = 0; i < long.length; i++) /** @type {{sent?: boolean}} */ (long[i]).sent = true;
  const texts = map(long, (/** @type {{text: string}} */ f) => f.text);
  const here = (/** @type {string} */ code) => code === DEFAULT_LANGUAGE || some(packsHere(), (/** @type {{name: string}} */ p) => p.name === code);
  const others = filter(LANGUAGES, (/** @type {string} */ code) => code !== options.lang && here(code));
  return then(all(map(texts, (/** @type {string} */ t) => recordElsewhere(t, options))), () => {
    for (let i = 0; i < texts.length; i++) for (let j = 0; j < others.length; j++) recordElsewhere(texts[i], { ...options, lang: others[j] }, false);
    return parsedAhead(texts);
  });
}

/**
 * A file that arrived after the playground was built. One holding the
 * scenario the element asks for opens it, unless the learner has started.
 * @param {Host} el
 * @param {FetchedFile} file
 * @param {number} srcGeneration  the src= value it was fetched for
 */
export function addFile(el, file, srcGeneration) {
  if (srcGeneration !== el._srcGeneration || !el._pg) return;
  if (isLongFile(file)) {
    // (recorded in the worker, in the language on screen; then added here,
    // where its checks and its display read that run; said meanwhile)
    const add = () => addFile(el, file, srcGeneration);
    try {
      el._call("fileRecording", file.name);
    } catch {}
    then(recordFirst([file], runOptions(el, el._pg.state()?.lang || "")), add, add);
    return;
  }
  // (kept for a restart, which reads every file again)
  push(el._files, file);
  try {
    if (!("text" in file)) {
      el._call("fileUnreadable", file.name, file.error, file.detail);
      return;
    }
    const id = el._call("addScenarioFile", file.name, file.text);
    /** @type {{id?: string}} */ (file).id = id; // (a switch of language asks which file is on screen)
    const now = el._pg?.state();
    if (id === el.getAttribute("scenario") && now && now.scenario !== id && now.scenario === el._placeScenario && !now.started) {
      el._call("load", id);
      el._placeScenario = id;
    }
  } catch (error) {
    // A scenario of a program whose pack is not here yet: added again
    // once it is. (A broken file is already shown in the notice box and
    // said once in the console by the playground itself.)
    if (isPackNeeded(error)) {
      splice(el._files, indexOf(el._files, file), 1);
      then(withPack(el, error.pack), () => addFile(el, file, srcGeneration), () => {});
    }
    // A run of it the page's module keeps as bytes (another element shows
    // it): read back a slice per task, then added.
    if (isReading(error)) {
      splice(el._files, indexOf(el._files, file), 1);
      then(readBack(), () => addFile(el, file, srcGeneration));
    }
  }
}

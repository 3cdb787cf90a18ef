// @ts-check
// src= files that arrive after the playground was built, and a changed
// src= (its files fetched and added; those shown stay).
import { fetchScenarios, fetchTimeoutOf } from "./fetching.js";
import { isPackNeeded, withPack } from "./packs.js";

/** @typedef {import("./base.js").PlaygroundElement} Host */
/** @typedef {import("./fetching.js").FetchedFile} FetchedFile */

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
  for (const p of fetchScenarios(value, fetchTimeoutOf(el))) {
    p.promise.then((file) => addFile(el, file, srcGeneration));
  }
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
  // (kept for a restart, which reads every file again)
  el._files.push(file);
  try {
    if (!("text" in file)) {
      el._call("fileUnreadable", file.name, file.error, file.detail);
      return;
    }
    const id = el._call("addScenarioFile", file.name, file.text);
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
      el._files.splice(el._files.indexOf(file), 1);
      withPack(el, error.pack).then(() => addFile(el, file, srcGeneration), () => {});
    }
  }
}

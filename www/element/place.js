// @ts-check
// The learner's place, kept across a course site's client-side
// navigation: an element that leaves the page writes its step, breakpoints
// and listing to sessionStorage (this tab only), keyed by the page's path
// and the element (its id, else its place among the page's playgrounds);
// one that connects under the same key with the same function, program,
// scenario, breakpoints, listing and step attributes, still on its own
// scenario, takes it back (and the entry is removed: a reload starts
// afresh). keep-place="off" opts out. A kept place never sets the
// language: that is the element's, or the page's.

/** @typedef {import("../element.js").PlaygroundState} PlaygroundState */
/**
 * Where a learner was, to open there again (`lang`: only where a
 * playground that died was, never a kept place).
 * @typedef {object} Place
 * @property {number | null} step  null: not started
 * @property {string[]} breakpoints  each `function:line`
 * @property {string} listing
 * @property {string} [lang]
 */
/** A place kept in sessionStorage, with the attributes it was kept under.
 *  @typedef {Place & {attrs: string}} KeptPlace */
/** Where a playground that died was (its lastPlace(), src/events.rs).
 *  @typedef {Place & {scenario: string, step: number, started: boolean, whatIf: boolean}} LastPlace */

import { every, indexOf, isArray, join, map, parse, replace, stringify, test } from "./builtins.js";

const PLACE = "agent-loop-playground:place:";

/**
 * The key an element's place is kept under; null with keep-place="off".
 * @param {Element} el
 */
export function placeKey(el) {
  if (el.getAttribute("keep-place") === "off") return null;
  const all = document.querySelectorAll("agent-loop-playground");
  // (/lesson, /lesson/, /lesson/index.html are one page; /a.html and /a too)
  const page = replace(replace(location.pathname, /(\/index)?(\.html?)?$/, ""), /\/$/, "") || "/";
  return `${PLACE}${page}#${el.id ? `id:${el.id}` : `n:${indexOf(all, el)}`}`;
}

/**
 * The attributes a kept place belongs to: another scenario, another place;
 * and the author's own breakpoints, listing and step, so that an element
 * whose author asks for other ones opens where its author says.
 * @param {Element} el
 */
export function attrsOf(el) {
  const named = ["function", "program", "scenario", "program-src", "breakpoints", "listing", "step"];
  return join(map(named, (/** @type {string} */ name) => el.getAttribute(name) || ""), "|");
}

/**
 * The kept place, if it is one this element can take (`peek`: left in
 * storage); never a throw (storage can be disabled, full or hold anything).
 * @param {string | null} key
 * @param {string} attrs
 * @returns {KeptPlace | null}
 */
export function takePlace(key, attrs, peek = false) {
  if (!key) return null;
  let place = null;
  try {
    place = parse(sessionStorage.getItem(key) || "null");
    if (!peek) sessionStorage.removeItem(key);
  } catch {
    return null;
  }
  const ok = place && typeof place === "object" && place.attrs === attrs
    && (place.step === null || (Number.isInteger(place.step) && place.step >= 0))
    && isArray(place.breakpoints) && every(place.breakpoints, (/** @type {unknown} */ b) => typeof b === "string" && test(/^[a-z_]+:\d+$/, b))
    && (place.listing === "python" || place.listing === "rust");
  return ok ? place : null;
}

/**
 * Drop a kept place (an element moved in the page keeps its own).
 * @param {string | null | undefined} key
 */
export function forgetPlace(key) {
  try {
    if (key) sessionStorage.removeItem(key);
  } catch {}
}

/**
 * Keep where a leaving element's learner is, when it is still on its own
 * scenario (a picked one may not be there again); else forget it.
 * @param {string | null | undefined} key
 * @param {string} attrs  what attrsOf() said when it connected
 * @param {string | undefined} own  the scenario it opened with
 * @param {PlaygroundState | null} state
 */
export function keepPlace(key, attrs, own, state) {
  if (!key || !state || state.scenario !== own) {
    forgetPlace(key);
    return;
  }
  /** @type {KeptPlace} */
  const place = {
    attrs,
    // An edited version opens again as the lesson's run: from its start.
    step: state.started && !state.whatIf ? state.step : null,
    breakpoints: map(state.breakpoints, (/** @type {{function: string, line: number}} */ b) => `${b.function}:${b.line}`),
    listing: state.listing,
  };
  try {
    sessionStorage.setItem(key, stringify(place));
  } catch {}
}

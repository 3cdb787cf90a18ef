// @ts-check
// What showing a scenario or switching language may wait for before it is
// made: a pack not here yet (fetched: packs.js), a run the worker recorded
// that the page's module keeps as bytes (read back a slice per task, so
// that no task of the page reads a long run whole), and a run still on its
// way from the worker (waited for, rather than the file recorded again
// here). Only the latest request to show goes ahead, and only if nothing
// else was shown meanwhile.
import { readGiven } from "./agent-loop-playground.js";
import { listen, queueMicrotask, then } from "./builtins.js";
import { messageOf } from "./crossing.js";
import { isReading, readBack, runsOnTheirWay } from "./elsewhere.js";
import { isPackNeeded, withPack } from "./packs.js";

/** @typedef {import("./base.js").PlaygroundElement} Host */

/**
 * Show `id` on `pg` in this task, its run read back whole if it must be
 * (a restart, which is one long task anyway).
 * @param {import("./agent-loop-playground.js").Playground} pg
 * @param {string} id
 */
export function loadNow(pg, id) {
  try {
    pg.load(id);
  } catch (error) {
    if (!isReading(error)) throw error;
    try {
      while (readGiven());
    } catch {}
    pg.load(id);
  }
}

/**
 * `waited`, with the playground marked busy meanwhile (aria-busy: the
 * stylesheet dims the code and the figure) until the last of the waits
 * under way has ended.
 * @template T
 * @param {Host} el
 * @param {Promise<T>} waited
 * @returns {Promise<T>}
 */
function busyUntil(el, waited) {
  el._waits++;
  el._container().setAttribute("aria-busy", "true");
  const done = () => {
    el._waits--;
    if (!el._waits) el._container().removeAttribute("aria-busy");
  };
  then(waited, done, done);
  return waited;
}

/**
 * Show a scenario (`show`) once `waited` settles: only the latest such
 * request goes ahead, and only if nothing else was shown meanwhile (a pick
 * or a load made while it waited wins). Settles once it is shown.
 * @param {Host} el
 * @param {Promise<unknown>} waited
 * @param {() => unknown} show
 * @returns {Promise<void>}
 */
function showAfter(el, waited, show) {
  const ticket = ++el._packTicket;
  const from = el._pg ? el._pg.state()?.scenario : null;
  return then(busyUntil(el, waited), () => {
    const now = el._pg ? el._pg.state()?.scenario : null;
    if (ticket === el._packTicket && el._pg && now === from) return show();
  });
}

/**
 * Show a scenario once its pack is in ([`showAfter`]); rejects when it
 * cannot come (the element says so).
 * @param {Host} el
 * @param {string} name
 * @param {() => void} show
 * @returns {Promise<void>}
 */
export const showAfterPack = (el, name, show) => showAfter(el, withPack(el, name), show);

/**
 * Show the scenario `id`: at once, or once its pack is in or its run read
 * back (then a Promise that settles once it is shown, rejected if the pack
 * cannot be fetched).
 * @param {Host} el
 * @param {string} id
 * @returns {void | Promise<void>}
 */
export function load(el, id) {
  try {
    el._call("load", id);
    el._packTicket++; // (one still waiting does not come after this)
  } catch (error) {
    if (isReading(error)) return showAfter(el, readBack(), () => load(el, id));
    if (!isPackNeeded(error)) throw error;
    return showAfterPack(el, error.pack, () => el._call("load", id));
  }
}

/**
 * The worker's runs in `code` still on their way for the scenario on
 * screen (its file's text, in the element's files): null when none is.
 * @param {Host} el
 * @param {string} code
 */
function runComing(el, code) {
  const id = el._pg?.state()?.scenario;
  for (let i = 0; i < el._files.length; i++) {
    const file = /** @type {{text?: string, id?: string}} */ (el._files[i]);
    if (file.id === id && typeof file.text === "string") return runsOnTheirWay(code, file.text);
  }
  return null;
}

/**
 * Switch language; one whose table is a pack not here yet is fetched
 * first, one whose run for the scenario on screen is on its way from the
 * worker is waited for, and one whose run the module keeps as bytes is
 * read back first (only the latest switch asked for goes ahead). A pack
 * that cannot be fetched is a notice in the element; the language stays.
 * @param {Host} el
 * @param {string} code
 * @param {boolean} [reading]  the module refused it already: its run is being read back
 */
export function setLang(el, code, reading = false) {
  const ticket = ++el._langTicket;
  const latest = () => ticket === el._langTicket && !!el._pg;
  const coming = reading ? readBack() : runComing(el, code);
  if (coming) then(busyUntil(el, coming), () => later(el, code, latest));
  else switchTo(el, code, latest);
}

/**
 * The switch made after a wait: what refuses it then is said in the
 * console (the caller has gone).
 * @param {Host} el
 * @param {string} code
 * @param {() => boolean} latest
 */
function later(el, code, latest) {
  try {
    if (latest()) switchTo(el, code, latest);
  } catch (why) {
    console.warn(`agent-loop-playground: lang=${code}: ${messageOf(why)}`);
  }
}

/**
 * @param {Host} el
 * @param {string} code
 * @param {() => boolean} latest  whether this switch is still the one asked for
 */
function switchTo(el, code, latest) {
  try {
    el._call("setLang", code);
  } catch (error) {
    if (isReading(error)) return void then(busyUntil(el, readBack()), () => later(el, code, latest));
    if (!isPackNeeded(error)) throw error;
    const shown = then(withPack(el, error.pack), () => latest() && el._call("setLang", code));
    then(shown, undefined, (/** @type {{pack?: string}} */ why) => why.pack || console.warn(`agent-loop-playground: lang=${code}: ${messageOf(why)}`));
  }
}

/**
 * The playground's own picker and language buttons, whose choice the
 * session refused for now: `alp-pack` (a program's pack or a language's
 * table to fetch first) or `alp-read` (a run to read back first); the
 * element does it, then shows the choice. A pick or a language button
 * is the latest choice (one still waiting does not come after it), and a
 * language button whose run is on its way from the worker is taken here:
 * the switch waits for it rather than the page record the file meanwhile.
 * @param {Host} el
 * @param {ShadowRoot} root
 */
export function listenForShows(el, root) {
  listen(root, "change", (/** @type {Event} */ event) => {
    const target = /** @type {Element | null} */ (event.target);
    if (target && typeof target.matches === "function" && target.matches(".alp-select")) el._packTicket++;
  }, { capture: true });
  listen(root, "click", (/** @type {Event} */ event) => {
    const target = /** @type {Element | null} */ (event.target);
    const button = target && typeof target.closest === "function" ? target.closest("[data-lang]") : null;
    if (!button) return;
    el._langTicket++;
    const code = button.getAttribute("data-lang") || "";
    if (code && code !== el._pg?.state()?.lang && runComing(el, code)) {
      event.stopPropagation();
      setLang(el, code);
    }
  }, { capture: true });
  // (after the pick's own update, which is running; unless another choice
  // came in the same task)
  const after = (/** @type {string} */ lang, /** @type {() => void} */ go) => {
    const ticket = lang ? el._langTicket : el._packTicket;
    queueMicrotask(() => ticket === (lang ? el._langTicket : el._packTicket) && go());
  };
  listen(root, "alp-pack", (/** @type {Event} */ event) => {
    const { pack, scenario, lang } = /** @type {CustomEvent} */ (event).detail || {};
    // (one that cannot be fetched is a notice in the element, said in the console too)
    after(lang, () => (lang ? setLang(el, lang) : then(showAfterPack(el, pack, () => el._call("load", scenario)), undefined, () => {})));
  });
  listen(root, "alp-read", (/** @type {Event} */ event) => {
    const { scenario, lang } = /** @type {CustomEvent} */ (event).detail || {};
    // (its reading has started: read on, then shown)
    after(lang, () => (lang ? setLang(el, lang, true) : then(showAfter(el, readBack(), () => load(el, scenario)), undefined, () => {})));
  });
}

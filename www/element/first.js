// @ts-check
// The first view a page may carry inside the element (agent-loop-cli
// first-view): a declarative shadow root the browser paints with the page,
// before any module has loaded (hidden until its stylesheet shows it, inert
// until element.js runs). It has a box for each range of widths it was made
// for (wide, narrow, …), each shown only at those widths. It stays while the
// module loads only if it was made for the element's attributes and
// language; otherwise it goes as soon as element.js runs (which may be after
// the page's first paint). The playground's first draw replaces the box on
// screen in the same task, so nothing blank is painted between the two.
// Meanwhile its commands, line numbers, language and listing buttons take
// clicks, and it takes the playground's keys: each is made again on the
// playground once it is ready (the rest stays inert: what it would change
// is not shown yet).
import { ATTRIBUTES } from "./attributes.js";
import { elementSheet } from "./style.js";
import { langWanted } from "./languages.js";
import {
  AbortController, dispatchEvent, includes, listen, push, replace, replaceInFragment, split, splice, stringify, toLowerCase,
} from "./builtins.js";

/**
 * A waiting first view's clicks (their buttons' twins, in order), the
 * button that has the focus, and what stops its listeners.
 * @typedef {{clicks: Kept[], focused: string, stop: AbortController}} Waiting
 */

/**
 * A click kept (on the button `twin` finds), or a key (on it, or on the box).
 * @typedef {{twin: string, key?: string, shift?: boolean}} Kept
 */

/**
 * The buttons of a waiting first view whose clicks are made again once the
 * playground is ready, each with the attributes that find its twin there.
 * @type {[string, string[]][]}
 */
const WAITING = [
  ["button[data-command]", ["data-command"]],
  ["button.alp-bp", ["data-function", "data-line"]],
  ["button.alp-lang", ["data-lang"]],
  ["button.alp-listing", ["data-listing"]],
  ["button.alp-view", ["data-view"]],
];

/** What a waiting first view may not be used for: inert until the playground is ready. */
const STILL = "select, input, textarea, details, .alp-figure, .alp-predict-panel, .alp-beside, .alp-compare, .alp-problems";

/**
 * The selector of a button a waiting view takes clicks on (its kind and the
 * attributes that tell it from the others), or "" for any other target.
 * @param {EventTarget | null} target
 */
function twinOf(target) {
  const button = target instanceof Element ? target.closest("button") : null;
  if (!button) return "";
  for (let i = 0; i < WAITING.length; i++) {
    const [kind, keys] = WAITING[i];
    if (!button.matches(kind)) continue;
    let selector = kind;
    for (let k = 0; k < keys.length; k++) {
      const value = button.getAttribute(keys[k]) || "";
      selector += `[${keys[k]}="${replace(replace(value, /\\/g, "\\\\"), /"/g, '\\"')}"]`;
    }
    return selector;
  }
  return "";
}

/**
 * The keys a ready playground takes for itself (src/events.rs, on_key: a
 * step, back, continue; between line numbers): a waiting view keeps them
 * too, so that the host page (an mdBook's ← → turn the chapter) never has
 * them. Enter and Space on a button are its click.
 */
const KEYS = ["F8", "F10", "F11", "ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp", "Home", "End"];

/**
 * While its module loads, a kept first view takes clicks on its buttons
 * (Enter or Space on one is a click) and the playground's keys: each is
 * kept, in order, for `replayClicks` once the playground is ready, and the
 * view shows it is busy (at most 50).
 * @param {HTMLElement & {_waiting?: Waiting}} host
 */
export function waitForClicks(host) {
  const shadow = host.shadowRoot;
  if (!shadow || host._waiting) return;
  // (its listeners go when the playground takes the view over: takeOver)
  const stop = new AbortController();
  const waiting = (host._waiting = { clicks: /** @type {Kept[]} */ ([]), focused: "", stop });
  const signal = stop.signal;
  const boxes = shadow.querySelectorAll(".alp-root[data-first]");
  for (let i = 0; i < boxes.length; i++) {
    const box = boxes[i];
    const still = box.querySelectorAll(STILL);
    for (let k = 0; k < still.length; k++) still[k].setAttribute("inert", "");
    box.removeAttribute("inert");
    /** @param {Event} event @param {Kept | null} kept */
    const keep = (event, kept) => {
      if (!box.hasAttribute("data-first")) return; // (taken over: the playground's own)
      event.preventDefault();
      if (!kept || waiting.clicks.length >= 50) return;
      push(waiting.clicks, kept);
      box.setAttribute("aria-busy", "true");
    };
    listen(box, "click", (/** @type {Event} */ event) => {
      const twin = twinOf(event.target);
      keep(event, twin ? { twin } : null);
    }, { signal });
    listen(box, "keydown", (/** @type {KeyboardEvent} */ event) => {
      if (!includes(KEYS, event.key) || !box.hasAttribute("data-first")) return;
      event.stopPropagation();
      keep(event, { twin: twinOf(event.target), key: event.key, shift: event.shiftKey });
    }, { signal });
    listen(box, "focusin", (/** @type {Event} */ event) => void (waiting.focused = twinOf(event.target)), { signal });
    // (focus gone elsewhere on the page; gone nowhere, as when the view is
    // drawn over, it is given back)
    listen(box, "focusout", (/** @type {FocusEvent} */ event) => void (event.relatedTarget && (waiting.focused = "")), { signal });
  }
}

/**
 * The playground is ready where a first view waited: the clicks and keys it
 * took are made on their twins, in order, and the button that had the
 * focus has it again (where the page is: it is not scrolled to).
 * @param {HTMLElement & {_waiting?: Waiting}} host
 */
export function replayClicks(host) {
  const waiting = host._waiting;
  host._waiting = undefined;
  const box = host.shadowRoot ? host.shadowRoot.querySelector(".alp-root") : null;
  if (!waiting || !box || box.hasAttribute("data-first")) return;
  for (let i = 0; i < waiting.clicks.length; i++) {
    const { twin, key, shift } = waiting.clicks[i];
    const target = /** @type {HTMLElement | null} */ (twin ? box.querySelector(twin) : box);
    if (!target) continue;
    if (key === undefined) target.click();
    else dispatchEvent(target, new KeyboardEvent("keydown", { key, shiftKey: shift, bubbles: true, cancelable: true }));
  }
  const focused = waiting.focused ? /** @type {HTMLElement | null} */ (box.querySelector(waiting.focused)) : null;
  const lost = !document.activeElement || document.activeElement === document.body;
  if (focused && lost) focused.focus({ preventScroll: true });
}

/**
 * Whether `host` still shows a first view (its playground not built yet).
 * @param {HTMLElement} host
 */
export function hasFirstView(host) {
  return firstView(host) !== null;
}

/**
 * The first view's first box in `host`'s shadow root, if it has one.
 * @param {HTMLElement} host
 * @returns {Element | null}
 */
function firstView(host) {
  return host.shadowRoot ? host.shadowRoot.querySelector(".alp-root[data-first]") : null;
}

/**
 * The element's attributes as the first view names those it was made for
 * (`data-for`): `[name, value]` of each attribute of the table present,
 * by name.
 * @param {HTMLElement} host
 */
export function attributesOf(host) {
  /** @type {[string, string][]} */
  const given = [];
  for (let i = 0; i < ATTRIBUTES.length; i++) {
    const name = ATTRIBUTES[i].name;
    const value = host.getAttribute(name);
    if (value === null) continue;
    let at = given.length;
    while (at > 0 && given[at - 1][0] > name) at--;
    splice(given, at, 0, [name, value]);
  }
  return given;
}

/**
 * Drop the first view unless it was made for the element as it is now:
 * the same attributes, in the language the element speaks.
 * @param {HTMLElement} host
 */
export function keepFirstView(host) {
  const box = firstView(host);
  if (!box || !host.shadowRoot) return;
  const code = (/** @type {string} */ tag) => split(replace(toLowerCase(tag), "_", "-"), "-")[0];
  const [madeFor, madeIn] = [box.getAttribute("data-for") || "", code(box.getAttribute("lang") || "")];
  const [now, lang] = [stringify(attributesOf(host)), code(langWanted(host, null))];
  // (kept: its buttons' clicks are made again once the playground is ready)
  if (madeFor === now && madeIn === lang) return waitForClicks(host);
  // (for the author, who may not see why it went: the two, as they differ)
  console.warn(`agent-loop-playground: its first view was made for ${madeFor} in ${madeIn}, not for ${now} in ${lang}: ` +
    "it is not shown (agent-loop-cli first-view writes one for these attributes)");
  // (emptied, with the element's stylesheet: as the root it makes itself)
  host.shadowRoot.adoptedStyleSheets = [elementSheet()];
  replaceInFragment(host.shadowRoot);
}

/**
 * Of a first view's boxes, only the one on screen at the element's width
 * stays: the playground draws into it (so that its scroll to a step's
 * line is seen). None on screen (a width none was made for, its
 * stylesheet missing): none stays, and the element draws its own view.
 * @param {HTMLElement} host
 */
export function keepShownBox(host) {
  const shadow = host.shadowRoot;
  const boxes = shadow ? shadow.querySelectorAll(".alp-root[data-first]") : [];
  if (!shadow || !boxes.length) return;
  let shown = null;
  for (let i = 0; i < boxes.length; i++) if (!shown && boxes[i].checkVisibility()) shown = boxes[i];
  for (let i = 0; i < boxes.length; i++) if (boxes[i] !== shown) boxes[i].remove();
  if (shown) return;
  // (as the root it makes itself: the element's stylesheet, no link)
  shadow.adoptedStyleSheets = [elementSheet()];
  const links = shadow.querySelectorAll("link");
  for (let i = 0; i < links.length; i++) links[i].remove();
}

/**
 * The playground has drawn into `host`'s container (or says there why it
 * could not start), in this task: a first view's box on screen was that
 * container (keepShownBox), and any other goes. Its own stylesheet gives way to the
 * element's, and it is no longer marked as one (shown at any width,
 * answering clicks and keys).
 * @param {HTMLElement & {_waiting?: Waiting}} host
 */
export function takeOver(host) {
  const box = firstView(host);
  const shadow = host.shadowRoot;
  if (!box || !shadow) return;
  try {
    if (host._waiting) host._waiting.stop.abort();
  } catch {
    // (a page that broke abort(): the listeners stay, and leave the playground's clicks alone)
  }
  shadow.adoptedStyleSheets = [elementSheet()];
  const gone = shadow.querySelectorAll("link, .alp-root[data-first]");
  for (let i = 0; i < gone.length; i++) if (gone[i] !== box) gone[i].remove();
  box.removeAttribute("data-first");
  box.removeAttribute("data-for");
  box.removeAttribute("hidden");
  box.removeAttribute("inert");
  box.removeAttribute("aria-busy");
}

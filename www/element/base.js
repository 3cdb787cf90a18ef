// @ts-check
// The element's state and its life in the page: connected, moved, removed.
// What it does then is in the modules beside this one: opening.js
// (connecting, building the playground), keeper.js (every call into it; a
// new one where a dead one was), place.js (the learner's place kept across
// a navigation), theme.js. playground.js adds its attributes and its API.
import {
  TypeError, append, attachShadow, createElement, queueMicrotask, replaceChildren, replaceInFragment, setTimeout, test, trim,
} from "./builtins.js";
import { call, revive } from "./keeper.js";
import { langWanted } from "./languages.js";
import { open, rebuild } from "./opening.js";
import { takeOver } from "./first.js";
import { keepPlace } from "./place.js";
import { elementSheet } from "./style.js";
import { followPage, schemeOfPage } from "./theme.js";
import { say } from "./words.js";

/** @typedef {import("./agent-loop-playground.js").Playground} Playground */
/** @typedef {import("./agent-loop-playground.js").Method} Method */
/** @typedef {import("../element.js").ModelCallback} ModelCallback */
/** @typedef {import("../element.js").ProcessCallback} ProcessCallback */
/** @template {Function} F @typedef {import("./crossing.js").Wrapped<F>} Wrapped */

export class PlaygroundElement extends HTMLElement {
  constructor() {
    super();
    /** The playground (the wasm handle) once it is built. @type {Playground | null} */
    this._pg = null;
    /** @type {Wrapped<ModelCallback> | null} */
    this._model = null;
    /** @type {Wrapped<ProcessCallback> | null} */
    this._process = null;
    this._generation = 0; // bumped when it leaves the page: a start still waiting gives up
    this._srcGeneration = 0; // the last src= value wins: older arrivals are dropped
    // Calls into the playground and DOM events inside it now running: when
    // none is and the playground still says it is busy, an error in the page
    // unwound through it and left it so (keeper.js).
    this._calls = 0;
    this._events = 0;
    // (lists, not Sets: an element is made before anything is known of
    // what the page broke, and must be made whatever it broke)
    /** Attributes set while it was busy, each once. @type {string[]} */
    this._deferred = [];
    /** el.model / el.process set from inside a callback, not given to the playground yet. @type {("_model" | "_process")[]} */
    this._pendingDoubles = [];
    // (one of those being given to it now: a setting made meanwhile is kept, not applied)
    this._applyingDouble = false;
    /** src= files that arrived. @type {import("./fetching.js").FetchedFile[]} */
    this._files = [];
    /** Scenarios given to addScenario (both kept for a restart). @type {string[]} */
    this._added = [];
    /** @type {import("./fetching.js").FetchedListing[]} */
    this._listings = [];
    /** The pack of program-src, as fetched (null: none). @type {import("./fetching.js").FetchedFile | null} */
    this._program = null;
    this._packTicket = 0; // the latest request to show a scenario whose pack is loading
    this._langTicket = 0; // the same for a language
    this._waits = 0; // what it shows waits for meanwhile (a run read back): dimmed until none
    /** The src= value whose files are fetched. @type {string | null} */
    this._src = null;
    /** Where its place is kept, under which attributes, on which scenario. @type {string | null} */
    this._placeKey = null;
    this._placeAttrs = "";
    /** @type {string | undefined} */
    this._placeScenario = undefined;
    this._compact = false;
    /** A playground that died: where it was and what killed it. @type {{place: import("./place.js").LastPlace | null, restarted: string} | null} */
    this._lost = null;
    /** @type {ResizeObserver | null} */
    this._resize = null;
    this._resizeFrame = 0;
    this._watching = false;
    this._flushing = false;
  }

  connectedCallback() {
    return open(this);
  }

  // Freed only if it is still out of the page after this task: moving an
  // element (appendChild elsewhere) keeps its trace and state, and a
  // callback that removes its own element is not cut off mid-recording.
  disconnectedCallback() {
    this._generation += this._pg ? 0 : 1; // cancels a start still waiting for the module
    try {
      if (!this._pg) return followPage(this, false);
      // Written now: an element that replaces this one in the same task reads it.
      keepPlace(this._placeKey, this._placeAttrs, this._placeScenario, this._pg.state());
    } catch {
      // (a page that broke what this reads: nothing kept, nothing thrown at it)
    }
    if (!this._pg) return;
    setTimeout(() => {
      if (this.isConnected || !this._pg) return;
      followPage(this, false);
      this._generation++;
      this._resize?.disconnect();
      this._pg.free(); // removes its listeners and clears the element
      this._pg = null;
    }, 0);
  }

  /**
   * height="320" or "20rem": the tallest the code and figure panels grow
   * before they scroll. Set through the CSSOM, which the page's CSP allows.
   * @param {string | null} value
   */
  _applyHeight(value) {
    const given = value ? trim(value) : "";
    const valid = given && test(/^\d+(\.\d+)?(px|rem|em|vh)?$/, given);
    if (valid) this.style.setProperty("--alp-panel-height", test(/\d$/, given) ? `${given}px` : given);
    else this.style.removeProperty("--alp-panel-height");
  }

  // The page's color-scheme, unless theme="light|dark" says otherwise.
  _followScheme() {
    const box = /** @type {HTMLElement | null | undefined} */ (this.shadowRoot?.querySelector(".alp-root"));
    if (!box) return;
    const scheme = schemeOfPage();
    if (scheme) box.dataset.scheme = scheme;
    else delete box.dataset.scheme;
  }

  /** The shadow root's container of the playground (made on first use, with the stylesheet). */
  _container() {
    return containerOf(this);
  }

  /**
   * The element's width inside its padding and border: the width its
   * container queries see (element.css), and so the one the playground's
   * layout and a first view's boxes go by.
   */
  _width() {
    const style = getComputedStyle(this);
    const sides = ["paddingLeft", "paddingRight", "borderLeftWidth", "borderRightWidth"];
    let width = this.getBoundingClientRect().width;
    for (let i = 0; i < sides.length; i++) width -= parseFloat(style[/** @type {any} */ (sides[i])]) || 0;
    return width > 0 ? width : 0;
  }

  /**
   * A word of the element's own (words.js) in the reader's language.
   * @param {string} key
   * @param {Record<string, string>} [values]
   */
  _words(key, values) {
    return say(langWanted(this, null), key, values);
  }

  /**
   * The element says it could not start (or, `stopped`, that its module
   * stopped): failIn.
   * @param {string} detail
   * @param {boolean} [stopped]
   */
  _fail(detail, stopped = false) {
    failIn(this, detail, stopped);
  }

  /** The playground, started again first if it died. */
  _need() {
    if (this._pg && this._dead()) revive(this, "");
    if (!this._pg && this._lost) this._rebuild();
    if (!this._pg && this._lost) throw new Error("agent-loop-playground could not be started again (the element says why)");
    if (!this._pg) throw new Error("agent-loop-playground is not ready yet (wait for playground-ready)");
    return this._pg;
  }

  /**
   * Every call into the playground (keeper.js).
   * @template {Method} K
   * @param {K} name
   * @param {Parameters<Playground[K]>} args
   */
  _call(name, ...args) {
    return call(this, name, args);
  }

  // Busy with nothing of ours running: an error in the page unwound through
  // the playground and left it borrowed for good.
  _dead() {
    return this._calls === 0 && this._events === 0 && !!this._pg?.isBusy();
  }

  // A new playground where a dead one was (opening.js).
  _rebuild() {
    rebuild(this);
  }

  // The picker is drawn once for a run of addScenario calls, when the
  // script that made them is done.
  _flushSoon() {
    if (this._flushing) return;
    this._flushing = true;
    queueMicrotask(() => {
      this._flushing = false;
      if (this._pg && !this._dead()) this._call("flush");
    });
  }

  /** Where the learner is and how the run ends (null before it is ready). */
  state() {
    if ((this._pg && this._dead()) || this._lost) {
      try {
        this._need();
      } catch {}
    }
    return this._pg ? this._pg.state() : null;
  }
}

/**
 * An element's container of the playground, in its shadow root (both made
 * on first use, the root with the stylesheet). Any element of the name
 * has one: element.js says in those it could not define why.
 * @param {HTMLElement} host
 */
function containerOf(host) {
  let shadow = host.shadowRoot;
  if (!shadow) {
    shadow = /** @type {ShadowRoot} */ (attachShadow(host, { mode: "open" }));
    shadow.adoptedStyleSheets = [elementSheet()];
  } else if (!shadow.adoptedStyleSheets.length && !shadow.querySelector("[data-first]")) {
    // (a declarative root the page emptied, or one a first view left: the sheet)
    shadow.adoptedStyleSheets = [elementSheet()];
  }
  let box = /** @type {HTMLElement | null} */ (shadow.querySelector(".alp-root"));
  if (!box) {
    box = /** @type {HTMLElement} */ (createElement(document, "div"));
    box.className = "alp-root";
    append(shadow, box);
  }
  return box;
}

/**
 * Says in `host` that the playground could not start on this page (or,
 * `stopped`, that its module stopped), in the reader's language, as an
 * alert in its container: `detail` says what failed. Where the page broke
 * even that, in the shadow root, else inside the element itself; never
 * outside it.
 * @param {HTMLElement} host
 * @param {string} detail
 * @param {boolean} [stopped]
 */
export function failIn(host, detail, stopped = false) {
  let lang = "";
  try {
    lang = langWanted(host, null);
  } catch {}
  const text = say(lang, stopped ? "crash_stopped" : "crash_start", { detail });
  /** @param {() => HTMLElement} make */
  const made = (make) => {
    try {
      const box = make();
      box.className = "alp-crash";
      box.setAttribute("role", "alert");
      box.textContent = text;
      return box;
    } catch {
      return null;
    }
  };
  // (a first view the page carried is what it replaces)
  try {
    takeOver(host);
  } catch {}
  // (the kept built-ins first; the page's own of now where those are what it broke)
  const box = made(() => createElement(document, "p")) || made(() => document.createElement("p"));
  const need = () => {
    if (!box) throw new TypeError("no box");
    return box;
  };
  /** @type {(() => unknown)[]} */
  const ways = [
    () => replaceChildren(containerOf(host), need()),
    () => replaceInFragment(host.shadowRoot, need()),
    () => (host.shadowRoot || host.attachShadow({ mode: "open" })).replaceChildren(need()),
    () => host.replaceChildren(need()),
    () => (host.textContent = text),
  ];
  for (let i = 0; i < ways.length; i++) {
    try {
      ways[i]();
      return;
    } catch {}
  }
}

// <agent-loop-playground> — one script tag, then as many elements as you like.
//
//   <script type="module" src="…/element.js"></script>
//   <agent-loop-playground function="run_loop" scenario="report" lang="zh"
//       breakpoints="loop.ask,loop.save_results"></agent-loop-playground>
//
// Attributes: function, scenario, lang (zh|en), breakpoints (labels,
// line numbers or function:line), controls (e.g. "debug,step,continue,reset"),
// listing (python, the default, or rust), src (scenario files to fetch from
// this site, space-separated; fetch-timeout: seconds or "500ms", default 10,
// for each file), listing-src / listing-src-zh / listing-src-en
// (an author's own Python listing on this site, read once when the element
// connects; docs/listing-format.md), theme (auto, light, dark), heading-level (1–6:
// panel titles become headings of that level; default: not headings),
// predict (present: ask before the lines that carry a question), step (a
// step number or a label to start at),
// height (max panel height, e.g. "320" or "20rem"), compact, keep-place
// ("off": a client-side navigation back starts afresh), time-budget
// (seconds or "500ms"; default 2) and memory-budget (MB; default 256): how
// long and how large one recording may grow before it is stopped. Each element owns its own trace, breakpoints and listeners; removing
// it from the page frees them.
//
// API: el.state(), el.command(name), el.toggleBreakpoint(function, line|label),
// el.load(scenarioId), el.addScenario(json), el.model = fn, el.process = fn,
// el.lang = "en", el.predict = true, el.answer(i), el.tryAgain(),
// el.whatIf({model, process} | null). Events: "playground-step" (detail =
// state) after every move; "playground-answer" after every answer;
// "playground-ready" once the wasm is loaded.

import init, { Playground } from "./agent-loop-playground.js";
import { fixtureDoubles } from "./doubles.js";
// The stylesheet as a module (www/element.css, turned into element-style.js
// by the build): nothing to fetch, nothing a bundler emits as a .css file.
import elementStyle from "./element-style.js";

// The module is found next to this file, written as the literal
// `new URL("./file", import.meta.url)` that bundlers (Vite, webpack 5,
// Rollup, Parcel) recognise: a bundled build emits it with a hashed name and
// rewrites this line to find it.
let ready = null;
function loadWasm() {
  if (!ready) {
    performance.mark("alp:wasm-start");
    ready = init({ module_or_path: new URL("./agent-loop-playground_bg.wasm", import.meta.url) }).then((wasm) => {
      performance.mark("alp:wasm-ready");
      return wasm;
    });
  }
  return ready;
}

// ---- Texts that are not in the module (core/src/pack.rs): lesson two's
// listings and setup are fetched the first time one of its scenarios is
// shown, and a language's table other than the default's (Chinese) the
// first time it is shown (at once, beside the module, when the element
// opens in it); once for the whole page. Each URL is written as the
// literal bundlers recognise, so that a bundled build emits the file too.
const LANGUAGE_PACKS = {
  en: () => new URL("./data/en.json", import.meta.url),
};
const PACKS = {
  lesson_two: () => new URL("./data/lesson_two.json", import.meta.url),
  ...LANGUAGE_PACKS,
};
/** The pack of a language code's table (`en-GB` → `en`), if it is one. */
const languagePack = (code) => {
  const base = String(code || "").trim().toLowerCase().split(/[-_]/)[0];
  return Object.hasOwn(LANGUAGE_PACKS, base) ? base : null;
};
const packs = new Map(); // name → Promise of the pack's name, while it loads or once it is in
const isPackNeeded = (error) => !!error && error.name === "PackNeeded" && typeof error.pack === "string";
/** Loads a pack (once for the page); rejects with `{file, detail}`. */
function loadPack(name) {
  if (!packs.has(name)) {
    const url = PACKS[name] ? PACKS[name]() : null;
    const file = url ? url.pathname.split("/").pop() : `${name}.json`;
    const loading = (async () => {
      try {
        if (!url) throw new Error("unknown pack");
        // (a server that stalls is given up on, as a src= file is)
        const response = await fetch(url, { credentials: "same-origin", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
        if (!response.ok) throw new Error(`${response.status} ${response.statusText}`.trim());
        const body = await response.text();
        await loadWasm();
        return Playground.addPack(body);
      } catch (error) {
        throw { pack: name, file, detail: String(error && error.message ? error.message : error) };
      }
    })();
    // (a failed fetch is tried again next time)
    loading.catch(() => packs.delete(name));
    packs.set(name, loading);
  }
  return packs.get(name);
}

// The element's stylesheet, one for every element, adopted by each shadow
// root: the host page's styles and the playground's never meet.
let sheet = null;
function elementSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(elementStyle);
  }
  return sheet;
}

// ---- src="lessons/a.json lessons/b.json": scenario files fetched at run time.
const MAX_FILE_BYTES = 4 * 1024 * 1024;
// How long one file may take (fetch-timeout="…"), and how long a playground
// whose module is ready waits for its files before it is built without them
// (they are added when they arrive).
const FETCH_TIMEOUT_MS = 10000;
const FILES_GRACE_MS = 300;
const LANG_GRACE_MS = 1000;

/** fetch-timeout="10" (seconds), "2.5s" or "500ms"; anything else: the default, said once. */
function fetchTimeoutOf(el) {
  const value = (el.getAttribute("fetch-timeout") || "").trim();
  if (!value) return FETCH_TIMEOUT_MS;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/.exec(value);
  const ms = m ? Number(m[1]) * (m[2] === "ms" ? 1 : 1000) : NaN;
  if (ms > 0 && ms <= 600000) return ms;
  console.warn(`agent-loop-playground: fetch-timeout="${value}" is not a time from 1ms to 600s (say "10", "2.5s" or "500ms"); using 10 s`);
  return FETCH_TIMEOUT_MS;
}

/** The body as text, stopping at MAX_FILE_BYTES bytes (not characters): null when over. */
async function boundedText(response) {
  const declared = Number(response.headers.get("content-length"));
  if (declared > MAX_FILE_BYTES) {
    response.body?.cancel().catch(() => {});
    return null;
  }
  if (!response.body) return response.text();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > MAX_FILE_BYTES) {
      reader.cancel().catch(() => {});
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** Fetch one scenario file: `{name, text}` or `{name, error, detail}` (error:
 *  url, origin, redirect, status, size, timeout or network; the element
 *  words it), never a throw. A redirect is not followed: it could lead to
 *  another site, and only this page's own site is ever asked. */
async function fetchScenario(name, timeoutMs = FETCH_TIMEOUT_MS) {
  let url;
  try {
    url = new URL(name, document.baseURI);
  } catch {
    return { name, error: "url", detail: "" };
  }
  if (url.origin !== location.origin) {
    return { name, error: "origin", detail: url.origin };
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await fetch(url, { credentials: "same-origin", redirect: "manual", signal: abort.signal });
    if (response.type === "opaqueredirect") return { name, error: "redirect", detail: "" };
    if (!response.ok) return { name, error: "status", detail: `${response.status} ${response.statusText}`.trim() };
    const text = await boundedText(response);
    if (text === null) return { name, error: "size", detail: String(MAX_FILE_BYTES / 1048576) };
    return { name, text };
  } catch (error) {
    if (abort.signal.aborted) return { name, error: "timeout", detail: String(timeoutMs / 1000) };
    return { name, error: "network", detail: String(error && error.message ? error.message : error) };
  } finally {
    clearTimeout(timer);
  }
}

/** The files of a src= value, each fetched on its own: `{promise, file}`
 *  (file is set when it has arrived). */
function fetchScenarios(src, timeoutMs) {
  const names = (src || "").split(/\s+/).filter(Boolean);
  return names.map((name) => {
    const pending = { file: null };
    pending.promise = fetchScenario(name, timeoutMs).then((file) => (pending.file = file));
    return pending;
  });
}

// listing-src (any language), listing-src-zh, listing-src-en: an author's
// own listings, fetched like scenario files and checked by the playground.
async function fetchListings(el, timeoutMs) {
  const wanted = [["", "listing-src"], ["zh", "listing-src-zh"], ["en", "listing-src-en"]]
    .map(([lang, attr]) => [lang, (el.getAttribute(attr) || "").trim()])
    .filter(([, name]) => name);
  return Promise.all(wanted.map(async ([lang, name]) => ({ ...(await fetchScenario(name, timeoutMs)), lang })));
}

// ---- theme: follows the host page's declared color-scheme (an mdBook theme,
// a dark course site), else the reader's system; theme="light|dark" wins.
const following = new Set();
let observer = null;
// Read once per change of the page (reading a computed style costs a style
// pass over the whole page, playgrounds included): cached until <html> or
// <body> changes.
let pageScheme = null;
function schemeOfPage() {
  if (pageScheme === null) {
    const from = document.body || document.documentElement;
    const words = (getComputedStyle(from).colorScheme || "normal").split(/\s+/);
    pageScheme = words.includes("dark") && !words.includes("light") ? "dark"
      : words.includes("light") && !words.includes("dark") ? "light" : "";
  }
  return pageScheme;
}
function followPage(el, on) {
  if (on) following.add(el);
  else following.delete(el);
  if (following.size && !observer) {
    // Course sites switch themes with a class or attribute on <html> or <body>.
    observer = new MutationObserver(() => {
      pageScheme = null;
      following.forEach((e) => e._followScheme());
    });
    const watch = { attributes: true, attributeFilter: ["class", "style", "data-theme", "data-color-scheme"] };
    observer.observe(document.documentElement, watch);
    if (document.body) observer.observe(document.body, watch);
  } else if (!following.size && observer) {
    observer.disconnect();
    observer = null;
  }
}

// ---- The learner's place, kept across a course site's client-side
// navigation: an element that leaves the page writes its step, breakpoints
// and listing to sessionStorage (this tab only), keyed by the page's path
// and the element (its id, else its place among the page's playgrounds);
// one that connects under the same key with the same function and scenario
// attributes, still on its own scenario, takes it back (and the entry is
// removed: a reload starts afresh). keep-place="off" opts out.
const PLACE = "agent-loop-playground:place:";
function placeKey(el) {
  if (el.getAttribute("keep-place") === "off") return null;
  const all = [...document.querySelectorAll("agent-loop-playground")];
  // (/lesson, /lesson/, /lesson/index.html are one page; /a.html and /a too)
  const page = location.pathname.replace(/(\/index)?(\.html?)?$/, "").replace(/\/$/, "") || "/";
  return `${PLACE}${page}#${el.id ? `id:${el.id}` : `n:${all.indexOf(el)}`}`;
}
function attrsOf(el) {
  return `${el.getAttribute("function") || ""}|${el.getAttribute("program") || ""}|${el.getAttribute("scenario") || ""}`;
}
// The stored place, if it is one this element can take (`peek`: left in
// storage); never a throw (storage can be disabled, full or hold anything).
function takePlace(key, attrs, peek = false) {
  if (!key) return null;
  let place = null;
  try {
    place = JSON.parse(sessionStorage.getItem(key) || "null");
    if (!peek) sessionStorage.removeItem(key);
  } catch {
    return null;
  }
  const ok = place && typeof place === "object" && place.attrs === attrs
    && (place.step === null || (Number.isInteger(place.step) && place.step >= 0))
    && Array.isArray(place.breakpoints) && place.breakpoints.every((b) => typeof b === "string" && /^[a-z_]+:\d+$/.test(b))
    && (place.listing === "python" || place.listing === "rust");
  return ok ? place : null;
}
function forgetPlace(el) {
  try {
    if (el._placeKey) sessionStorage.removeItem(el._placeKey);
  } catch {}
}
function keepPlace(el) {
  const state = el._pg && el._pg.state();
  // Only on the element's own scenario (a picked one may not be there again).
  if (!el._placeKey || !state || state.scenario !== el._placeScenario) {
    forgetPlace(el);
    return;
  }
  const place = {
    attrs: el._placeAttrs,
    // An edited version opens again as the lesson's run: from its start.
    step: state.started && !state.whatIf ? state.step : null,
    breakpoints: state.breakpoints.map((b) => `${b.function}:${b.line}`),
    listing: state.listing,
  };
  try {
    sessionStorage.setItem(el._placeKey, JSON.stringify(place));
  } catch {}
}

// Callbacks must be synchronous: the loop is recorded in one go. An async
// function is refused when it is assigned; a function that returns a
// Promise anyway is treated as one that throws (model_error, or a
// "cannot start" tool result), and its Promise is never left unhandled.
function synchronous(fn, what) {
  if (fn === null || fn === undefined) return null;
  const refuse = (message) => {
    console.error(`agent-loop-playground: ${message}`);
    throw new TypeError(message);
  };
  if (typeof fn !== "function") refuse(`el.${what} must be a function or null`);
  const kind = Object.getPrototypeOf(fn)?.constructor?.name;
  if (kind === "AsyncFunction" || kind === "AsyncGeneratorFunction") {
    refuse(`el.${what} must be synchronous; an async function returns a Promise, and the playground records the whole loop at once`);
  }
  const wrapped = function (...args) {
    let result;
    try {
      result = fn.apply(this, args);
    } catch (error) {
      throw clipped(error);
    }
    if (result !== null && (typeof result === "object" || typeof result === "function") && typeof result.then === "function") {
      Promise.resolve(result).catch(() => {});
      throw new TypeError(`the ${what} callback returned a Promise; callbacks must be synchronous`);
    }
    return bounded(result, `what the ${what} callback returned`);
  };
  wrapped.original = fn;
  return wrapped;
}

// What one value may hold when it crosses into the wasm module (a
// callback's reply or outcome, a what-if edit, an added scenario): counted
// before it is converted, so that a huge value is refused in milliseconds
// instead of freezing the tab while it is copied. docs/element-api.md.
const CROSSING = { values: 100_000, chars: 8_000_000, thrown: 20_000 };
const { isArray } = Array;
const { isView } = ArrayBuffer;
const Seen = Set;

// (the count is written only when it is said: formatting it for every
// callback reply cost a 10,000-call recording half a second)
const LIMIT_NOUN = { values: "values", chars: "characters" };
function tooBig(what, limit) {
  const counted = `${CROSSING[limit].toLocaleString("en")} ${LIMIT_NOUN[limit]}`;
  return new TypeError(`${what} is too big for the playground: more than ${counted} (docs/element-api.md#limits)`);
}

// Throws (a TypeError naming the limit) when `value` holds more values or
// characters than one crossing takes. Reads what JSON.stringify would read.
function bounded(value, what) {
  let values = 0;
  let chars = 0;
  const stack = [value];
  const seen = new Seen();
  while (stack.length) {
    const v = stack.pop();
    if (++values > CROSSING.values) throw tooBig(what, "values");
    if (typeof v === "string") {
      if ((chars += v.length) > CROSSING.chars) throw tooBig(what, "chars");
      continue;
    }
    if (v === null || typeof v !== "object" || seen.has(v)) continue;
    seen.add(v);
    if (isView(v)) {
      if ((values += v.length ?? v.byteLength) > CROSSING.values) throw tooBig(what, "values");
      continue;
    }
    if (isArray(v)) {
      if (values + v.length > CROSSING.values) throw tooBig(what, "values");
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
      continue;
    }
    let keys = 0;
    for (const k in v) {
      if (values + ++keys > CROSSING.values) throw tooBig(what, "values");
      if ((chars += k.length) > CROSSING.chars) throw tooBig(what, "chars");
      stack.push(v[k]);
    }
  }
  return value;
}

// A thrown value whose message is longer than CROSSING.thrown, cut (the
// rest said in a count); anything else as it was.
function clipped(error) {
  const cut = (s) => `${s.slice(0, CROSSING.thrown)}… (${(s.length - CROSSING.thrown).toLocaleString("en")} more characters)`;
  try {
    if (typeof error === "string") return error.length > CROSSING.thrown ? cut(error) : error;
    const message = error?.message;
    if (typeof message === "string" && message.length > CROSSING.thrown) {
      const name = typeof error.name === "string" ? error.name.slice(0, 200) : "Error";
      return { name, message: cut(message) };
    }
  } catch {}
  return error;
}

// Strings only cross into the wasm module as strings.
function text(value, what) {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string, got ${value === null ? "null" : typeof value}`);
  return value;
}

class AgentLoopPlayground extends HTMLElement {
  static get observedAttributes() {
    return ["scenario", "lang", "height", "listing", "src", "theme", "predict"];
  }

  constructor() {
    super();
    this._pg = null;
    this._model = null;
    this._process = null;
    this._generation = 0;
    this._srcGeneration = 0; // the last src= value wins: older arrivals are dropped
    // Calls into the playground and DOM events inside it now running: when
    // none is and the playground still says it is busy, an error in the page
    // unwound through it and left it so (see _revive).
    this._calls = 0;
    this._events = 0;
    this._deferred = new Set(); // attributes set while it was busy
    this._files = []; // src= files that arrived, and scenarios given to addScenario
    this._added = [];
    this._packTicket = 0; // the latest request to show a scenario whose pack is loading
    this._langTicket = 0; // the same for a language
    this._listings = [];
  }

  // A pack fetched for this element, or said in it when it cannot be (the
  // scenario on screen stays): rejects then, with an Error whose `pack`,
  // `file` and `detail` say which and why. While it loads the playground is
  // marked busy (aria-busy: the stylesheet dims the code and the figure).
  async _withPack(name) {
    const box = this._container();
    box.setAttribute("aria-busy", "true");
    try {
      return await loadPack(name);
    } catch (why) {
      if (this._pg) this._call("packUnavailable", why.file, why.detail, name);
      const error = new Error(`agent-loop-playground: could not load ${why.file} (${why.detail})`);
      throw Object.assign(error, { pack: name, file: why.file, detail: why.detail });
    } finally {
      box.removeAttribute("aria-busy");
    }
  }

  // Show a scenario (`show`) once its pack is in: only the latest such
  // request goes ahead, and only if nothing else was shown meanwhile (a
  // pick or a load made while it loaded wins). Resolves either way.
  _showAfterPack(name, show) {
    const ticket = ++this._packTicket;
    const from = this._pg ? this._pg.state()?.scenario : null;
    return this._withPack(name).then(() => {
      const now = this._pg ? this._pg.state()?.scenario : null;
      if (ticket === this._packTicket && this._pg && now === from) return show();
      return undefined;
    });
  }

  // The shadow root: the element's stylesheet and the playground's container.
  _container() {
    if (!this.shadowRoot) {
      const shadow = this.attachShadow({ mode: "open" });
      shadow.adoptedStyleSheets = [elementSheet()];
    }
    let box = this.shadowRoot.querySelector(".alp-root");
    if (!box) {
      box = document.createElement("div");
      box.className = "alp-root";
      this.shadowRoot.append(box);
    }
    return box;
  }

  async connectedCallback() {
    // Moved in the page (removed and added back in one task): keep everything.
    if (this._pg) {
      forgetPlace(this);
      return;
    }
    const generation = ++this._generation;
    // The module compiles off the main thread while the rest is set up.
    const wasm = loadWasm();
    this._container();
    followPage(this, true);
    this._followScheme();
    // src= files are fetched beside the module; those not there shortly
    // after it (a slow or stalled server) are added when they arrive.
    this._src = this.getAttribute("src");
    const srcGeneration = ++this._srcGeneration;
    const timeoutMs = fetchTimeoutOf(this);
    const pending = fetchScenarios(this._src, timeoutMs);
    // The language's table, when it is a pack: fetched beside the module
    // (after this task's script: a page that sets lang just after adding
    // the element, as the stand-alone page does, is heard).
    // One that fails is said once the playground is built (not asked for again).
    let langFailed = null;
    const langLoading = Promise.resolve().then(() => {
      const code = languagePack(this._langWanted(takePlace(placeKey(this), attrsOf(this), true)));
      return code ? loadPack(code).then(() => null, (why) => { langFailed = why; }) : null;
    });
    let listings = [];
    try {
      [, listings] = await Promise.all([wasm, fetchListings(this, timeoutMs)]);
      await Promise.race([Promise.all([...pending.map((p) => p.promise), langLoading]), new Promise((ok) => setTimeout(ok, FILES_GRACE_MS))]);
      // (a language's table is small: waited for longer, so that a slow
      // server shows the other language only when it is very slow)
      await Promise.race([langLoading, new Promise((ok) => setTimeout(ok, LANG_GRACE_MS))]);
    } catch (error) {
      this._fail(`could not load the WebAssembly module: ${error}`);
      return;
    }
    if (generation !== this._generation || !this.isConnected || this._pg) return;
    // src= changed while the module loaded: the new value's files are fetched instead.
    const srcChanged = this.getAttribute("src") !== this._src;
    const files = srcChanged ? [] : pending.filter((p) => p.file).map((p) => p.file);
    this._applyHeight(this.getAttribute("height"));
    // (read before the playground's markup exists: no layout is forced)
    const width = this.getBoundingClientRect().width;
    // (compact="off" reads as absent)
    const compact = this.hasAttribute("compact") && this.getAttribute("compact") !== "off";
    performance.mark("alp:construct");
    this._placeKey = placeKey(this);
    this._placeAttrs = attrsOf(this);
    this._files = files;
    this._listings = listings;
    this._compact = compact;
    const place = takePlace(this._placeKey, this._placeAttrs);
    let built = this._build(place, { width, compact });
    // The language, or the scenario (a src= file, a listing) asked for, is
    // in a pack. A language's table not here yet (a slow server): the
    // playground opens in Chinese and switches when it comes. A program's:
    // fetched, then built again. One that cannot come is said; the
    // playground opens in Chinese, or on lesson one.
    const without = { withoutPack: false, withoutLang: false };
    const failures = [];
    let lateLang = null;
    for (let tries = 0; built && built.pack && tries < 2; tries++) {
      if (languagePack(built.pack)) {
        without.withoutLang = true;
        if (langFailed) failures.push(langFailed);
        else lateLang = this._langWanted(place);
      } else {
        try {
          await this._withPack(built.pack);
        } catch (error) {
          failures.push(error);
          without.withoutPack = true;
        }
        if (generation !== this._generation || !this.isConnected || this._pg) return;
      }
      built = this._build(place, { width, compact, ...without });
    }
    if (built === true) for (const failed of failures) this._call("packUnavailable", failed.file, failed.detail, failed.pack);
    if (built === true && lateLang) this._setLang(lateLang);
    if (built !== true) {
      if (built && built.pack) this._fail(`the playground still needs ${built.pack}.json after it arrived`);
      return;
    }
    this._placeScenario = this._pg.state()?.scenario;
    for (const late of pending.filter((p) => !p.file)) {
      late.promise.then((file) => this._addFile(file, srcGeneration));
    }
    if (srcChanged) this._loadSrc(this.getAttribute("src") || "");
    // A narrow element (a phone, a course's side column) gets a narrow figure.
    // (its width comes with the entry: nothing is measured again)
    this._resize = new ResizeObserver((entries) => {
      const width = entries[entries.length - 1].contentRect.width;
      cancelAnimationFrame(this._resizeFrame);
      this._resizeFrame = requestAnimationFrame(() => this._pg && this._call("relayout", width));
    });
    this._resize.observe(this);
    performance.mark("alp:ready");
    this.dispatchEvent(new CustomEvent("playground-ready", { bubbles: true, detail: this.state() }));
  }

  // The playground itself, in a fresh container: at the start (`place`: a
  // place kept across a navigation) or again after an error in the page
  // killed the one before (`restarted`: what failed). False if it failed;
  // `{pack}` when what it is asked to show needs a pack not here yet
  // (`withoutPack`: built without what needs it: the scenario, program,
  // function and compare attributes, the src= files and listings;
  // `withoutLang`: in the default language).
  _build(place, { width = 0, compact = false, restarted = "", withoutPack = false, withoutLang = false } = {}) {
    this._calls++; // (what the playground calls meanwhile runs inside this)
    const attr = (name) => (withoutPack ? "" : this.getAttribute(name) || "");
    try {
      const pg = new Playground(this._container(), {
        doubles: (script) => this._counted(fixtureDoubles(script)),
        function: attr("function"),
        program: attr("program"),
        compare: attr("compare"),
        scenario: attr("scenario"),
        lang: withoutLang ? "" : this._langWanted(place),
        breakpoints: place ? place.breakpoints.join(",") : this.getAttribute("breakpoints") || "",
        controls: this.getAttribute("controls") || "",
        compact: compact ? "1" : "",
        listing: place ? place.listing : this.getAttribute("listing") || "",
        timeBudget: this.getAttribute("time-budget") || "",
        memoryBudget: this.getAttribute("memory-budget") || "",
        headingLevel: this.getAttribute("heading-level") || "",
        theme: this.getAttribute("theme") || "",
        files: withoutPack ? [] : this._files,
        listings: withoutPack ? [] : this._listings,
        predict: this.hasAttribute("predict") ? "1" : "",
        // The figure's layout is guessed from this (the page around is laid out already).
        width,
        step: place && !restarted ? (place.step === null ? "" : String(place.step)) : this.getAttribute("step") || "",
        restarted,
      });
      this._pg = pg;
      this._watchEvents();
      if (this._model) pg.setModel(this._model);
      if (this._process) pg.setProcess(this._process);
      if (restarted) this._backTo(place);
      return true;
    } catch (error) {
      this._pg = null;
      if (isPackNeeded(error) && !withoutPack) {
        // (a restart cannot wait for it: it opens without; the place it
        // goes back to was on screen, so its pack is here)
        if (!restarted) return { pack: error.pack };
        this._calls--;
        try {
          return this._build(place, { width, compact, restarted, withoutPack: true });
        } finally {
          this._calls++;
        }
      }
      this._fail(error && error.message ? error.message : String(error));
      return false;
    } finally {
      this._calls--;
    }
  }

  // The language to open in: the place's, the element's own lang, else the
  // page's when it is one the playground speaks.
  _langWanted(place) {
    return (place && place.lang) || this.getAttribute("lang") || (/^(zh|en)\b/i.test(document.documentElement.lang) ? document.documentElement.lang : "zh");
  }

  // Switch language; one whose table is a pack not here yet is fetched
  // first (only the latest switch asked for goes ahead). One that cannot be
  // fetched is a notice in the element; the language stays.
  _setLang(code) {
    const ticket = ++this._langTicket;
    try {
      this._call("setLang", code);
    } catch (error) {
      if (!isPackNeeded(error)) throw error;
      this._withPack(error.pack)
        .then(() => ticket === this._langTicket && this._pg && this._call("setLang", code))
        .catch((why) => why.pack || console.warn(`agent-loop-playground: lang=${code}: ${why.message || why}`));
    }
  }

  // After a restart: the scenarios given since, then the scenario and step
  // the learner was at (an edited version is not kept: its start).
  _backTo(place) {
    for (const fixture of this._added) {
      try {
        this._pg.addScenario(fixture);
      } catch {}
    }
    if (!place) return;
    try {
      if (this._pg.state().scenario !== place.scenario) this._pg.load(place.scenario);
      if (place.started && !place.whatIf) this._pg.seek(place.step);
    } catch {}
  }

  // A model or process the playground calls, counted as a call in progress.
  _countedFn(fn) {
    if (typeof fn !== "function") return fn;
    const counted = (...args) => {
      this._calls++;
      try {
        return fn(...args);
      } finally {
        this._calls--;
      }
    };
    counted.original = fn.original;
    return counted;
  }
  _counted(doubles) {
    if (!doubles || typeof doubles !== "object") return doubles;
    return { ...doubles, model: this._countedFn(doubles.model), process: this._countedFn(doubles.process) };
  }

  // DOM events inside the playground are counted while its own listeners
  // run: one before them (capture, on the shadow root), one after them (on
  // the container, added after the playground's own). An event that finds
  // the playground dead starts it again instead.
  _watchEvents() {
    const box = this._container();
    if (!this._watching) {
      // A language button pressed: the latest switch asked for wins over
      // one still waiting for its table.
      this.shadowRoot.addEventListener("click", (event) => {
        if (event.target instanceof Element && event.target.closest("[data-lang]")) this._langTicket++;
      }, { capture: true });
      // The picker chose a scenario whose program's pack is not here yet,
      // or a language button a language whose table is not.
      this.shadowRoot.addEventListener("alp-pack", (event) => {
        const { pack, scenario, lang } = event.detail || {};
        // (one that cannot be fetched is a notice in the element, said in
        // the console too; after the pick's own update, which is running)
        if (lang) queueMicrotask(() => this._setLang(lang));
        else queueMicrotask(() => this._showAfterPack(pack, () => this._call("load", scenario)).catch(() => {}));
      });
    }
    for (const type of ["click", "change", "input", "keydown"]) {
      if (!this._watching) {
        this.shadowRoot.addEventListener(type, (event) => {
          if (this._pg && this._dead()) {
            event.stopImmediatePropagation();
            this._revive("");
            this._rebuild();
            return;
          }
          this._events++;
        }, true);
      }
      box.addEventListener(type, () => { this._events = Math.max(0, this._events - 1); });
    }
    this._watching = true;
  }

  // Busy with nothing of ours running: an error in the page unwound through
  // the playground and left it borrowed for good.
  _dead() {
    return this._calls === 0 && this._events === 0 && this._pg.isBusy();
  }

  // Start a new playground where the dead one was, with a notice saying
  // what failed: after the task that killed it (the page may still be
  // broken while it runs), or at the next call, whichever comes first.
  _revive(error) {
    const old = this._pg;
    let place = null;
    try {
      place = JSON.parse(old.lastPlace());
    } catch {}
    this._pg = null;
    try {
      old.free();
    } catch {}
    const what = error && error.message ? error.message : String(error || "");
    this._lost = { place, restarted: (what || "an error in a script of the page").slice(0, 500) };
    setTimeout(() => this._lost && this.isConnected && this._rebuild(), 0);
  }

  // One try at the restart; a failed one says why in the element and is
  // tried again at the next call.
  _rebuild() {
    const { place, restarted } = this._lost;
    // (the dead one's container and its listeners, or the last try's message)
    this.shadowRoot.querySelector(".alp-root")?.remove();
    const width = this.getBoundingClientRect().width;
    if (this._build(place, { width, compact: this._compact, restarted })) {
      this._lost = null;
      this._followScheme();
    }
  }

  // Every call into the playground: a throw that leaves it dead starts it
  // again (and the caller still hears the error); a trap of the module
  // itself is said in the element.
  _call(name, ...args) {
    const pg = this._need();
    let failed = null;
    this._calls++;
    try {
      return pg[name](...args);
    } catch (error) {
      failed = error;
      throw error;
    } finally {
      this._calls--;
      if (failed && failed instanceof WebAssembly.RuntimeError) {
        this._pg = null;
        this._fail(`the module stopped (${failed.message}); reload the page`);
      } else if (failed && this._pg === pg && this._dead()) {
        this._revive(failed);
      }
    }
  }

  // Freed only if it is still out of the page after this task: moving an
  // element (appendChild elsewhere) keeps its trace and state, and a
  // callback that removes its own element is not cut off mid-recording.
  disconnectedCallback() {
    if (!this._pg) {
      this._generation++; // cancels a start still waiting for the module
      followPage(this, false);
      return;
    }
    // Written now: an element that replaces this one in the same task reads it.
    keepPlace(this);
    setTimeout(() => {
      if (this.isConnected || !this._pg) return;
      followPage(this, false);
      this._generation++;
      this._resize?.disconnect();
      this._pg.free(); // removes its listeners and clears the element
      this._pg = null;
    }, 0);
  }

  // height="320" or "20rem": the tallest the code and figure panels grow
  // before they scroll. Set through the CSSOM, which the page's CSP allows.
  _applyHeight(value) {
    const valid = value && /^\d+(\.\d+)?(px|rem|em|vh)?$/.test(value.trim());
    if (valid) this.style.setProperty("--alp-panel-height", /\d$/.test(value.trim()) ? `${value.trim()}px` : value.trim());
    else this.style.removeProperty("--alp-panel-height");
  }

  // The page's color-scheme, unless theme="light|dark" says otherwise.
  _followScheme() {
    const box = this.shadowRoot && this.shadowRoot.querySelector(".alp-root");
    if (!box) return;
    const scheme = schemeOfPage();
    if (scheme) box.dataset.scheme = scheme;
    else delete box.dataset.scheme;
  }

  // Files named by a changed src= are fetched and added (shown ones stay);
  // files of an earlier value still on their way are dropped.
  _loadSrc(value) {
    if (value === this._src) return;
    this._src = value;
    const srcGeneration = ++this._srcGeneration;
    for (const p of fetchScenarios(value, fetchTimeoutOf(this))) {
      p.promise.then((file) => this._addFile(file, srcGeneration));
    }
  }

  // A file that arrived after the playground was built. One holding the
  // scenario the element asks for opens it, unless the learner has started.
  _addFile(file, srcGeneration) {
    if (srcGeneration !== this._srcGeneration || !this._pg) return;
    // (kept for a restart, which reads every file again)
    this._files.push(file);
    try {
      if (file.text === undefined) {
        this._call("fileUnreadable", file.name, file.error, file.detail);
        return;
      }
      const id = this._call("addScenarioFile", file.name, file.text);
      const now = this._pg.state();
      if (id === this.getAttribute("scenario") && now && now.scenario !== id && now.scenario === this._placeScenario && !now.started) {
        this._call("load", id);
        this._placeScenario = id;
      }
    } catch (error) {
      // A scenario of a program whose pack is not here yet: added again
      // once it is. (A broken file is already shown in the notice box and
      // said once in the console by the playground itself.)
      if (isPackNeeded(error)) {
        this._files.splice(this._files.indexOf(file), 1);
        this._withPack(error.pack).then(() => this._addFile(file, srcGeneration), () => {});
      }
    }
  }

  attributeChangedCallback(name, oldValue, value) {
    if (name === "height") this._applyHeight(value);
    if (name === "theme") this._followScheme();
    if (name === "src" && this._pg && value !== null && oldValue !== value) this._loadSrc(value);
    if (!this._pg || oldValue === value || !["predict", "scenario", "lang", "listing"].includes(name)) return;
    if (name !== "predict" && value === null) return;
    // Set from inside one of the playground's own callbacks (a model that
    // sets el.lang): applied once the update is over.
    if (this._pg.isBusy()) {
      if (!this._deferred.size) queueMicrotask(() => this._applyDeferred());
      this._deferred.add(name);
      return;
    }
    this._applyAttribute(name);
  }

  // An attribute's value now, given to the playground (a bad one is said in the console).
  _applyAttribute(name) {
    const value = this.getAttribute(name);
    try {
      if (name === "predict") this._call("setPredict", value !== null);
      else if (value === null) return;
      // (a pack that does not come is said by the element itself)
      else if (name === "scenario") Promise.resolve(this.load(value)).catch((error) => error.pack || console.warn(`agent-loop-playground: scenario=${value}: ${error.message || error}`));
      else if (name === "lang") this._setLang(value);
      else if (name === "listing") this._call("setListing", value);
    } catch (error) {
      console.warn(`agent-loop-playground: ${name}=${value}: ${error.message || error}`);
    }
  }

  _applyDeferred() {
    if (!this._pg) return this._deferred.clear();
    // Still busy (a callback that runs long, or a chain of them): after this task.
    if (this._pg.isBusy() && !this._dead()) return void setTimeout(() => this._applyDeferred(), 0);
    const names = [...this._deferred];
    this._deferred.clear();
    const now = this._pg.state() || {};
    for (const name of names) {
      const value = this.getAttribute(name);
      const same = name === "predict" ? now.predict === (value !== null) : name === "lang" ? now.lang === value : false;
      if (!same) this._applyAttribute(name);
    }
  }

  _fail(message) {
    const container = this._container();
    container.textContent = "";
    const box = document.createElement("p");
    box.className = "alp-crash";
    box.setAttribute("role", "alert");
    box.textContent = `Agent Loop Playground: ${message}`;
    container.appendChild(box);
  }

  _need() {
    if (this._pg && this._dead()) this._revive("");
    if (!this._pg && this._lost) this._rebuild();
    if (!this._pg && this._lost) throw new Error("agent-loop-playground could not be started again (the element says why)");
    if (!this._pg) throw new Error("agent-loop-playground is not ready yet (wait for playground-ready)");
    return this._pg;
  }

  // el.focus() puts the keyboard in the playground (its keys work from there).
  focus(options) {
    const root = this.shadowRoot && this.shadowRoot.querySelector(".alp-root");
    if (root) root.focus(options);
    else super.focus(options);
  }

  get ready() {
    return this._pg !== null;
  }
  state() {
    if ((this._pg && this._dead()) || this._lost) {
      try {
        this._need();
      } catch {}
    }
    return this._pg ? this._pg.state() : null;
  }
  command(name) {
    return this._call("command", text(name, "command name"));
  }
  toggleBreakpoint(fn, line) {
    if (typeof line !== "number" && typeof line !== "string") throw new TypeError("line must be a line number or a label");
    return this._call("toggleBreakpoint", text(fn, "function"), line);
  }
  // A scenario of a program whose pack has not arrived yet is shown once
  // it has: then load returns a Promise (rejected if the pack cannot be
  // fetched, and the element says so; resolved without showing it if
  // another scenario was shown meanwhile).
  load(scenarioId) {
    const id = text(scenarioId, "scenario id");
    try {
      const shown = this._call("load", id);
      this._packTicket++; // (one still waiting for its pack does not come after this)
      return shown;
    } catch (error) {
      if (!isPackNeeded(error)) throw error;
      return this._showAfterPack(error.pack, () => this._call("load", id));
    }
  }
  setListing(name) {
    return this._call("setListing", text(name, "listing"));
  }
  addScenario(fixture) {
    if (typeof fixture === "string" && fixture.length > CROSSING.chars) {
      throw tooBig("the scenario", "chars");
    }
    const given = typeof fixture === "string" ? fixture : JSON.stringify(bounded(fixture, "the scenario"));
    let id;
    try {
      id = this._call("addScenario", given);
    } catch (error) {
      // A scenario of a program whose pack is not here yet (its checks
      // read its texts): added once it is, a Promise of its id meanwhile.
      if (isPackNeeded(error)) return this._withPack(error.pack).then(() => this.addScenario(given));
      throw error;
    } finally {
      // The picker is drawn once for a run of calls, when the script that
      // made them is done.
      if (!this._flushing) {
        this._flushing = true;
        queueMicrotask(() => {
          this._flushing = false;
          if (this._pg && !this._dead()) this._call("flush");
        });
      }
    }
    this._added.push(given); // (kept for a restart)
    return id;
  }
  get predict() {
    return this.hasAttribute("predict");
  }
  set predict(on) {
    this.toggleAttribute("predict", !!on);
  }
  answer(choice) {
    if (!Number.isInteger(choice) || choice < 0) throw new TypeError("choice must be the index of a choice (0 is the first)");
    return this._call("answer", choice);
  }
  tryAgain() {
    return this._call("tryAgain");
  }
  whatIf(edit) {
    if (edit !== null && edit !== undefined && (typeof edit !== "object" || Array.isArray(edit))) {
      throw new TypeError("whatIf takes {model: [...], process: ...} or null");
    }
    return this._call("whatIf", bounded(edit ?? null, "the edit"));
  }
  // The edit the version on screen was made with, or null (a link to it).
  currentEdit() {
    return this._call("currentEdit");
  }
  currentStep() {
    return this._call("currentStep");
  }
  outcome() {
    return this._call("outcome");
  }
  get model() {
    return this._model ? this._model.original : null;
  }
  set model(fn) {
    this._model = this._countedFn(synchronous(fn, "model"));
    this._setDouble("setModel", "_model");
  }
  get process() {
    return this._process ? this._process.original : null;
  }
  set process(fn) {
    this._process = this._countedFn(synchronous(fn, "process"));
    this._setDouble("setProcess", "_process");
  }
  // Set from inside a callback: given to the playground once the update is over.
  _setDouble(method, field) {
    if (!this._pg) return;
    if (this._pg.isBusy() && !this._dead()) {
      queueMicrotask(() => this._setDouble(method, field));
      return;
    }
    this._call(method, this[field]);
  }
  get lang() {
    return this.getAttribute("lang") || "";
  }
  set lang(value) {
    // (the same value again while another language is shown, its table
    // having failed to come: tried again; the attribute does not change)
    const code = languagePack(value);
    const again = code && this.getAttribute("lang") === value && this._pg && !this._pg.isBusy() && this.state().lang !== code;
    if (again) this._setLang(value);
    else this.setAttribute("lang", value);
  }
}

if (!customElements.get("agent-loop-playground")) {
  customElements.define("agent-loop-playground", AgentLoopPlayground);
}

/** Bytes of wasm linear memory in use (for the benchmark harness). */
async function wasmMemoryBytes() {
  const wasm = await loadWasm();
  return wasm.memory.buffer.byteLength;
}

export { AgentLoopPlayground, loadWasm, wasmMemoryBytes };

// @ts-check
// An element connects: the module, its src= files, its listings and its
// language's table are fetched side by side; the playground is built (again
// once a pack it needs is in); files that come late join it. And the
// playground built again, where the learner was, after one died.
import { Playground } from "./agent-loop-playground.js";
import { optionsOf, valueOf } from "./attributes.js";
import { messageOf } from "./crossing.js";
import { fixtureDoubles } from "./doubles.js";
import { fetchListings, fetchProgram, fetchScenarios, fetchTimeoutOf } from "./fetching.js";
import { counted, watchEvents } from "./keeper.js";
import { DEFAULT_LANGUAGE, languagePack, speaks } from "./languages.js";
import { loadWasm } from "./module.js";
import { isPackNeeded, loadPack, packInGrace, reopenWhenIn, setLang } from "./packs.js";
import { attrsOf, forgetPlace, placeKey, takePlace } from "./place.js";
import { addFile, loadSrc } from "./sources.js";
import { followPage } from "./theme.js";

/** @typedef {import("./base.js").PlaygroundElement} Host */
/** @typedef {import("./place.js").Place} Place */
/** @typedef {import("./packs.js").PackFailure} PackFailure */
/** @typedef {import("./fetching.js").Pending} Pending */
/**
 * How to build: `width` of the element, `compact`, `restarted` (what
 * killed the one before), `withoutPack` (without what needs a program's
 * pack: the attributes that name one, the src= files and listings),
 * `withoutLang` (in the default language), `lang` (in this one), `waiting`
 * (the file of a pack on its way, said in the notice).
 * @typedef {{width?: number, compact?: boolean, restarted?: string, withoutPack?: boolean, withoutLang?: boolean, lang?: string, waiting?: string}} BuildOptions
 */
/** Built; not (the element says why); or waiting for a pack. @typedef {boolean | {pack: string}} Built */

// How long a playground whose module is ready waits for its files before
// it is built without them (they are added when they arrive), and for its
// language's table or a program's pack (small: a slow server shows the
// other language, or lesson one, only when it is very slow).
const FILES_GRACE_MS = 300;
const LANG_GRACE_MS = 1000;

/** @param {number} ms */
const after = (ms) => new Promise((ok) => setTimeout(ok, ms));

/**
 * connectedCallback: a new element, or one moved in the page (removed and
 * added back in one task), which keeps everything.
 * @param {Host} el
 */
export async function open(el) {
  if (el._pg) {
    forgetPlace(el._placeKey);
    return;
  }
  const generation = ++el._generation;
  // The module compiles off the main thread while the rest is set up.
  const wasm = loadWasm();
  el._container();
  followPage(el, true);
  el._followScheme();
  const arriving = fetchBeside(el);
  let listings = [];
  try {
    // (program-src read once the script that defined the element is over,
    // as the language is: a page that sets it right after, as page.js does
    // from a link, is heard)
    const program = Promise.resolve().then(() => fetchProgram(el, arriving.timeoutMs));
    [, listings, el._program] = await Promise.all([wasm, fetchListings(el, arriving.timeoutMs), program]);
    await Promise.race([Promise.all([...arriving.pending.map((p) => p.promise), arriving.lang]), after(FILES_GRACE_MS)]);
    await Promise.race([arriving.lang, after(LANG_GRACE_MS)]);
  } catch (error) {
    el._fail(`could not load the WebAssembly module: ${error}`);
    return;
  }
  if (generation !== el._generation || !el.isConnected || el._pg) return;
  // src= changed while the module loaded: the new value's files are fetched instead.
  const srcChanged = el.getAttribute("src") !== el._src;
  el._files = srcChanged ? [] : arriving.pending.flatMap((p) => (p.file ? [p.file] : []));
  el._listings = listings;
  el._applyHeight(el.getAttribute("height"));
  // (read before the playground's markup exists: no layout is forced)
  const width = el.getBoundingClientRect().width;
  el._compact = valueOf(el, "compact") === "1";
  performance.mark("alp:construct");
  el._placeKey = placeKey(el);
  el._placeAttrs = attrsOf(el);
  const place = takePlace(el._placeKey, el._placeAttrs);
  if (!(await buildWithPacks(el, generation, place, width, arriving))) return;
  opened(el, arriving, srcChanged);
}

/**
 * What is fetched beside the module: the src= files, and the language's
 * table when it is a pack (after this task's script: a page that sets lang
 * just after adding the element, as the stand-alone page does, is heard).
 * One that fails is said once the playground is built (not asked for again).
 * @param {Host} el
 */
function fetchBeside(el) {
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
    lang: Promise.resolve(),
  };
  arriving.lang = Promise.resolve().then(() => {
    const code = languagePack(langWanted(el, null));
    return code ? loadPack(code).then(() => null, (why) => { arriving.langFailed = why; }) : null;
  });
  return arriving;
}

/**
 * The playground, built; again once a pack it needs is in. The language,
 * or the scenario (a src= file, a listing) asked for, may be in a pack. A
 * language's table not here yet (a slow server): the playground opens in
 * the default language and switches when it comes. A program's: fetched,
 * then built again; one not here after the same grace: built without it,
 * and again when it comes. One that cannot come is said; the playground
 * opens in the default language, or on lesson one. False when not built.
 * @param {Host} el
 * @param {number} generation
 * @param {Place | null} place
 * @param {number} width
 * @param {{langFailed: PackFailure | null}} arriving  (its language's table: failed?)
 */
async function buildWithPacks(el, generation, place, width, arriving) {
  const compact = el._compact;
  let built = build(el, place, { width, compact });
  const without = { withoutPack: false, withoutLang: false, waiting: "" };
  /** @type {PackFailure[]} */
  const failures = [];
  let lateLang = null;
  /** @type {import("./packs.js").LatePack | null} */
  let latePack = null;
  for (let tries = 0; typeof built === "object" && tries < 2; tries++) {
    if (languagePack(built.pack)) {
      without.withoutLang = true;
      if (arriving.langFailed) failures.push(arriving.langFailed);
      else lateLang = langWanted(el, null);
    } else {
      const pack = await packInGrace(el, built.pack, LANG_GRACE_MS);
      if (generation !== el._generation || !el.isConnected || el._pg) return false;
      without.withoutPack = pack !== true;
      if (pack !== true && "failed" in pack) failures.push(pack.failed);
      else if (pack !== true) [latePack, without.waiting] = [pack, pack.file];
    }
    built = build(el, place, { width, compact, ...without });
  }
  if (built !== true) {
    if (typeof built === "object") el._fail(`the playground still needs ${built.pack}.json after it arrived`);
    return false;
  }
  for (const failed of failures) el._call("packUnavailable", failed.file, failed.detail, failed.pack);
  if (lateLang) setLang(el, lateLang);
  if (latePack) reopenWhenIn(el, latePack, (lang) => build(el, place, { width: el.getBoundingClientRect().width, compact, lang }));
  return true;
}

/**
 * Built: the files that come late join it, the figure follows the
 * element's width, and the page hears it is ready.
 * @param {Host} el
 * @param {{srcGeneration: number, pending: Pending[]}} arriving
 * @param {boolean} srcChanged
 */
function opened(el, { srcGeneration, pending }, srcChanged) {
  el._placeScenario = el._pg?.state()?.scenario;
  for (const late of pending.filter((p) => !p.file)) {
    late.promise.then((file) => addFile(el, file, srcGeneration));
  }
  if (srcChanged) loadSrc(el, el.getAttribute("src") || "");
  // A narrow element (a phone, a course's side column) gets a narrow figure.
  // (its width comes with the entry: nothing is measured again)
  el._resize = new ResizeObserver((entries) => {
    const width = entries[entries.length - 1].contentRect.width;
    cancelAnimationFrame(el._resizeFrame);
    el._resizeFrame = requestAnimationFrame(() => el._pg && el._call("relayout", width));
  });
  el._resize.observe(el);
  performance.mark("alp:ready");
  el.dispatchEvent(new CustomEvent("playground-ready", { bubbles: true, detail: el.state() }));
}

/**
 * The playground itself, in a fresh container: at the start (`place`: a
 * place kept across a navigation) or again after an error in the page
 * killed the one before (`restarted`: what failed).
 * @param {Host} el
 * @param {Place | null} place
 * @param {BuildOptions} options
 * @returns {Built}
 */
export function build(el, place, { width = 0, compact = false, restarted = "", withoutPack = false, withoutLang = false, lang, waiting = "" } = {}) {
  el._calls++; // (what the playground calls meanwhile runs inside this)
  try {
    const given = optionsOf(el, withoutPack);
    const pg = new Playground(el._container(), {
      ...given,
      doubles: (script) => counted(el, fixtureDoubles(script)),
      // (a kept place's language is not taken: only a restart's)
      lang: withoutLang ? "" : lang ?? langWanted(el, restarted ? place : null),
      breakpoints: place ? place.breakpoints.join(",") : given.breakpoints,
      compact: compact ? "1" : "",
      listing: place ? place.listing : given.listing,
      files: withoutPack ? [] : el._files,
      listings: withoutPack ? [] : el._listings,
      programSrc: el._program,
      // The figure's layout is guessed from this (the page around is laid out already).
      width,
      step: place && !restarted ? (place.step === null ? "" : String(place.step)) : given.step,
      restarted,
      waiting,
    });
    el._pg = pg;
    watchEvents(el);
    if (el._model) pg.setModel(el._model);
    if (el._process) pg.setProcess(el._process);
    if (restarted) backTo(el, /** @type {import("./place.js").LastPlace | null} */ (place));
    return true;
  } catch (error) {
    el._pg = null;
    if (isPackNeeded(error) && !withoutPack) {
      // (a restart cannot wait for it: it opens without; the place it
      // goes back to was on screen, so its pack is here)
      if (!restarted) return { pack: error.pack };
      el._calls--;
      try {
        return build(el, place, { width, compact, restarted, withoutPack: true });
      } finally {
        el._calls++;
      }
    }
    el._fail(messageOf(error));
    return false;
  } finally {
    el._calls--;
  }
}

/**
 * One try at a restart; a failed one says why in the element and is tried
 * again at the next call.
 * @param {Host} el
 */
export function rebuild(el) {
  if (!el._lost) return;
  const { place, restarted } = el._lost;
  // (the dead one's container and its listeners, or the last try's message)
  el.shadowRoot?.querySelector(".alp-root")?.remove();
  const width = el.getBoundingClientRect().width;
  if (build(el, place, { width, compact: el._compact, restarted })) {
    el._lost = null;
    el._followScheme();
  }
}

/**
 * After a restart: the scenarios given since, then the scenario and step
 * the learner was at (an edited version is not kept: its start).
 * @param {Host} el
 * @param {import("./place.js").LastPlace | null} place
 */
function backTo(el, place) {
  const pg = /** @type {Playground} */ (el._pg);
  for (const fixture of el._added) {
    try {
      pg.addScenario(fixture);
    } catch {}
  }
  if (!place) return;
  try {
    if (pg.state()?.scenario !== place.scenario) pg.load(place.scenario);
    if (place.started && !place.whatIf) pg.seek(place.step);
  } catch {}
}

/**
 * The language to open in: the place's, the element's own lang, else the
 * page's when it is one the playground speaks.
 * @param {Host} el
 * @param {Place | null} place
 */
export function langWanted(el, place) {
  const page = document.documentElement.lang;
  return (place && place.lang) || el.getAttribute("lang") || (speaks(page) ? page : DEFAULT_LANGUAGE);
}

// @ts-check
// An element connects: the module, its src= files, its listings and its
// language's table are fetched side by side; the playground is built (again
// once a pack it needs is in); files that come late join it. And the
// playground built again, where the learner was, after one died.
import { Playground } from "./agent-loop-playground.js";
import { optionsOf, valueOf } from "./attributes.js";
import {
  CustomEvent, Promise, String, all, cancelAnimationFrame, dispatchEvent, filter, flatMap, join, map, markTime, push, queueMicrotask,
  race, requestAnimationFrame, resolved, setTimeout, then,
} from "./builtins.js";
import { messageOf } from "./crossing.js";
import { fixtureDoubles } from "./doubles.js";
import { fetchListings, fetchProgram } from "./fetching.js";
import { counted, watchEvents } from "./keeper.js";
import { languagePack, langWanted } from "./languages.js";
import { loadWasm, notCompiledFrom } from "./module.js";
import { detailOf, isPackNeeded, packInGrace, reopenWhenIn } from "./packs.js";
import { attrsOf, forgetPlace, placeKey, takePlace } from "./place.js";
import { refusal } from "./probe.js";
import { loadNow, setLang } from "./showing.js";
import { addFile, fetchBeside, isLongFile, loadSrc } from "./sources.js";
import { followPage } from "./theme.js";
import { hasFirstView, keepFirstView, keepShownBox, replayClicks, takeOver } from "./first.js";

/** @typedef {import("./base.js").PlaygroundElement} Host */
/** @typedef {import("./place.js").Place} Place */
/** @typedef {import("./packs.js").PackFailure} PackFailure */
/** @typedef {import("./fetching.js").Pending} Pending */
/** @typedef {import("./fetching.js").FetchedFile} FetchedFile */
/**
 * How to build: `width` of the element, `compact`, `restarted` (what
 * killed the one before), `withoutPack` (without what needs a program's
 * pack: the attributes that name one, the src= files and listings),
 * `withoutLang` (in the default language), `lang` (in this one), `waiting`
 * (the file of a pack on its way, said in the notice), `recording` (the
 * long src= files recorded meanwhile, said in the notice).
 * @typedef {{width?: number, compact?: boolean, restarted?: string, withoutPack?: boolean, withoutLang?: boolean, lang?: string, waiting?: string, recording?: string}} BuildOptions
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
 * added back in one task), which keeps everything. Whatever fails on the
 * way is said in the element, never thrown at the page.
 * @param {Host} el
 */
export async function open(el) {
  try {
    await start(el);
  } catch (error) {
    el._fail(messageOf(error));
  }
}

/** @param {Host} el */
async function start(el) {
  if (el._pg) {
    forgetPlace(el._placeKey);
    return;
  }
  const generation = ++el._generation;
  // (a page that broke what the element needs before it loaded: said instead)
  const refused = refusal(el);
  if (refused) return el._fail(refused);
  // A first view made for other attributes goes; so it does once the
  // script that made the element has set them (page.js, from a link).
  keepFirstView(el);
  queueMicrotask(() => keepFirstView(el));
  // The module compiles off the main thread while the rest is set up.
  const wasm = loadWasm();
  followPage(el, true);
  el._followScheme();
  const arriving = fetchBeside(el);
  /** @type {import("./fetching.js").FetchedListing[]} */
  let listings = [];
  try {
    // (program-src read once the script that defined the element is over,
    // as the language is: a page that sets it right after, as page.js does
    // from a link, is heard)
    const program = (async () => {
      await resolved();
      el._program = await fetchProgram(el, arriving.timeoutMs);
    })();
    const listed = then(fetchListings(el, arriving.timeoutMs), (/** @type {typeof listings} */ got) => void (listings = got));
    await all([wasm, listed, program]);
    const files = [arriving.lang];
    for (let i = 0; i < arriving.pending.length; i++) push(files, arriving.pending[i].promise);
    await race([all(files), after(FILES_GRACE_MS)]);
    await race([arriving.lang, after(LANG_GRACE_MS)]);
  } catch (error) {
    const url = notCompiledFrom(error);
    el._fail(el._words(url ? "module_not_wasm" : "module_failed", { url, detail: messageOf(error) }));
    return;
  }
  if (generation !== el._generation || !el.isConnected || el._pg) return;
  const arrived = flatMap(arriving.pending, (/** @type {Pending} */ p) => (p.file ? [p.file] : []));
  // src= changed while the module loaded: the new value's files are fetched instead.
  const srcChanged = el.getAttribute("src") !== el._src;
  // (a long file is recorded in the worker meanwhile: the playground opens
  // without it, says so, and adds it once its run is in)
  const long = srcChanged ? [] : filter(arrived, isLongFile);
  el._files = srcChanged ? [] : filter(arrived, (/** @type {FetchedFile} */ f) => !isLongFile(f));
  el._listings = listings;
  el._applyHeight(el.getAttribute("height"));
  // (read before the playground's markup exists: the layout it forces is the page's as it is)
  const width = el._width();
  el._compact = valueOf(el, "compact") === "1";
  markTime("alp:construct");
  el._placeKey = placeKey(el);
  el._placeAttrs = attrsOf(el);
  const place = takePlace(el._placeKey, el._placeAttrs);
  const recording = join(map(long, (/** @type {FetchedFile} */ f) => f.name), " ");
  if (!(await buildWithPacks(el, generation, place, { width, recording }, arriving))) return;
  opened(el, arriving, srcChanged);
  replayClicks(el);
  for (let i = 0; i < long.length; i++) addFile(el, long[i], arriving.srcGeneration);
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
 * @param {{width: number, recording: string}} given  the element's width, and the
 *   long src= files being recorded meanwhile
 * @param {{langFailed: PackFailure | null, timeoutMs: number}} arriving  (its language's
 *   table: failed?; how long a fetch may take)
 */
async function buildWithPacks(el, generation, place, { width, recording }, arriving) {
  const compact = el._compact;
  let built = build(el, place, { width, compact, recording });
  const without = { withoutPack: false, withoutLang: false, waiting: "" };
  /** @type {PackFailure[]} */
  const failures = [];
  let lateLang = null;
  /** @type {import("./packs.js").LatePack | null} */
  let latePack = null;
  for (let tries = 0; typeof built === "object" && tries < 2; tries++) {
    if (languagePack(built.pack)) {
      without.withoutLang = true;
      if (arriving.langFailed) push(failures, arriving.langFailed);
      else lateLang = langWanted(el, null);
    } else {
      // (a first view on screen is the scenario asked for: kept until its pack comes or cannot)
      const pack = await packInGrace(el, built.pack, hasFirstView(el) ? arriving.timeoutMs : LANG_GRACE_MS);
      if (generation !== el._generation || !el.isConnected || el._pg) return false;
      without.withoutPack = pack !== true;
      if (pack !== true && "failed" in pack) push(failures, pack.failed);
      else if (pack !== true) [latePack, without.waiting] = [pack, pack.file];
    }
    built = build(el, place, { width, compact, recording, ...without });
  }
  if (built !== true) {
    if (typeof built === "object") el._fail(el._words("pack_still_needed", { file: `${built.pack}.json` }));
    return false;
  }
  for (let i = 0; i < failures.length; i++) el._call("packUnavailable", failures[i].file, detailOf(el, failures[i]), failures[i].pack);
  if (lateLang) setLang(el, lateLang);
  if (latePack) reopenWhenIn(el, latePack, (lang) => build(el, place, { width: el._width(), compact, lang }));
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
  const late = filter(pending, (/** @type {Pending} */ p) => !p.file);
  for (let i = 0; i < late.length; i++) then(late[i].promise, (/** @type {FetchedFile} */ file) => addFile(el, file, srcGeneration));
  if (srcChanged) loadSrc(el, el.getAttribute("src") || "");
  // A narrow element (a phone, a course's side column) gets a narrow figure.
  // (its width comes with the entry: nothing is measured again)
  el._resize = new ResizeObserver((entries) => {
    const width = entries[entries.length - 1].contentRect.width;
    cancelAnimationFrame(el._resizeFrame);
    el._resizeFrame = requestAnimationFrame(() => el._pg && el._call("relayout", width));
  });
  el._resize.observe(el);
  markTime("alp:ready");
  dispatchEvent(el, new CustomEvent("playground-ready", { bubbles: true, detail: el.state() }));
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
export function build(el, place, { width = 0, compact = false, restarted = "", withoutPack = false, withoutLang = false, lang, waiting = "", recording = "" } = {}) {
  el._calls++; // (what the playground calls meanwhile runs inside this)
  try {
    const given = optionsOf(el, withoutPack);
    keepShownBox(el); // (of a first view, the box on screen: it is drawn into)
    const pg = new Playground(el._container(), {
      ...given,
      doubles: (script) => counted(el, fixtureDoubles(script)),
      // (a kept place's language is not taken: only a restart's)
      lang: withoutLang ? "" : lang ?? langWanted(el, restarted ? place : null),
      breakpoints: place ? join(place.breakpoints, ",") : given.breakpoints,
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
      recording,
    });
    // (a first view it drew over is now its container: in this task, so no
    // frame shows it half taken; a build that waits for a pack leaves it be)
    takeOver(el);
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
  const width = el._width();
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
  for (let i = 0; i < el._added.length; i++) {
    try {
      pg.addScenario(el._added[i]);
    } catch {}
  }
  if (!place) return;
  try {
    if (pg.state()?.scenario !== place.scenario) loadNow(pg, place.scenario);
    if (place.started && !place.whatIf) pg.seek(place.step);
  } catch {}
}

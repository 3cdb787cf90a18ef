// @ts-check
// Texts that are not in the module (core/src/pack.rs): lesson two's
// listings and setup are fetched the first time one of its scenarios is
// shown, and a language's table other than the default's the first time it
// is shown (at once, beside the module, when the element opens in it); once
// for the whole page. Each URL is written as the literal bundlers
// recognise, relative to element.js (these modules are bundled into it), so
// that a bundled build emits the file too.
import { Playground } from "./agent-loop-playground.js";
import {
  Error, assign, fetch, hasOwn, listen, push, setTimeout, split, then, thenEverywhere, timeoutAfter, trim,
} from "./builtins.js";
import { messageOf } from "./crossing.js";
import { FETCH_TIMEOUT_MS, MAX_FILE_BYTES, boundedText } from "./fetching.js";
import { LANGUAGE_PACKS } from "./languages.js";
import { loadWasm } from "./module.js";

/** @typedef {import("./base.js").PlaygroundElement} Host */
/** Why a pack did not come: `{pack, file, detail}` (`then`: the page set
 *  Object.prototype.then, said in the reader's language where it is shown).
 *  @typedef {{pack: string, file: string, detail: string, then?: string}} PackFailure */
/** A pack not in within the grace: its file, and whether it came (once it
 *  has, or has failed). @typedef {{file: string, came: Promise<boolean>}} LatePack */

/** @type {Record<string, () => URL>} */
const PACKS = {
  lesson_two: () => new URL("./data/lesson_two.json", import.meta.url),
  ...LANGUAGE_PACKS,
};

/** name → the pack's name once it is in, while it loads or once it has. @type {Record<string, Promise<string>>} */
const packs = /** @type {any} */ ({ __proto__: null });

/** Packs in, with their texts (the recording worker is sent them). @type {{name: string, text: string}[]} */
const arrived = [];

/** The packs the page's module has, with their texts. */
export const packsHere = () => arrived;

/**
 * What the playground throws when what it is asked to show is in a pack
 * not here yet (src/handle.rs). (Read by its fields: a page may have
 * replaced the global Error since.)
 * @param {unknown} error
 * @returns {error is {name: "PackNeeded", pack: string, message: string}}
 */
export function isPackNeeded(error) {
  return typeof error === "object" && error !== null && "name" in error && error.name === "PackNeeded"
    && "pack" in error && typeof error.pack === "string";
}

/** The file a pack is fetched from (`lesson_two.json`). @param {string} name */
const fileOf = (name) => {
  const parts = hasOwn(PACKS, name) ? split(PACKS[name]().pathname, "/") : [];
  return parts.length ? parts[parts.length - 1] : `${name}.json`;
};

/**
 * Loads a pack (once for the page); rejects with a PackFailure.
 * @param {string} name
 * @returns {Promise<string>}
 */
export function loadPack(name) {
  let loading = packs[name];
  if (!loading) {
    const url = hasOwn(PACKS, name) ? PACKS[name]() : null;
    const file = fileOf(name);
    loading = (async () => {
      // (a page that gave every object a `then`: the Response would never
      // be handed over; said at once, in the reader's words, where it is shown)
      const everywhere = thenEverywhere();
      if (everywhere) throw { pack: name, file, detail: everywhere, then: everywhere };
      try {
        if (!url) throw new Error("unknown pack");
        // (as a src= file: a server that stalls is given up on, a redirect
        // is not followed, and no more than the byte limit is read; the
        // module checks the file's hash before it parses it)
        const response = await fetch(url, { credentials: "same-origin", redirect: "manual", signal: timeoutAfter(FETCH_TIMEOUT_MS) });
        if (response.type === "opaqueredirect") throw new Error("answered with a redirect, which is not followed");
        if (!response.ok) throw new Error(trim(`${response.status} ${response.statusText}`));
        const body = await boundedText(response);
        if (body === null) throw new Error(`larger than ${MAX_FILE_BYTES / 1048576} MB`);
        await loadWasm();
        const added = Playground.addPack(name, body);
        push(arrived, { name, text: body });
        return added;
      } catch (error) {
        /** @type {PackFailure} */
        const failure = { pack: name, file, detail: messageOf(error) };
        throw failure;
      }
    })();
    // (a failed fetch is tried again next time)
    then(loading, undefined, () => delete packs[name]);
    packs[name] = loading;
  }
  return loading;
}

/**
 * Why a pack did not come, as the element says it (in the reader's
 * language when the page broke promises for every object).
 * @param {Host} el
 * @param {PackFailure} why
 */
export function detailOf(el, why) {
  return why.then ? el._words("broken_then", { name: why.then }) : why.detail;
}

/**
 * A pack fetched for an element, or said in it when it cannot be (the
 * scenario on screen stays): rejects then, with an Error whose `pack`,
 * `file` and `detail` say which and why. While it loads the playground is
 * marked busy (aria-busy: the stylesheet dims the code and the figure).
 * @param {Host} el
 * @param {string} name
 */
export async function withPack(el, name) {
  const box = el._container();
  box.setAttribute("aria-busy", "true");
  try {
    return await loadPack(name);
  } catch (thrown) {
    const why = /** @type {PackFailure} */ (thrown);
    const detail = detailOf(el, why);
    if (el._pg) el._call("packUnavailable", why.file, detail, name);
    const error = new Error(`agent-loop-playground: could not load ${why.file} (${detail})`);
    throw assign(error, { pack: name, file: why.file, detail });
  } finally {
    box.removeAttribute("aria-busy");
  }
}

/**
 * A program's pack an element being built needs: in within `graceMs`
 * (true), not coming (its PackFailure), or late (a slow server): then the
 * element is built without it, busy and saying it is on its way, as it
 * opens without a late language's table (opening.js).
 * @param {Host} el
 * @param {string} name
 * @param {number} graceMs
 * @returns {Promise<true | {failed: PackFailure} | LatePack>}
 */
export async function packInGrace(el, name, graceMs) {
  /** @type {Promise<true | {failed: PackFailure}>} */
  const loading = then(withPack(el, name), () => true, (/** @type {PackFailure} */ failed) => ({ failed }));
  // (the first of the pack and the grace; race() keeps no value)
  const first = await new Promise((ok) => {
    then(loading, ok);
    setTimeout(() => ok(null), graceMs);
  });
  return first ?? { file: fileOf(name), came: then(loading, (/** @type {unknown} */ x) => x === true) };
}

/**
 * A late pack is in: the playground is built again with it (`rebuild`,
 * in the language on screen), unless another scenario was chosen
 * meanwhile, which wins (one that cannot come is said by withPack). The
 * host page hears it as a move.
 * @param {Host} el
 * @param {LatePack} late
 * @param {(lang: string) => unknown} rebuild  true when built
 */
export function reopenWhenIn(el, late, rebuild) {
  const [ticket, generation, from] = [el._packTicket, el._generation, el._pg?.state()?.scenario];
  // Another scenario chosen meanwhile wins: it is not dimmed while the
  // pack it does not need is still on its way.
  const chosen = () => {
    if (el._pg?.state()?.scenario === from) return;
    el._container().removeAttribute("aria-busy");
    el.removeEventListener("playground-step", chosen);
  };
  listen(el, "playground-step", chosen);
  const done = () => el.removeEventListener("playground-step", chosen);
  then(late.came, done, done);
  then(late.came, (/** @type {boolean} */ came) => {
    const old = el._pg;
    const now = came && old && !el._dead() ? old.state() : null;
    if (!old || !now || ticket !== el._packTicket || generation !== el._generation || now.scenario !== from) return;
    // (the new one in a new container; the old one back if it cannot be built)
    const box = el._container();
    box.remove();
    el._pg = null;
    if (rebuild(now.lang) !== true) {
      el.shadowRoot?.querySelector(".alp-root")?.remove();
      el.shadowRoot?.append(box);
      el._pg = old;
      return;
    }
    old.free();
    for (const fixture of el._added) {
      try {
        el._call("addScenario", fixture);
      } catch {}
    }
    if (el._added.length) el._flushSoon();
    el._followScheme();
    el._placeScenario = el.state()?.scenario;
    el.dispatchEvent(new CustomEvent("playground-step", { bubbles: true, composed: true, detail: el.state() }));
  });
}

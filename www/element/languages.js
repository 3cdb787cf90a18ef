// @ts-check
// The languages the element speaks: those with a table in fixtures/i18n/.
// The default's table (Chinese, the course's) is compiled into the module;
// every other language's is a pack, www/data/<code>.json (written from its
// table by tests/packs.rs), fetched the first time the language is shown.
// A third language is one more table, its pack, and one line in
// LANGUAGE_PACKS; tests/js/check.mjs fails when this file and the tables
// disagree.
//
// (The modules of www/element/ are bundled into element.js: a path here is
// relative to element.js, as the literal bundlers recognise must be.)
import { String, hasOwn, includes, split, toLowerCase, trim } from "./builtins.js";

/** The language whose table is in the module. */
export const DEFAULT_LANGUAGE = "zh";

/** Every other language: the URL of its table's pack. @type {Record<string, () => URL>} */
export const LANGUAGE_PACKS = /** @type {any} */ ({
  __proto__: null,
  en: () => new URL("./data/en.json", import.meta.url),
});

/** Every language code the element knows, the default first. */
export const LANGUAGES = [DEFAULT_LANGUAGE];
// (a loop: as the module loads, nothing the page may have broken is called)
for (const code in LANGUAGE_PACKS) LANGUAGES[LANGUAGES.length] = code;

/**
 * The code of a language tag, known or not (`en-GB`, `EN`, `zh_CN` → `en`, `zh`),
 * read as the playground reads it.
 * @param {unknown} tag
 */
export function codeOf(tag) {
  return split(toLowerCase(trim(String(tag || ""))), /[-_]/)[0];
}

/**
 * Whether the element speaks the language of a tag (`zh-CN`: yes).
 * @param {unknown} tag
 */
export function speaks(tag) {
  return includes(LANGUAGES, codeOf(tag));
}

/**
 * The pack of a language tag's table (`en-GB` → `en`), if it is one.
 * @param {unknown} tag
 * @returns {string | null}
 */
export function languagePack(tag) {
  const code = codeOf(tag);
  return hasOwn(LANGUAGE_PACKS, code) ? code : null;
}

/**
 * The language an element opens in: the place's (where a playground that
 * died was), the element's own lang, else the page's when it is one the
 * element speaks, else the default.
 * @param {Element} el
 * @param {{lang?: string} | null} place
 */
export function langWanted(el, place) {
  const page = document.documentElement.lang;
  return (place && place.lang) || el.getAttribute("lang") || (speaks(page) ? page : DEFAULT_LANGUAGE);
}

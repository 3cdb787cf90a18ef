// @ts-check
// Files an author names on their own site, fetched from it only: src="a.json
// b.json" (scenario files), listing-src / listing-src-<code> (their own
// listings) and program-src (a program pack `agent-loop-cli record` wrote). Each is fetched from this page's origin, follows no redirect,
// stops at MAX_FILE_BYTES and gives up after fetch-timeout; whatever goes
// wrong is a value the playground words, never a throw.
import {
  AbortController, Number, String, TextDecoder, cancel, clearTimeout, decode, exec, fetch, filter, getReader, headerOf, map, plain,
  push, read, resolved, responseText, setTimeout, slice, split, then, thenEverywhere, trim,
} from "./builtins.js";
import { messageOf } from "./crossing.js";
import { LANGUAGES } from "./languages.js";

/** @typedef {import("./agent-loop-playground.js").FetchedFile} FetchedFile */
/** @typedef {import("./agent-loop-playground.js").FetchedListing} FetchedListing */
/** A file of src= on its way: `file` is set once it has arrived.
 *  @typedef {{file: FetchedFile | null, promise: Promise<FetchedFile>}} Pending */

export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** How long one file (or a pack) may take, unless fetch-timeout says otherwise. */
export const FETCH_TIMEOUT_MS = 10000;
/** The files of one src= value that are fetched; the names after are said once, not fetched. */
export const MAX_SRC_FILES = 50;

/**
 * fetch-timeout="10" (seconds), "2.5s" or "500ms"; anything else: the default, said once.
 * @param {Element} el
 */
export function fetchTimeoutOf(el) {
  const value = trim(el.getAttribute("fetch-timeout") || "");
  if (!value) return FETCH_TIMEOUT_MS;
  const m = exec(/^(\d+(?:\.\d+)?)\s*(ms|s)?$/, value);
  const ms = m ? Number(m[1]) * (m[2] === "ms" ? 1 : 1000) : NaN;
  if (ms > 0 && ms <= 600000) return ms;
  console.warn(`agent-loop-playground: fetch-timeout="${value}" is not a time from 1ms to 600s (say "10", "2.5s" or "500ms"); using 10 s`);
  return FETCH_TIMEOUT_MS;
}

/**
 * The body as text, stopping at MAX_FILE_BYTES bytes (not characters): null when over.
 * @param {Response} response
 * @returns {Promise<string | null>}
 */
export async function boundedText(response) {
  const declared = Number(headerOf(response.headers, "content-length"));
  if (declared > MAX_FILE_BYTES) {
    if (response.body) then(response.body.cancel(), undefined, () => {});
    return null;
  }
  if (!response.body) return responseText(response);
  const reader = getReader(response.body);
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = "";
  for (;;) {
    const { done, value } = await read(reader);
    if (done) return text + decode(decoder);
    bytes += value.byteLength;
    if (bytes > MAX_FILE_BYTES) {
      then(cancel(reader), undefined, () => {});
      return null;
    }
    text += decode(decoder, value, { stream: true });
  }
}

/**
 * Fetch one file: `{name, text}` or `{name, error, detail}` (error: url,
 * origin, redirect, status, size, timeout or network; the element words
 * it), never a throw. A redirect is not followed: it could lead to another
 * site, and only this page's own site is ever asked. (What it resolves
 * with has no prototype: a page that gave every object a `then` cannot
 * take it for a promise; such a page's fetch never hands over its
 * Response, so the file is not asked for: a network error naming it.)
 * @param {string} name
 * @param {number} timeoutMs
 * @returns {Promise<FetchedFile>}
 */
export async function fetchScenario(name, timeoutMs = FETCH_TIMEOUT_MS) {
  let url;
  try {
    url = new URL(name, document.baseURI);
  } catch {
    return plain({ name, error: "url", detail: "" });
  }
  // (javascript:, data:, blob: … are no file of a site: "not an address", not "another site (null)")
  if (url.protocol !== "http:" && url.protocol !== "https:") return plain({ name, error: "url", detail: "" });
  if (url.origin !== location.origin) return plain({ name, error: "origin", detail: url.origin });
  const everywhere = thenEverywhere();
  if (everywhere) return plain({ name, error: "network", detail: everywhere });
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await fetch(url, { credentials: "same-origin", redirect: "manual", signal: abort.signal });
    if (response.type === "opaqueredirect") return plain({ name, error: "redirect", detail: "" });
    if (!response.ok) return plain({ name, error: "status", detail: trim(`${response.status} ${response.statusText}`) });
    const text = await boundedText(response);
    if (text === null) return plain({ name, error: "size", detail: String(MAX_FILE_BYTES / 1048576) });
    return plain({ name, text });
  } catch (error) {
    if (abort.signal.aborted) return plain({ name, error: "timeout", detail: String(timeoutMs / 1000) });
    return plain({ name, error: "network", detail: messageOf(error) });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The files of a src= value, each fetched on its own.
 * @param {string | null} src
 * @param {number} timeoutMs
 * @returns {Pending[]}
 */
export function fetchScenarios(src, timeoutMs) {
  const names = filter(split(src || "", /\s+/), Boolean);
  const pendings = map(slice(names, 0, MAX_SRC_FILES), (/** @type {string} */ name) => {
    /** @type {Pending} */
    const pending = { file: null, promise: then(fetchScenario(name, timeoutMs), (/** @type {FetchedFile} */ file) => (pending.file = file)) };
    return pending;
  });
  // (thousands of names would be thousands of requests and notices: the
  // first name left out stands for all of them, in one notice)
  if (names.length > MAX_SRC_FILES) {
    /** @type {FetchedFile} */
    const file = plain({ name: names[MAX_SRC_FILES], error: "count", detail: String(MAX_SRC_FILES) });
    push(pendings, { file, promise: resolved(file) });
  }
  return pendings;
}

/**
 * program-src: a program pack, fetched like a scenario file (the
 * playground reads it, checks it and says why when it cannot use it);
 * null without the attribute.
 * @param {Element} el
 * @param {number} timeoutMs
 * @returns {Promise<FetchedFile | null>}
 */
export function fetchProgram(el, timeoutMs) {
  const name = trim(el.getAttribute("program-src") || "");
  return name ? fetchScenario(name, timeoutMs) : resolved(null);
}

/**
 * listing-src (any language) and listing-src-<code> (one language): an
 * author's own listings, fetched like scenario files and checked by the
 * playground.
 * @param {Element} el
 * @param {number} timeoutMs
 * @returns {Promise<FetchedListing[]>}
 */
export async function fetchListings(el, timeoutMs) {
  /** @type {Promise<FetchedListing>[]} */
  const pending = [];
  for (let i = -1; i < LANGUAGES.length; i++) {
    const lang = i < 0 ? "" : LANGUAGES[i];
    const name = trim(el.getAttribute(lang ? `listing-src-${lang}` : "listing-src") || "");
    if (name) push(pending, then(fetchScenario(name, timeoutMs), (/** @type {FetchedFile} */ file) => plain({ ...file, lang })));
  }
  // (fetched side by side; each awaited in turn; handed over without a prototype)
  /** @type {FetchedListing[]} */
  const listings = [];
  for (let i = 0; i < pending.length; i++) push(listings, await pending[i]);
  return plain(listings);
}

// @ts-check
// Files an author names on their own site, fetched from it only: src="a.json
// b.json" (scenario files), listing-src / listing-src-<code> (their own
// listings) and program-src (a program pack `agent-loop-cli record` wrote). Each is fetched from this page's origin, follows no redirect,
// stops at MAX_FILE_BYTES and gives up after fetch-timeout; whatever goes
// wrong is a value the playground words, never a throw.
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
  const value = (el.getAttribute("fetch-timeout") || "").trim();
  if (!value) return FETCH_TIMEOUT_MS;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/.exec(value);
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

/**
 * Fetch one file: `{name, text}` or `{name, error, detail}` (error: url,
 * origin, redirect, status, size, timeout or network; the element words
 * it), never a throw. A redirect is not followed: it could lead to another
 * site, and only this page's own site is ever asked.
 * @param {string} name
 * @param {number} timeoutMs
 * @returns {Promise<FetchedFile>}
 */
export async function fetchScenario(name, timeoutMs = FETCH_TIMEOUT_MS) {
  let url;
  try {
    url = new URL(name, document.baseURI);
  } catch {
    return { name, error: "url", detail: "" };
  }
  // (javascript:, data:, blob: … are no file of a site: "not an address", not "another site (null)")
  if (url.protocol !== "http:" && url.protocol !== "https:") return { name, error: "url", detail: "" };
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
    return { name, error: "network", detail: messageOf(error) };
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
  const names = (src || "").split(/\s+/).filter(Boolean);
  const pendings = names.slice(0, MAX_SRC_FILES).map((name) => {
    /** @type {Pending} */
    const pending = { file: null, promise: fetchScenario(name, timeoutMs).then((file) => (pending.file = file)) };
    return pending;
  });
  // (thousands of names would be thousands of requests and notices: the
  // first name left out stands for all of them, in one notice)
  if (names.length > MAX_SRC_FILES) {
    /** @type {FetchedFile} */
    const file = { name: names[MAX_SRC_FILES], error: "count", detail: String(MAX_SRC_FILES) };
    pendings.push({ file, promise: Promise.resolve(file) });
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
  const name = (el.getAttribute("program-src") || "").trim();
  return name ? fetchScenario(name, timeoutMs) : Promise.resolve(null);
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
  const wanted = ["", ...LANGUAGES]
    .map((lang) => [lang, (el.getAttribute(lang ? `listing-src-${lang}` : "listing-src") || "").trim()])
    .filter(([, name]) => name);
  return Promise.all(wanted.map(async ([lang, name]) => ({ ...(await fetchScenario(name, timeoutMs)), lang })));
}

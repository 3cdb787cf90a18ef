// @ts-check
// Every attribute of <agent-loop-playground>, declared once: its name, the
// type of its text, its default and what it does. From this table come
// the element's observedAttributes (`live`), the options the playground is
// built with (`option`: the key src/handle.rs reads), and the attribute
// types in element.d.ts (written from it by `node tests/js/check.mjs
// --write`); tests/js/check.mjs fails when docs/element-api.md's table of
// attributes names one this table does not, or leaves one out.
import { Error } from "./builtins.js";
import { DEFAULT_LANGUAGE, LANGUAGES } from "./languages.js";

/**
 * @typedef {object} Attribute
 * @property {string} name  as written in HTML
 * @property {string} type  its text, as a TypeScript type (element.d.ts)
 * @property {string} default  what the element does without it
 * @property {string} about  what it does, in one line
 * @property {boolean} [live]  read again on every change (observedAttributes); else once, when the element connects
 * @property {string} [option]  handed to the playground under this key (src/handle.rs)
 * @property {"present" | "on"} [flag]  handed over as "1" when present ("on": present and not "off"), else ""
 * @property {boolean} [needsPack]  names what may be in a program's pack: left out when the pack cannot come
 * @property {boolean} [url]  the stand-alone page's URL sets it (page.js: `?name=value`, a flag `?name=1`)
 */

/**
 * An attribute for each language, made by `make` from its code.
 * @param {(code: string) => Attribute} make
 */
function perLanguage(make) {
  /** @type {Attribute[]} */
  const made = [];
  for (let i = 0; i < LANGUAGES.length; i++) made[i] = make(LANGUAGES[i]);
  return made;
}

/**
 * The entries, those made for each language in their place (with loops,
 * not a spread: as the module loads, nothing the page may have broken is
 * called).
 * @param {(Attribute | Attribute[])[]} entries
 * @returns {Attribute[]}
 */
function table(entries) {
  /** @type {Attribute[]} */
  const out = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if ("name" in entry) out[out.length] = entry;
    else for (let j = 0; j < entry.length; j++) out[out.length] = entry[j];
  }
  return out;
}

/** @type {readonly Attribute[]} */
export const ATTRIBUTES = table([
  { name: "function", type: "string", default: "all functions", about: "An entry function (run_loop, agent_loop, …): the picker offers its scenarios.", option: "function", needsPack: true, url: true },
  { name: "program", type: "string", default: "all programs", about: "A program (lesson_one, lesson_two): the picker offers its scenarios.", option: "program", needsPack: true, url: true },
  { name: "compare", type: "string", default: "none", about: "Another loop of the scenario's lesson, run beside it on the same replies.", option: "compare", needsPack: true, url: true },
  { name: "scenario", type: "string", default: "report, error or request, else the function's first", about: "The scenario shown.", live: true, option: "scenario", needsPack: true, url: true },
  { name: "lang", type: "Language | `${Language}-${string}`", default: `the page's <html lang> when the element speaks it, else ${DEFAULT_LANGUAGE}`, about: "The language of the words, captions and listing.", live: true, option: "lang", url: true },
  { name: "breakpoints", type: "string", default: "none", about: "Labels, line numbers or function:line, comma-separated; set again, the list replaces every breakpoint.", live: true, option: "breakpoints", url: true },
  { name: "controls", type: "string", default: "all eight", about: "The command buttons shown, e.g. \"debug,step,continue,back,reset\".", option: "controls", url: true },
  { name: "height", type: "string", default: "the window's height less 290px, from 300px to 560px (340px when the element is narrow); 380px with compact", about: "The tallest the code and figure panels grow: a number (pixels) or px, rem, em, vh.", live: true },
  { name: "compact", type: "\"\" | \"off\"", default: "absent", about: "Present: a smaller layout (\"off\" counts as absent).", option: "compact", flag: "on", url: true },
  { name: "editors", type: "\"off\"", default: "shown", about: "\"off\": the setup panel shows the setup and the entry but no what-if editors.", live: true, url: true },
  { name: "keep-place", type: "\"off\"", default: "kept", about: "\"off\": a client-side navigation back opens afresh, not where the learner was.", },
  { name: "listing", type: "\"python\" | \"rust\"", default: "python", about: "The code shown: the lesson's Python, or the Rust that is recorded.", live: true, option: "listing", url: true },
  { name: "theme", type: "\"auto\" | \"light\" | \"dark\"", default: "auto: the page's color-scheme, else the system's", about: "Light or dark.", live: true, option: "theme", url: true },
  { name: "src", type: "string", default: "none", about: "Scenario files on this site, space-separated: fetched and added to the picker.", live: true },
  { name: "fetch-timeout", type: "string", default: "10 s", about: "How long each file of src and listing-src may take: seconds, \"2.5s\" or \"500ms\", up to 600 s." },
  { name: "program-src", type: "string", default: "none: the built-in lessons", about: "A program pack on this site (agent-loop-cli record): an author's Python recorded by CPython, its scenarios the ones shown (docs/program-format.md).", url: true },
  { name: "listing-src", type: "string", default: "the built-in listing", about: "An author's own Python listing on this site, for any language (docs/listing-format.md)." },
  perLanguage((code) => ({
    name: `listing-src-${code}`, type: "string", default: "listing-src", about: `An author's own Python listing on this site, for ${code}.`,
  })),
  { name: "heading-level", type: "\"1\" | \"2\" | \"3\" | \"4\" | \"5\" | \"6\"", default: "none: panel titles are not headings", about: "Panel titles become headings of this level.", option: "headingLevel" },
  { name: "predict", type: "\"\"", default: "absent", about: "Present: a question before each line that carries one.", live: true, option: "predict", flag: "present", url: true },
  { name: "step", type: "string", default: "not started", about: "The step to open at: a step number or a label; set again, the playground goes there.", live: true, option: "step", url: true },
  { name: "time-budget", type: "string", default: "2 s", about: "How long one recording may run: seconds, \"0.5s\" or \"500ms\".", option: "timeBudget" },
  { name: "memory-budget", type: "string", default: "256 MB", about: "How large one recording may grow: megabytes, \"64MB\".", option: "memoryBudget" },
]);

/** The attributes read again on every change. @type {string[]} */
export const LIVE = [];
/** Each attribute by its name. @type {Record<string, Attribute>} */
const BY_NAME = /** @type {any} */ ({ __proto__: null });
// (with loops: worked out as the module loads, before anything is known of
// what the page broke, this must not call a built-in it could have)
for (let i = 0; i < ATTRIBUTES.length; i++) {
  const attribute = ATTRIBUTES[i];
  if (attribute.live) LIVE[LIVE.length] = attribute.name;
  BY_NAME[attribute.name] = attribute;
}

/**
 * An attribute's value as the playground takes it: its text ("" when
 * absent), or "1"/"" for a flag.
 * @param {Element} el
 * @param {Attribute} attribute
 */
function read(el, { name, flag }) {
  if (flag === "present") return el.hasAttribute(name) ? "1" : "";
  if (flag === "on") return el.hasAttribute(name) && el.getAttribute(name) !== "off" ? "1" : "";
  return el.getAttribute(name) || "";
}

/**
 * The value of the attribute `name` as the playground takes it (a name
 * the table does not have is a mistake: thrown).
 * @param {Element} el
 * @param {string} name
 */
export function valueOf(el, name) {
  const attribute = BY_NAME[name];
  if (!attribute) throw new Error(`agent-loop-playground: no attribute ${name} in www/element/attributes.js`);
  return read(el, attribute);
}

/**
 * The options the playground is built with: every attribute it reads, as
 * given (`withoutPack`: without those that may need a program's pack).
 * @param {Element} el
 * @param {boolean} withoutPack
 * @returns {Record<string, string>}
 */
export function optionsOf(el, withoutPack) {
  /** @type {Record<string, string>} */
  const options = {};
  for (let i = 0; i < ATTRIBUTES.length; i++) {
    const attribute = ATTRIBUTES[i];
    if (attribute.option) options[attribute.option] = withoutPack && attribute.needsPack ? "" : read(el, attribute);
  }
  return options;
}

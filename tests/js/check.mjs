#!/usr/bin/env node
// The page's JavaScript held to the rules the Rust follows, and each fact
// about the element declared once (scripts/check-js runs this after tsc):
//   - every www/ module is type-checked (`// @ts-check` on its first line),
//     under 300 lines, with no function over 80 (tests/sizes.rs for Rust);
//   - the attribute table (www/element/attributes.js) against the docs'
//     table, src/handle.rs's options, element.d.ts's attribute types and
//     the names the element's code reads, and the page's URL parameters
//     the docs name (tests/js/attributes.mjs);
//   - the languages (www/element/languages.js) against the language
//     tables, fixtures/i18n/ and www/data/, and no language code written
//     anywhere else in www/'s JavaScript;
//   - the glue's declared methods (www/types/) against src/handle.rs;
//   - the element's own words (www/element/words.js) against the `element`
//     part of the language tables (tests/js/words.mjs).
//   node tests/js/check.mjs            check; prints each failure, exit 1 on any
//   node tests/js/check.mjs --write    write element.d.ts's attribute types from the table,
//                                      and words.js's words from the language tables
import fs from "node:fs";
import path from "node:path";
import { againstDocs, againstHandle, declared, unknownNames, urlAgainstDocs, writeTypes } from "./attributes.mjs";
import { elementTables, functionName, read, root, syntax, walk, wwwModules } from "./source.mjs";
import { checkWords, writeWords } from "./words.mjs";

const MAX_FILE = 300;
const MAX_FUNCTION = 80;
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

/** Modules over MAX_FILE lines, functions over MAX_FUNCTION, modules not type-checked. */
function sizes(files) {
  const problems = [];
  for (const file of files) {
    const text = read(file);
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > MAX_FILE) problems.push(`${file}: ${lines} lines (at most ${MAX_FILE}: split it by concern)`);
    if (!text.startsWith("// @ts-check\n")) problems.push(`${file}: does not start with // @ts-check (the type check skips it)`);
    walk(syntax(file), (node, parent) => {
      if (!FUNCTIONS.has(node.type)) return;
      const length = node.loc.end.line - node.loc.start.line + 1;
      if (length > MAX_FUNCTION) {
        problems.push(`${file}:${node.loc.start.line}: ${functionName(node, parent)} is ${length} lines (at most ${MAX_FUNCTION})`);
      }
    });
  }
  return problems;
}

/** The codes of fixtures/i18n/*.json, and the language packs of www/data/. */
function languageTables() {
  const tables = fs.readdirSync(path.join(root, "fixtures/i18n")).filter((f) => f.endsWith(".json"));
  const codes = tables.map((f) => JSON.parse(read(`fixtures/i18n/${f}`)).code);
  const packs = fs.readdirSync(path.join(root, "www/data"))
    .map((f) => JSON.parse(read(`www/data/${f}`)))
    .filter((pack) => pack.language)
    .map((pack) => pack.pack);
  return { codes, packs };
}

/** languages.js against the tables; a language code written in another www/ module. */
function languages({ DEFAULT_LANGUAGE, LANGUAGE_PACKS, LANGUAGES }, files) {
  const { codes, packs } = languageTables();
  const problems = [];
  const named = Object.keys(LANGUAGE_PACKS);
  if (!codes.includes(DEFAULT_LANGUAGE)) problems.push(`DEFAULT_LANGUAGE ${DEFAULT_LANGUAGE} has no fixtures/i18n/${DEFAULT_LANGUAGE}.json`);
  if (packs.includes(DEFAULT_LANGUAGE)) problems.push(`www/data/${DEFAULT_LANGUAGE}.json: the default language's table is in the module, not a pack`);
  for (const code of codes) {
    if (code !== DEFAULT_LANGUAGE && !named.includes(code)) problems.push(`fixtures/i18n/${code}.json: ${code} is not in LANGUAGE_PACKS (www/element/languages.js)`);
    if (code !== DEFAULT_LANGUAGE && !packs.includes(code)) problems.push(`fixtures/i18n/${code}.json has no pack www/data/${code}.json (UPDATE_GOLDEN=1 cargo test --test packs writes it)`);
  }
  for (const code of named) if (!codes.includes(code)) problems.push(`LANGUAGE_PACKS names ${code}, which has no fixtures/i18n/${code}.json`);
  const code = new RegExp(`^(${LANGUAGES.join("|")})([-_][a-z]+)?$`, "i");
  const inPattern = new RegExp(`(^|[^a-z])(${LANGUAGES.join("|")})([^a-z]|$)`);
  for (const file of files.filter((f) => f !== "www/element/languages.js")) {
    // (the locale of a number in an English console message is no language of the element's)
    const locales = new Set();
    walk(syntax(file), (node, parent) => {
      if (parent?.type === "CallExpression" && parent.callee.property?.name === "toLocaleString") locales.add(node);
      if (locales.has(node)) return;
      const literal = node.type === "Literal" && typeof node.value === "string" ? node.value : node.type === "TemplateElement" ? node.value.cooked : null;
      const written = (literal !== null && code.test(literal)) || (node.regex && inPattern.test(node.regex.pattern));
      if (written) problems.push(`${file}:${node.loc.start.line}: a language code written out (the languages are www/element/languages.js's)`);
    });
  }
  return problems;
}

/** Methods the glue's declaration names that src/handle.rs does not export. */
function glue() {
  const dts = read("www/types/agent-loop-playground.d.ts");
  const body = dts.split("export class Playground {")[1]?.split("\n}")[0] || "";
  const declaredNames = [...body.matchAll(/^ {2}(?:static )?(\w+)\(/gm)].map((m) => m[1]).filter((n) => n !== "constructor");
  const exported = new Set(["free"]); // (wasm-bindgen's own)
  let jsName = null;
  for (const line of read("src/handle.rs").split("\n")) {
    const named = /js_name = (\w+)/.exec(line);
    if (named) jsName = named[1];
    const fn = /^ {4}pub fn (\w+)/.exec(line);
    if (fn) {
      exported.add(jsName || fn[1]);
      jsName = null;
    }
  }
  return declaredNames.filter((n) => !exported.has(n))
    .map((n) => `www/types/agent-loop-playground.d.ts: Playground.${n} is not a method src/handle.rs exports`);
}

async function main() {
  const tables = await elementTables();
  if (process.argv.includes("--write")) {
    writeTypes(tables.ATTRIBUTES, tables.LANGUAGES);
    writeWords(tables.DEFAULT_LANGUAGE);
    console.log("check-js: wrote the attribute types of www/element.d.ts and the words of www/element/words.js");
  }
  const files = wwwModules();
  const element = files.filter((f) => f === "www/element.js" || f === "www/page.js" || f.startsWith("www/element/"));
  const checks = {
    "module and function sizes": () => sizes(files),
    "attributes against docs/element-api.md": () => againstDocs(tables.ATTRIBUTES),
    "attributes against src/handle.rs": () => againstHandle(tables.ATTRIBUTES),
    "the page's URL parameters against docs/element-api.md": () => urlAgainstDocs(tables.ATTRIBUTES),
    "attributes the code reads": () => unknownNames(tables.ATTRIBUTES, element),
    "attribute types in element.d.ts": () => (declared(tables.ATTRIBUTES, tables.LANGUAGES).stale
      ? ["www/element.d.ts: its attribute types are not the table's (node tests/js/check.mjs --write)"] : []),
    "languages against the language tables": () => languages(tables, files),
    "the glue's methods against src/handle.rs": glue,
    "the element's words against the language tables": () => checkWords(tables.DEFAULT_LANGUAGE),
  };
  let failed = 0;
  for (const [name, check] of Object.entries(checks)) {
    const problems = check();
    if (problems.length) {
      failed++;
      console.log(`FAILED ${name}:\n  ${problems.join("\n  ")}`);
    }
  }
  const total = Object.keys(checks).length;
  console.log(`check-js: ${total - failed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

await main();

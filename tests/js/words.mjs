// The words the element says itself (www/element/words.js): the `element`
// part of each language's table, fixtures/i18n/<code>.json, copied between
// the file's two marker lines. Every table has the default language's keys,
// each word with the same {names}.
import fs from "node:fs";
import path from "node:path";
import { read, root } from "./source.mjs";

const FILE = "www/element/words.js";
const BEGIN = "// ---- words: written from fixtures/i18n/ by `node tests/js/check.mjs --write`; edit the tables, not this\n";
const END = "// ---- end of the words\n";

/** Each table's code and its `element` words, the default language first. */
function tables(DEFAULT_LANGUAGE) {
  const files = fs.readdirSync(path.join(root, "fixtures/i18n")).filter((f) => f.endsWith(".json"));
  const all = files.map((f) => JSON.parse(read(`fixtures/i18n/${f}`))).map((t) => ({ code: t.code, words: t.element }));
  return all.sort((a, b) => (a.code === DEFAULT_LANGUAGE ? -1 : b.code === DEFAULT_LANGUAGE ? 1 : a.code < b.code ? -1 : 1));
}

const names = (word) => [...word.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(",");

/** The tables' problems: a language without the default's words, or with other {names}. */
function problems(all) {
  const [first, ...rest] = all;
  if (!first?.words) return [`fixtures/i18n/${first?.code}.json has no "element" words`];
  const out = [];
  for (const { code, words } of rest) {
    if (!words) {
      out.push(`fixtures/i18n/${code}.json has no "element" words`);
      continue;
    }
    for (const key of Object.keys(first.words)) {
      if (typeof words[key] !== "string") out.push(`fixtures/i18n/${code}.json: element.${key} is missing`);
      else if (names(words[key]) !== names(first.words[key])) out.push(`fixtures/i18n/${code}.json: element.${key} has other {names} than ${first.code}'s`);
    }
    for (const key of Object.keys(words)) if (!(key in first.words)) out.push(`fixtures/i18n/${code}.json: element.${key} is no word of ${first.code}'s`);
  }
  for (const { code } of all) if (!/^[a-z]+$/.test(code)) out.push(`fixtures/i18n/${code}.json: a code words.js cannot hold`);
  return out;
}

/** The part of words.js written from the tables. */
function written(all) {
  const lines = ["/** By language code: the words by key. @type {Record<string, Record<string, string>>} */", "const WORDS = {"];
  for (const { code, words } of all) {
    lines.push(`  ${code}: {`);
    for (const [key, word] of Object.entries(words || {})) lines.push(`    ${key}: ${JSON.stringify(word)},`);
    lines.push("  },");
  }
  lines.push("};");
  return `${BEGIN}${lines.join("\n")}\n${END}`;
}

/** words.js as the tables make it, and whether the file differs. */
function expected(all) {
  const now = read(FILE);
  const start = now.indexOf(BEGIN);
  const end = now.indexOf(END);
  if (start < 0 || end < start) return { text: null, stale: true };
  const text = now.slice(0, start) + written(all) + now.slice(end + END.length);
  return { text, stale: text !== now };
}

/** The check: the tables agree, and words.js holds their words. */
export function checkWords(DEFAULT_LANGUAGE) {
  const all = tables(DEFAULT_LANGUAGE);
  const found = problems(all);
  if (expected(all).stale) found.push(`${FILE}: its words are not the tables' (node tests/js/check.mjs --write)`);
  return found;
}

/** Writes words.js's part from the tables. */
export function writeWords(DEFAULT_LANGUAGE) {
  const { text } = expected(tables(DEFAULT_LANGUAGE));
  if (text === null) throw new Error(`${FILE} has no "${BEGIN.trim()}" … "${END.trim()}" part`);
  fs.writeFileSync(path.join(root, FILE), text);
}

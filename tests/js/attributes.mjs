// The attribute table (www/element/attributes.js) held to everything else
// that names the element's attributes: docs/element-api.md's table,
// src/handle.rs's options, the types element.d.ts gives them (written
// from the table: `--write`), and the names the element's code reads.
import fs from "node:fs";
import path from "node:path";
import { read, root } from "./source.mjs";

const DTS = "www/element.d.ts";
const BEGIN = "// ---- attributes: written from www/element/attributes.js by `node tests/js/check.mjs --write`; edit the table, not this";
const END = "// ---- end of attributes";

/** The rows of the `## Attributes` table in docs/element-api.md: `{names, live}`. */
export function documented() {
  const section = read("docs/element-api.md").split(/^## Attributes$/m)[1]?.split(/^## /m)[0] || "";
  return section.split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const cells = line.split(" | ");
      const names = [...cells[0].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      return { names, live: /every change|always/.test(cells[3] || "") };
    });
}

/** Differences between the table and the docs' table, one line each. */
export function againstDocs(ATTRIBUTES) {
  const rows = documented();
  const docs = new Map(rows.flatMap((row) => row.names.map((name) => [name, row.live])));
  const problems = [];
  for (const a of ATTRIBUTES) {
    if (!docs.has(a.name)) problems.push(`docs/element-api.md's table of attributes does not have ${a.name} (www/element/attributes.js has it)`);
    else if (docs.get(a.name) !== !!a.live) problems.push(`${a.name}: the docs say it is read ${docs.get(a.name) ? "on every change" : "once"}; the table says ${a.live ? "live" : "once"}`);
  }
  for (const name of docs.keys()) {
    if (!ATTRIBUTES.some((a) => a.name === name)) problems.push(`docs/element-api.md names the attribute ${name}, which www/element/attributes.js does not have`);
  }
  if (!rows.length) problems.push("docs/element-api.md has no table under ## Attributes");
  return problems;
}

/** The names in the first column of docs/element-api.md's table of the
 *  page's URL parameters (`predict=1` is predict). */
function urlParameters() {
  const section = read("docs/element-api.md").split(/^### URL parameters of `index.html`$/m)[1]?.split(/^#/m)[0] || "";
  return section.split("\n")
    .filter((line) => line.startsWith("| `"))
    .flatMap((line) => [...line.split(" | ")[0].matchAll(/`([^`=]+)(=[^`]*)?`/g)].map((m) => m[1]));
}

/** The attributes the page's URL sets (`url`) against the docs' table of
 *  URL parameters: the same attributes. */
export function urlAgainstDocs(ATTRIBUTES) {
  const docs = urlParameters();
  const problems = [];
  for (const a of ATTRIBUTES.filter((a) => a.url)) {
    if (!docs.includes(a.name)) problems.push(`docs/element-api.md's URL parameters do not name ${a.name} (www/element/attributes.js marks it url)`);
  }
  for (const name of docs) {
    const a = ATTRIBUTES.find((a) => a.name === name);
    if (a && !a.url) problems.push(`docs/element-api.md's URL parameters name ${name}, which www/element/attributes.js does not mark url`);
  }
  if (!docs.length) problems.push("docs/element-api.md has no table under ### URL parameters of `index.html`");
  return problems;
}

/** The options src/handle.rs reads from what `new Playground` is given. */
function handleOptions() {
  const rust = read("src/handle.rs");
  const keys = [
    ...rust.matchAll(/opt_str\(&options, "([^"]+)"\)/g),
    ...rust.matchAll(/Reflect::get\(&?options, &JsValue::from_str\("([^"]+)"\)\)/g),
  ].map((m) => m[1]);
  return new Set(keys);
}

/** The options the element sets itself (PlaygroundOptions in the glue's types). */
function ownOptions() {
  const dts = read("www/types/agent-loop-playground.d.ts");
  const body = dts.split("interface PlaygroundOptions {")[1]?.split("\n}")[0] || "";
  return [...body.matchAll(/^ {2}(\w+): /gm)].map((m) => m[1]);
}

/** The table's options and the element's own against what handle.rs reads. */
export function againstHandle(ATTRIBUTES) {
  const given = new Set([...ATTRIBUTES.filter((a) => a.option).map((a) => a.option), ...ownOptions()]);
  const reads = handleOptions();
  const problems = [];
  for (const key of given) if (!reads.has(key)) problems.push(`the element hands the playground option ${key}, which src/handle.rs does not read`);
  for (const key of reads) if (!given.has(key)) problems.push(`src/handle.rs reads option ${key}, which no attribute (www/element/attributes.js) nor PlaygroundOptions (www/types/agent-loop-playground.d.ts) gives`);
  return problems;
}

/** Attribute names the element's code reads by their literal name, not in the table. */
export function unknownNames(ATTRIBUTES, files) {
  const known = new Set(ATTRIBUTES.map((a) => a.name));
  const problems = [];
  for (const file of files) {
    for (const m of read(file).matchAll(/\b(?:el|this)\.(?:get|has|set|remove|toggle)Attribute\("([^"]+)"/g)) {
      if (!known.has(m[1])) problems.push(`${file}: reads the attribute ${m[1]}, which www/element/attributes.js does not have`);
    }
  }
  return problems;
}

/** element.d.ts's part written from the table. */
export function typesOf(ATTRIBUTES, LANGUAGES) {
  const quoted = (s) => JSON.stringify(s);
  const members = ATTRIBUTES.map((a) => `  /** ${a.about} Default: ${a.default}. */\n  ${quoted(a.name)}?: ${a.type};`);
  return [
    BEGIN,
    "/** A language the element speaks (www/element/languages.js). */",
    `export type Language = ${LANGUAGES.map(quoted).join(" | ")};`,
    "",
    "/** The element's attributes, as written in HTML (docs/element-api.md#attributes). */",
    "export interface AgentLoopPlaygroundAttributes {",
    ...members,
    "}",
    END,
  ].join("\n");
}

/** element.d.ts as the table says it: `{text, stale}` (stale: differs from the file). */
export function declared(ATTRIBUTES, LANGUAGES) {
  const now = read(DTS);
  const start = now.indexOf(BEGIN);
  const end = now.indexOf(END);
  if (start < 0 || end < start) return { text: null, stale: true };
  const text = now.slice(0, start) + typesOf(ATTRIBUTES, LANGUAGES) + now.slice(end + END.length);
  return { text, stale: text !== now };
}

/** Writes element.d.ts's part from the table. */
export function writeTypes(ATTRIBUTES, LANGUAGES) {
  const { text } = declared(ATTRIBUTES, LANGUAGES);
  if (text === null) throw new Error(`${DTS} has no "${BEGIN}" … "${END}" part`);
  fs.writeFileSync(path.join(root, DTS), text);
}

// Where the page's bytes go: the wasm's code by crate and by function (twiggy
// over a build that keeps function names: wasm-bindgen --keep-debug on
// cargo's output, before wasm-opt, so the shares are indicative and the
// absolute sizes larger than what ships), and the text built into it
// (fixtures, language tables, the listings), by program and language,
// each gzip -9 alone.
//
//   node bench/size-profile.mjs <names.wasm>      prints the profile, writes
//                                                 target/bench-size-profile.json
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const wasm = process.argv[2];
const gz = (buf) => zlib.gzipSync(buf, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** The crate an item belongs to, from its demangled name. */
function crateOf(name) {
  if (name.startsWith("data segment") || name.startsWith("data[")) return "(data)";
  if (name.includes("function names") || name.startsWith("custom section")) return "(names, not shipped)";
  if (/^(import|export|table|elem|type|global|memory)\b/.test(name) || name.startsWith("wasm magic")) return "(wasm sections)";
  const m = name.match(/^<?(?:&(?:mut )?)?([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::/);
  if (m) {
    const c = m[1];
    // The workspace's own crates, by module.
    if (c === "agent_loop_playground" || c === "agent_loop_core") {
      const module = name.match(/^<?&?(?:mut )?agent_loop_[a-z]+(?:\[[0-9a-f]+\])?::([a-z_][a-z0-9_]*)/);
      return `${c}::${module ? module[1] : "?"}`;
    }
    return c;
  }
  const impl = name.match(/^<([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::/);
  if (impl) return impl[1];
  if (/^(wasm_bindgen|__wbg|__wbindgen)/.test(name)) return "wasm_bindgen";
  if (/^(dlmalloc|__rust|__rdl|__rg)/.test(name)) return "alloc (dlmalloc)";
  return "(other)";
}

const profile = { wasm_with_names: null, by_crate: [], top_functions: [], embedded_text: [] };
if (wasm && fs.existsSync(wasm)) {
  let items = [];
  try {
    items = JSON.parse(execFileSync("twiggy", ["top", "-f", "json", wasm], { encoding: "utf8", maxBuffer: 1 << 28 }));
  } catch (error) {
    console.log(`  (twiggy could not read ${wasm}: ${String(error.message).split("\n")[0]})`);
  }
  const shipped = items.filter((i) => crateOf(i.name) !== "(names, not shipped)");
  const total = shipped.reduce((a, i) => a + i.shallow_size, 0);
  const groups = new Map();
  for (const i of shipped) groups.set(crateOf(i.name), (groups.get(crateOf(i.name)) || 0) + i.shallow_size);
  profile.wasm_with_names = { file: path.relative(root, wasm), bytes_without_names: total };
  profile.by_crate = [...groups.entries()].sort((a, b) => b[1] - a[1]).map(([crate, bytes]) => ({ crate, bytes, share: +(bytes / total).toFixed(4) }));
  profile.top_functions = shipped.filter((i) => !i.name.startsWith("data")).slice(0, 15).map((i) => ({ name: i.name.replace(/::h[0-9a-f]{16}$/, ""), bytes: i.shallow_size }));
}
// The text compiled into the module, by program and language, each part
// gzip -9 on its own: what a page showing one program in one language would
// not need of the rest. A scenario is in its program's pack when the pack
// brings it (lesson two's), else in the module; a scenario holds both
// languages.
const read = (rel) => fs.readFileSync(path.join(root, rel));
const minified = (rel) => Buffer.from(JSON.stringify(JSON.parse(read(rel).toString("utf8"))));
// The captions and scenarios a pack brings are not in the module
// (core/build.rs): of its scenarios the module keeps what the picker lists.
const packFiles = fs.readdirSync(path.join(root, "www/data")).filter((f) => f.endsWith(".json")).sort();
const packs = packFiles.map((f) => ({ file: `www/data/${f}`, value: JSON.parse(read(`www/data/${f}`).toString("utf8")) }));
const inPack = new Set(packs.flatMap((p) => Object.keys(p.value.texts || {}).map((k) => k.split("/scenarios/")[1]).filter(Boolean)));
const scenarioText = { lesson_one: [], waiting: [] };
for (const f of fs.readdirSync(path.join(root, "fixtures/scenarios")).filter((f) => f.endsWith(".json")).sort()) {
  const v = JSON.parse(read(`fixtures/scenarios/${f}`).toString("utf8"));
  delete v.expect;
  delete v.notes;
  if (inPack.has(f)) scenarioText.waiting.push(JSON.stringify([f, v.id, v.function, JSON.stringify(v.title)]));
  else scenarioText.lesson_one.push(JSON.stringify(v));
}
const table = (code) => {
  const t = JSON.parse(read(`fixtures/i18n/${code}.json`).toString("utf8"));
  for (const p of packs) for (const key of Object.keys(p.value.captions?.[code] || {})) delete t.captions[key];
  return Buffer.from(JSON.stringify(t));
};
const englishKept = (code) => {
  const t = JSON.parse(read(`fixtures/i18n/${code}.json`).toString("utf8"));
  const words = Object.fromEntries(Object.entries(t.words).filter(([k]) => k.startsWith("check_") || k === "list_sep"));
  return Buffer.from(JSON.stringify({ code: t.code, name: t.name, html_lang: t.html_lang, words, said: {}, captions: {} }));
};
const IN = "module";
// A language whose table is a pack (www/data/<code>.json with `language`) is
// not in the module but for its button's words.
// (every language the tables have: fixtures/i18n/<code>.json)
const languageCodes = fs.readdirSync(path.join(root, "fixtures/i18n")).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();
const languagePacks = new Set(packs.filter((p) => p.value.language).map((p) => p.value.language.code));
const parts = [
  ...languageCodes.filter((code) => !languagePacks.has(code)).map((code) =>
    [IN, "words", code, `fixtures/i18n/${code}.json (less the captions packs bring: the page's words, lesson one's captions)`, table(code)]),
  // (what the module keeps of a language that is a pack: core/build.rs)
  ...[...languagePacks].map((code) => [IN, "words", code, `fixtures/i18n/${code}.json: its check_* words (said in English on any page)`, englishKept(code)]),
  [IN, "lesson_one", "both", `scenarios (${scenarioText.lesson_one.length}, minified, without expect/notes)`, Buffer.from(scenarioText.lesson_one.join(""))],
  [IN, "lesson_one", "—", "core/src/programs/lesson_one/runtime.rs (the Rust listing)", read("core/src/programs/lesson_one/runtime.rs")],
  [IN, "lesson_one", "en", "core/src/programs/lesson_one/runtime.py + entry.py (listing, setup)", Buffer.concat([read("core/src/programs/lesson_one/runtime.py"), read("core/src/programs/lesson_one/entry.py")])],
  [IN, "lesson_one", "zh", "core/src/programs/lesson_one/runtime.zh.py + entry.zh.py", Buffer.concat([read("core/src/programs/lesson_one/runtime.zh.py"), read("core/src/programs/lesson_one/entry.zh.py")])],
  [IN, "lesson_two", "both", `its ${scenarioText.waiting.length} scenarios' ids and titles (the picker lists them)`, Buffer.from(scenarioText.waiting.join(""))],
  ...packs.map((p) => p.value.language
    ? [p.file, "words", p.value.language.code, `${p.file}: its table less lesson two's captions (fetched when the language is first shown)`, read(p.file)]
    : [p.file, p.value.pack, "both", `${p.file}: listings, Rust, setup, captions, scenarios (fetched when first shown)`, read(p.file)]),
];
profile.embedded_text = parts.map(([where, program, lang, name, buf]) => ({ where, program, lang, name, bytes: buf.length, gzip: gz(buf) }));

console.log("\nsize profile (where the bytes go)");
if (profile.wasm_with_names) {
  console.log(`  wasm by crate/module (${profile.wasm_with_names.file}, before wasm-opt: ${kb(profile.wasm_with_names.bytes_without_names)} without names)`);
  for (const g of profile.by_crate.slice(0, 16)) console.log(`    ${g.crate.padEnd(40)} ${kb(g.bytes).padStart(9)}  ${(g.share * 100).toFixed(1).padStart(5)} %`);
  console.log("  largest functions");
  for (const f of profile.top_functions.slice(0, 10)) console.log(`    ${String(f.bytes).padStart(7)} B  ${f.name.slice(0, 90)}`);
} else {
  console.log("  (no wasm with names: the code profile is skipped)");
}
console.log("  text, by program and language (gzip -9 of each part alone): in the module, or a pack fetched on demand");
for (const p of profile.embedded_text) console.log(`    ${p.program.padEnd(10)} ${p.lang.padEnd(4)} ${p.name.slice(0, 70).padEnd(70)} ${kb(p.bytes).padStart(9)}  gzip ${kb(p.gzip).padStart(8)}`);
const sum = (keep) => profile.embedded_text.filter(keep).reduce((a, p) => a + p.gzip, 0);
console.log(`    in the module: ${kb(sum((p) => p.where === IN))}, of which a lesson-one page in zh needs ${kb(sum((p) => p.where === IN && (p.program === "lesson_one" || p.program === "words") && (p.lang !== "en" || p.name.includes("check_"))))}; on demand: ${kb(sum((p) => p.where !== IN))}`);
fs.mkdirSync(path.join(root, "target"), { recursive: true });
fs.writeFileSync(path.join(root, "target/bench-size-profile.json"), JSON.stringify(profile, null, 2));

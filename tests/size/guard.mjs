// The release module must not grow back the code ARCHITECTURE.md's size
// rules keep out: it reads the function names of the module Trunk built
// (wasm-bindgen again with --keep-debug, so the names stay) and fails on
// the standard library's sort, float formatting or B-tree removal, and
// prints the shipped module's gzip size.
//
//   node tests/size/guard.mjs        (after `trunk build --release`)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const built = path.join(root, "target/wasm32-unknown-unknown/wasm-release/agent-loop-playground.wasm");
const out = path.join(root, "target/size-guard");
execFileSync("wasm-bindgen", ["--target", "web", "--out-dir", out, "--out-name", "m", "--keep-debug", "--no-typescript", built]);
const bytes = fs.readFileSync(path.join(out, "m_bg.wasm"));

/** Every function name in the module's "name" section. */
function functionNames(wasm) {
  let p = 8;
  const leb = () => { let r = 0, s = 0, b; do { b = wasm[p++]; r |= (b & 127) << s; s += 7; } while (b & 128); return r >>> 0; };
  const str = () => { const n = leb(); const t = wasm.subarray(p, p + n).toString("utf8"); p += n; return t; };
  const names = [];
  while (p < wasm.length) {
    const id = wasm[p++];
    const size = leb();
    const end = p + size;
    if (id === 0 && str() === "name") {
      while (p < end) {
        const sub = wasm[p++];
        const subEnd = leb() + p;
        if (sub === 1) for (let n = leb(); n > 0; n--) { leb(); names.push(str()); }
        p = subEnd;
      }
    }
    p = end;
  }
  return names;
}

const names = functionNames(bytes);
if (names.length < 100) {
  console.log(`size guard: only ${names.length} function names found: is the name section there?`);
  process.exit(1);
}
const rules = [
  ["the standard library's sort (use vocab::sort_small*)", /core::slice::sort::/],
  ["float formatting, a {} of an f64 (use vocab::Decimal)", /fmt::float::float_to_decimal/],
  ["B-tree removal, a remove/retain on a map or set (build a new one)", /btree::remove|BalancingContext/],
];
let failed = false;
for (const [what, pattern] of rules) {
  const found = names.filter((n) => pattern.test(n));
  console.log(`size guard: ${found.length ? "FAIL" : "ok  "} no ${what}${found.length ? `: ${found.length} functions, e.g. ${found[0]}` : ""}`);
  failed ||= found.length > 0;
}
const shipped = fs.readFileSync(path.join(root, "dist/agent-loop-playground_bg.wasm"));
console.log(`size guard: dist wasm ${shipped.length} B, gzip -9 ${zlib.gzipSync(shipped, { level: 9 }).length} B (${names.length} functions)`);
process.exit(failed ? 1 : 0);

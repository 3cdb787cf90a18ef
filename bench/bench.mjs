// Browser half of bench/run. Prints figures, writes docs/bench/results.json
// and docs/bench/chart.svg. Medians over several runs; machines here are
// noisy, so budgets are reported, never asserted.
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import { serve } from "../tests/e2e/server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const nativeText = fs.existsSync(process.argv[2] || "") ? fs.readFileSync(process.argv[2], "utf8") : "";
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

// 1. Transfer size: every file the page loads, gzip -9.
// dist/ is the page as shipped (transfer, first render); dist-bench/ is the
// same page built with the `bench` feature (a heap counter) for the rest.
const server = await serve([["/bench/", path.join(root, "dist-bench")], ["/", dist]]);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--js-flags=--expose-gc"],
});
const loaded = new Set();
{
  const page = await browser.newPage();
  page.on("request", (r) => loaded.add(new URL(r.url()).pathname));
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => document.querySelector("agent-loop-playground")?.ready);
  await page.close();
}
const files = {};
for (const p of [...loaded].sort()) {
  const file = path.join(dist, p === "/" ? "index.html" : p.slice(1));
  if (!fs.existsSync(file)) continue;
  const raw = fs.readFileSync(file);
  files[p] = { bytes: raw.length, gzip: zlib.gzipSync(raw, { level: 9 }).length };
}
const totalGzip = Object.values(files).reduce((a, f) => a + f.gzip, 0);

// 2. Navigation → first rendered snapshot (listing + figure in the DOM).
const firstRender = [];
for (let i = 0; i < 7; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (document.querySelector('agent-loop-playground svg[data-role="record"]') && document.querySelector(".alp-row")) {
        window.__firstRender = performance.now();
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => window.__firstRender !== undefined);
  firstRender.push(await page.evaluate(() => window.__firstRender));
  await context.close();
}

// 3. Step latency (command → DOM updated, layout included) at step 1 and at
//    step 100,000 of a 10,000-call loop; 4. recording that loop in the browser.
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
await page.goto(`${server.origin}/bench/index.html?scenario=report`);
await page.waitForFunction(() => document.querySelector("agent-loop-playground")?.ready);
const stepTimes = async (at) => page.evaluate((at) => {
  const el = document.querySelector("agent-loop-playground");
  el.command("reset");
  if (at > 0) el.command("stepInto");
  // Warm up first: the figure is for a page in use, not the JIT's first pass.
  for (let i = 0; i < 100; i++) el.command(i % 2 ? "back" : "stepInto");
  const times = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    el.command(i % 2 ? "back" : "stepInto");
    void el.shadowRoot.querySelector('svg[data-role="record"]').getBoundingClientRect().height; // force layout
    times.push(performance.now() - t0);
  }
  return times;
}, at);
const short = await stepTimes(1);
const recording = await page.evaluate(async () => {
  const { wasmMemoryBytes } = await import("./element.js");
  // The heap counter exists only in the bench build (cargo feature `bench`).
  const glue = await import("./agent-loop-playground.js");
  const heapBytes = () => (glue.heapBytes ? glue.heapBytes() : NaN);
  const el = document.querySelector("agent-loop-playground");
  const before = await wasmMemoryBytes();
  const heapBefore = heapBytes();
  const id = el.addScenario({ id: "bench-10k", function: "run_loop", title: { zh: "一万次", en: "10,000 calls" }, max_calls: 10000,
    model: [], process: { returncode: 1, stdout: "", stderr: "ZeroDivisionError: division by zero\n" } });
  let n = 0;
  el.model = () => ({ stop_reason: "tool_use", content: [{ type: "tool_use", id: `call_${++n}`, name: "run_main", input: {} }] });
  const t0 = performance.now();
  el.load(id);
  const ms = performance.now() - t0;
  const after = await wasmMemoryBytes();
  return { ms, steps: el.state().steps, status: el.outcome().result.status, memoryGrowth: after - before, heapRetained: heapBytes() - heapBefore };
});
const long = await page.evaluate(() => {
  const el = document.querySelector("agent-loop-playground");
  const times = [];
  el.command("stepInto");
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    if (i === 0) el._need().seek(100000);
    else el.command(i % 2 ? "back" : "stepInto");
    void el.shadowRoot.querySelector('svg[data-role="record"]').getBoundingClientRect().height;
    times.push(performance.now() - t0);
  }
  return { times: times.slice(1), at: el.state().step, cards: el.shadowRoot.querySelectorAll('svg[data-role="record"] [data-message-index]').length, recordLength: el.state().recordLength };
});
await browser.close();
server.close();

const native = {};
for (const [key, re] of [["steps", /steps\s+(\d+)/], ["record_ms", /record time\s+([\d.]+) ms/], ["bytes_per_step", /bytes per step\s+(\d+)/], ["ns_per_step", /time per step\s+(\d+)/]]) {
  const m = nativeText.match(re);
  if (m) native[key] = Number(m[1]);
}

const results = {
  date: new Date().toISOString(),
  transfer: { total_gzip_bytes: totalGzip, budget_bytes: 120 * 1024, files },
  first_render_ms: { median: round(median(firstRender)), runs: firstRender.map((x) => round(x)), budget: 150 },
  step_latency_ms: {
    at_step_1: { p50: round(pct(short, 0.5), 3), p95: round(pct(short, 0.95), 3) },
    at_step_100000: { p50: round(pct(long.times, 0.5), 3), p95: round(pct(long.times, 0.95), 3), position: long.at, record_length: long.recordLength, cards_drawn: long.cards },
    budget_p95: 4,
  },
  browser_record_10000_calls: { ms: round(recording.ms), steps: recording.steps, status: recording.status,
    wasm_memory_growth_bytes: recording.memoryGrowth, peak_bytes_per_step: round(recording.memoryGrowth / recording.steps, 1),
    heap_retained_bytes: recording.heapRetained, bytes_per_step: round(recording.heapRetained / recording.steps, 1), budget_ms: 1000, budget_bytes_per_step: 200 },
  native_record_10000_calls: native,
};
fs.mkdirSync(path.join(root, "docs/bench"), { recursive: true });
fs.writeFileSync(path.join(root, "docs/bench/results.json"), JSON.stringify(results, null, 2) + "\n");

// A small bar chart: measured / budget for each figure (1.0 = on budget).
const bars = [
  ["transfer (gzip KB)", totalGzip / 1024, 120],
  ["first render (ms)", median(firstRender), 150],
  ["step p95 @1 (ms)", pct(short, 0.95), 4],
  ["step p95 @100k (ms)", pct(long.times, 0.95), 4],
  ["record 10k calls (ms)", recording.ms, 1000],
  ["bytes / step (retained)", recording.heapRetained / recording.steps, 200],
  ["bytes / step (peak memory)", recording.memoryGrowth / recording.steps, 200],
];
const W = 720, rowH = 34, x0 = 200, scaleW = 380;
let svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${bars.length * rowH + 50}" font-family="sans-serif" font-size="12">`;
svg += `<text x="10" y="18" font-weight="bold">Agent Loop Playground — measured vs budget (bar end = measured, line = budget)</text>`;
bars.forEach(([label, value, budget], i) => {
  const y = 32 + i * rowH;
  const ratio = value / budget;
  const w = Math.min(ratio, 2) / 2 * scaleW;
  const colour = ratio <= 1 ? "#1b6e3a" : "#b3261e";
  svg += `<text x="10" y="${y + 16}">${label}</text>`;
  svg += `<rect x="${x0}" y="${y + 4}" width="${w.toFixed(1)}" height="16" fill="${colour}"/>`;
  svg += `<line x1="${x0 + scaleW / 2}" x2="${x0 + scaleW / 2}" y1="${y}" y2="${y + 24}" stroke="#333" stroke-dasharray="3 2"/>`;
  svg += `<text x="${x0 + scaleW + 8}" y="${y + 16}">${round(value, 1)} / ${budget}</text>`;
});
svg += `</svg>\n`;
fs.writeFileSync(path.join(root, "docs/bench/chart.svg"), svg);

console.log("\nbrowser (headless Chromium, 127.0.0.1)");
console.log(`  transfer, gzip total   ${(totalGzip / 1024).toFixed(1)} KB (budget 120 KB)`);
for (const [p, f] of Object.entries(files)) console.log(`    ${p.padEnd(48)} ${String(f.bytes).padStart(8)} B  gzip ${String(f.gzip).padStart(7)} B`);
console.log(`  first rendered snapshot ${round(median(firstRender), 1)} ms median of ${firstRender.length} (budget 150 ms)`);
console.log(`  step latency @1        p50 ${round(pct(short, 0.5), 3)} ms  p95 ${round(pct(short, 0.95), 3)} ms (budget p95 4 ms)`);
console.log(`  step latency @${long.at}  p50 ${round(pct(long.times, 0.5), 3)} ms  p95 ${round(pct(long.times, 0.95), 3)} ms  (record ${long.recordLength}, cards drawn ${long.cards})`);
console.log(`  record 10,000 calls    ${round(recording.ms, 0)} ms, ${recording.steps} steps, ${recording.status} (budget 1000 ms)`);
console.log(`  heap retained          ${(recording.heapRetained / 1e6).toFixed(1)} MB = ${round(recording.heapRetained / recording.steps, 1)} bytes/step (budget 200)`);
console.log(`  wasm memory growth     ${(recording.memoryGrowth / 1e6).toFixed(1)} MB = ${round(recording.memoryGrowth / recording.steps, 1)} bytes/step at peak (linear memory never shrinks)`);
console.log("wrote docs/bench/results.json and docs/bench/chart.svg");

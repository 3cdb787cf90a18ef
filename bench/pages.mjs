// The pages a course shows, each loaded cold (bench/bench.mjs): the
// stand-alone page on lesson one (the bare page: its first view, painted
// with the HTML), on lesson two (its pack fetched), in English (its table
// fetched), and on a recorded program (an author's Python, its pack
// fetched). For each: navigation → first rendered snapshot, → the player
// ready, the phases of the load, and the bytes fetched by the first
// snapshot and in all (gzip -9 of the files served).
import fs from "node:fs";
import zlib from "node:zlib";

/** The recorded program the bench loads: served at /examples/ (bench.mjs's mounts). */
export const RECORDED_PACK = "examples/lesson-three/lesson-three.pack.json";

/** Each page: its key in results.json, what it is, its address. */
export const PAGES = [
  { key: "lesson_one", label: "lesson one", about: "the bare page: its first view is in the HTML", path: "/index.html" },
  { key: "lesson_two", label: "lesson two", about: "`?scenario=core-weather`: its pack fetched", path: "/index.html?scenario=core-weather" },
  { key: "english", label: "English", about: "`?lang=en`: its table fetched", path: "/index.html?lang=en" },
  { key: "recorded", label: "a recorded program", about: `\`?program-src=${RECORDED_PACK}\``, path: `/index.html?program-src=${RECORDED_PACK}` },
];

/**
 * Watches the first playground from the first frame (in the page, before
 * its scripts): "first snapshot" is the moment its listing and figure are
 * in the DOM and shown, whether the element drew them or the HTML parser
 * attached them (a first view, shown only in an element as wide as it is
 * drawn for); "painted", the end of the next frame. A shadow root is
 * watched from when the element attaches it, or from the first frame
 * that finds it (the parser attached it: the element draws into it).
 */
function watchFirstSnapshot() {
  const painted = () => requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { window.__painted ??= performance.now(); };
    channel.port2.postMessage(0);
  });
  // (a first view counts in a frame only: a page may drop it in the task
  // that parsed it, before any frame, as the stand-alone page does for a
  // link with a query; a mutation's callback would see it in between)
  const look = (shadow, inFrame) => {
    if (window.__firstRender !== undefined || !shadow.querySelector('svg[data-role="record"]')) return;
    const first = shadow.querySelector(".alp-root[data-first]") !== null;
    // (of a first view's two boxes, the one shown at this width, if any)
    const box = first ? [...shadow.querySelectorAll(".alp-root")].find((b) => inFrame && b.checkVisibility()) : shadow;
    if (!box?.querySelector(".alp-row")) return;
    window.__firstRender = performance.now();
    window.__firstView = first;
    painted();
  };
  const watched = new WeakSet();
  const watch = (shadow) => {
    if (watched.has(shadow)) return;
    watched.add(shadow);
    new MutationObserver(() => look(shadow, false)).observe(shadow, { childList: true, subtree: true });
  };
  const poll = () => {
    const shadow = document.querySelector("agent-loop-playground")?.shadowRoot;
    if (shadow) {
      watch(shadow);
      look(shadow, true);
    }
    if (window.__firstRender === undefined) requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (options) {
    const shadow = attach.call(this, options);
    if (this.localName === "agent-loop-playground") watch(shadow);
    return shadow;
  };
}

/** What one cold load measured, in the page (ms after navigation). */
function measured() {
  const nav = performance.getEntriesByType("navigation")[0];
  const mark = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
  const resources = performance.getEntriesByType("resource");
  const wasm = resources.find((e) => e.name.endsWith(".wasm"));
  const first = window.__firstRender;
  return {
    first,
    ready: mark("alp:ready"),
    firstView: window.__firstView === true,
    // The files the browser had by the first snapshot (the page's own address among them),
    fetchedByFirst: [location.href, ...resources.filter((e) => e.responseEnd <= first).map((e) => e.name)],
    // and those it needed for it: a first view needs the HTML and the stylesheets
    // (page.css blocks the page's first paint; first-view.css shows the view).
    neededByFirst: [location.href, ...resources.filter((e) => e.responseEnd <= first && (window.__firstView !== true || /\.css$/.test(new URL(e.name).pathname))).map((e) => e.name)],
    phases: {
      html: nav.responseEnd,
      dom_interactive: nav.domInteractive,
      wasm_downloaded: wasm ? wasm.responseEnd : NaN,
      wasm_start: mark("alp:wasm-start"),
      wasm_ready: mark("alp:wasm-ready"),
      constructed: mark("alp:ready"),
      first_snapshot: first,
      painted: window.__painted,
    },
  };
}

/** One cold load of `url` in a fresh browser context (an empty cache). */
export async function coldLoad(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(watchFirstSnapshot);
  await page.goto(url);
  await page.waitForFunction(() => window.__painted !== undefined);
  // (and the player ready: the first Step is answered from then on)
  await page.waitForFunction(() => performance.getEntriesByName("alp:ready").length > 0);
  const ms = await page.evaluate(measured);
  await context.close();
  return ms;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * A page's figures from its cold loads and its transfer (bench.mjs's
 * `transfer`): `fileFor` finds the file the server answered a path with.
 */
export function figures(page, runs, transfer, fileFor) {
  const gzip = new Map();
  const gzipOf = (href) => {
    const pathname = new URL(href).pathname;
    if (!gzip.has(pathname)) {
      const file = fileFor(pathname);
      gzip.set(pathname, file && fs.existsSync(file) ? zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length : 0);
    }
    return gzip.get(pathname);
  };
  const sum = (hrefs) => [...new Set(hrefs)].reduce((total, href) => total + gzipOf(href), 0);
  const byFirst = runs.map((r) => sum(r.fetchedByFirst)), needed = runs.map((r) => sum(r.neededByFirst));
  const phases = Object.fromEntries(Object.keys(runs[0].phases).map((k) => [k, round(median(runs.map((r) => r.phases[k])))]));
  return {
    page: page.label,
    about: page.about,
    path: page.path,
    first_snapshot_ms: { median: round(median(runs.map((r) => r.first)), 2), runs: runs.map((r) => round(r.first, 2)) },
    ready_ms: { median: round(median(runs.map((r) => r.ready)), 2), runs: runs.map((r) => round(r.ready, 2)) },
    first_view: runs.every((r) => r.firstView),
    phases_median: phases,
    transfer: {
      needed_by_first_snapshot_gzip_bytes: median(needed),
      needed_means: "its first view: the HTML and its stylesheets; else every file fetched by then",
      fetched_by_first_snapshot_gzip_bytes: median(byFirst),
      total_gzip_bytes: transfer.totalGzip,
      requests: transfer.requests,
      files: transfer.files,
    },
  };
}

/** Each page's phases as the README says them (a Markdown list). */
export function phaseList(pages) {
  return Object.values(pages).map((p) =>
    `- ${p.page}: ${Object.entries(p.phases_median).map(([k, v]) => `${k.replaceAll("_", " ")} ${Math.round(v)}`).join(" · ")}`);
}

/** The lines bench/run prints for the pages. */
export function printed(pages, kb) {
  const lines = ["  pages (cold loads, medians; ms after navigation)"];
  for (const p of Object.values(pages)) {
    const t = p.transfer;
    lines.push(`    ${`${p.page} (${p.about})`.padEnd(78)} first snapshot ${p.first_snapshot_ms.median} ms${p.first_view ? " (its first view)" : ""}, player ready ${p.ready_ms.median} ms; ${kb(t.needed_by_first_snapshot_gzip_bytes)} needed for the first snapshot (${kb(t.fetched_by_first_snapshot_gzip_bytes)} fetched by then), ${kb(t.total_gzip_bytes)} in all (${t.requests} requests)`);
    lines.push(`      ${Object.entries(p.phases_median).map(([k, v]) => `${k.replaceAll("_", " ")} ${v}`).join(" · ")}`);
  }
  return lines;
}

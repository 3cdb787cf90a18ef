// Shared by every spec: the `test` with the per-test checks, the DOM selectors
// (change the markup → edit here), and small helpers over the element API.
import { test as base, expect } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export { expect };
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

// ---- Selectors ------------------------------------------------------------
/** The custom element; `scope` arguments below default to it. */
export const EL = "agent-loop-playground";
export const SEL = {
  code: ".alp-code", // the listing panel (focusable)
  row: ".alp-row", // one listing row: data-function, data-line, <code>
  rowCode: "code",
  instr: ".alp-instr", // tracing rows (hidden unless revealed)
  revealBox: ".alp-reveal-box",
  select: ".alp-select", // the scenario picker
  optgroup: ".alp-select optgroup",
  enabledOption: ".alp-select option:not([disabled])",
  captionTitle: ".alp-caption-title",
  live: ".alp-live",
  lower: ".alp-lower",
  problems: ".alp-problems",
  currentRow: '[aria-current="step"]',
  recordCards: 'svg[data-role="record"] [data-message-index]',
  anyCommand: "[data-command]",
  // Elements that data must never create inside the playground.
  markupFromData: ["script", "img", "b", "i"],
};
/** `sel` inside `scope` (the element by default; "" for none, e.g. inside the iframe). */
export const inside = (sel, scope = EL) => (scope ? `${scope} ${sel}` : sel);
/** A control button: debug, step, continue, run, … */
export const command = (name, scope = EL) => inside(`[data-command="${name}"]`, scope);
/** The breakpoint button of a listing line (the listing shows one function at a time). */
export const bp = (line, fn, scope = EL) => inside(`.alp-bp${fn ? `[data-function="${fn}"]` : ""}[data-line="${line}"]`, scope);
/** On a phone the code and the record share one panel: show `which`
 *  ("record" or "code") by its switch; nothing to do where both show. */
export async function showView(page, which, scope = EL) {
  const button = page.locator(inside(`.alp-view[data-view="${which}"]`, scope));
  if (await button.isVisible()) await button.click();
}
/** A language button. */
export const langButton = (lang, scope = EL) => inside(`[data-lang="${lang}"]`, scope);

/** The course example page (three playgrounds and an iframe). */
export const COURSE = {
  path: "/course/lesson/",
  ask: "#demo-ask",
  main: "#demo-main",
  loop: "#demo-loop",
  frame: "#demo-frame",
  assets: "/course/assets/alp/",
  wasm: "/course/assets/alp/agent-loop-playground_bg.wasm",
};

// ---- The test, with the old runner's per-test checks -----------------------
/** Origin of the server started by global-setup.mjs. */
export const origin = () => {
  const o = process.env.ALP_E2E_ORIGIN;
  if (!o) throw new Error("ALP_E2E_ORIGIN is not set: run through `npx playwright test` (global-setup.mjs)");
  return o;
};

export const test = base.extend({
  baseURL: async ({}, use) => use(origin()),
  /** Every URL the page requested (frames included), in order. */
  requests: async ({}, use) => use([]),
  /** Console errors/warnings and page errors; the test fails on any. */
  problems: async ({}, use) => use([]),
  page: async ({ page, requests, problems }, use, testInfo) => {
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console.${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("request", (r) => requests.push(r.url()));
    await use(page);
    if (problems.length) await testInfo.attach("problems", { body: problems.join("\n"), contentType: "text/plain" });
    expect(problems, "no console errors or warnings").toEqual([]);
    const foreign = requests.filter((u) => !u.startsWith(origin()) && !u.startsWith("data:"));
    expect(foreign, "every request stays on the page's origin").toEqual([]);
  },
});

/** A `test` for a spec that serves its own site (`origin()` gives its
 *  origin once started): any console error or warning, page error, failed
 *  request, HTTP error or request that leaves that origin fails the test.
 *  `aborted`: a navigation cut short by the next one is not a failure. */
export function strictTest(origin, { aborted = false } = {}) {
  return base.extend({
    problems: async ({}, use) => use([]),
    page: async ({ page, problems }, use) => {
      page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") problems.push(`console.${m.type()}: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      page.on("requestfailed", (r) => {
        if (!(aborted && r.failure()?.errorText === "net::ERR_ABORTED")) problems.push(`failed: ${r.url()} (${r.failure()?.errorText})`);
      });
      page.on("response", (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
      page.on("request", (r) => {
        const u = r.url();
        // (a blob: URL the page made itself is of its own origin)
        if (!u.startsWith(origin()) && !u.startsWith(`blob:${origin()}`) && !u.startsWith("data:")) problems.push(`foreign request: ${u}`);
      });
      await use(page);
      expect(problems, "no console error, failed or foreign request").toEqual([]);
    },
  });
}

// ---- Helpers ----------------------------------------------------------------
/** Opens the stand-alone page (`query` like "?scenario=report&lang=en") and waits for the element. */
export async function open(page, query = "", { settled = true } = {}) {
  await page.goto(`/index.html${query}`);
  await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL, { timeout: 15000 });
  if (settled) await packsIn(page);
}
/** Opens the course page under its sub-path and waits for every playground. */
export async function openCourse(page) {
  await page.goto(COURSE.path);
  await page.waitForFunction((el) => [...document.querySelectorAll(el)].every((e) => e.ready), EL, { timeout: 15000 });
  await packsIn(page);
}
/** Waits until no playground waits for a program's pack: a slow one (a
 *  busy machine) opens the element without it after a grace, dimmed
 *  (aria-busy), and builds it again when it comes. */
const packsIn = (page) =>
  page.waitForFunction(
    (el) => [...document.querySelectorAll(el)].every((e) => !e.shadowRoot?.querySelector(".alp-root[aria-busy]")),
    EL,
    { timeout: 15000 },
  );
/** Opens a minimal course page (/host.html, `lang`) and places one element
 *  made from `attributes` in it, after the element is ready. Files the
 *  element fetches are the caller's routes. */
export async function placeOnHost(page, baseURL, attributes, lang = "en") {
  await page.route(`${baseURL}/host.html`, (route) =>
    route.fulfill({ contentType: "text/html", body: `<!doctype html><html lang="${lang}"><title>Course</title><body><main id="slot"></main>` }));
  await page.goto("/host.html");
  await page.evaluate(async (attributes) => {
    await import("./element.js");
    const el = document.createElement("agent-loop-playground");
    for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v);
    document.querySelector("#slot").append(el);
    await new Promise((ok) => el.addEventListener("playground-ready", ok, { once: true }));
  }, attributes);
}
/** el.state() of the first element matching `sel`. */
export const state = (page, sel = EL) => page.$eval(sel, (e) => e.state());
/** Number of message cards in the record figure. */
export const cards = (page, sel = EL) => page.$$eval(`${sel} ${SEL.recordCards}`, (g) => g.length);
/** The displayed line number of the first `fn` row whose code contains `needle` (null if none). */
export async function lineOf(page, fn, needle) {
  return page.$$eval(
    `${EL} ${SEL.row}[data-function="${fn}"]`,
    (rows, [needle, codeSel]) => {
      const row = rows.find((r) => r.querySelector(codeSel).textContent.includes(needle));
      return row ? Number(row.dataset.line) : null;
    },
    [needle, SEL.rowCode],
  );
}
/** The highlighted (current) row: {fn, line}. */
export const current = (page) =>
  page.$eval(`${EL} ${SEL.currentRow}`, (r) => ({ fn: r.dataset.function, line: Number(r.dataset.line) }));
/** aria-pressed of a breakpoint button. */
export const pressed = (page, line, fn) => page.getAttribute(bp(line, fn), "aria-pressed");

const axeSource = () => fs.readFileSync(path.join(root, "node_modules/axe-core/axe.min.js"), "utf8");
/** Runs axe-core on the whole document; returns the violations as short lines. Needs bypassCSP. */
export async function axe(page) {
  await page.evaluate(axeSource());
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
}

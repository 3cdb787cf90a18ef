// A host page that breaks the built-ins the element and its doubles call
// (issue 46, break 11), one row of the table at a time:
//   - after the element is ready, a run of `report`, a lesson-two scenario
//     (whose pack, data/lesson_two.json, is fetched then) and a switch to
//     English (data/en.json) give what they give on a page nobody broke; a
//     row the element cannot survive says what failed in the element;
//   - before the element's module loads (an init script), the element
//     works as usual or says, inside itself and in the reader's language,
//     what failed: never empty, never an uncaught error, nothing in the
//     host page's body.
// Each sabotage is JavaScript run in the page (its own helpers below): an
// expression that breaks something and evaluates to what mends it.
import { test as base, expect } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";
import { EL, SEL, inside, origin, root } from "./helpers.mjs";

/** The words the element says itself, in a language (fixtures/i18n/<code>.json's `element`). */
const words = (code) => JSON.parse(fs.readFileSync(path.join(root, `fixtures/i18n/${code}.json`), "utf8")).element || {};
/** The fixed start of a word (before its first placeholder). */
const lead = (word) => (word || "(no such word)").split("{")[0];

// In the page: put(target, key, value) replaces a property and returns what
// puts it back; broken(target, key, name) replaces it with a function that
// throws "<name> is broken on this page".
const HELPERS = `
  const keep = { define: Object.defineProperty, describe: Object.getOwnPropertyDescriptor, Error };
  const put = (target, key, value) => {
    const was = keep.describe(target, key);
    keep.define(target, key, { value, writable: true, configurable: true, enumerable: was ? was.enumerable : false });
    return () => (was ? keep.define(target, key, was) : delete target[key]);
  };
  const thrower = (name) => function () { throw new keep.Error(name + " is broken on this page"); };
  const broken = (target, key, name) => put(target, key, thrower(name));
`;

/**
 * Each row: the built-in (`name`: what the element names when it fails),
 * the expression that breaks it (`breaks`), how when it does not throw
 * (`how`), and `unsurvivable` for a row no element can run through after
 * it is ready: then it says what failed instead.
 */
/** A row that breaks `owner.key` (the page's own, as a page would). */
const method = (owner, key) => ({ name: `${owner}.${key}`, breaks: `broken(${owner}, "${key}", "${owner}.${key}")` });

const SABOTAGES = [
  method("JSON", "parse"),
  method("JSON", "stringify"),
  method("Array", "isArray"),
  method("Array.prototype", "map"),
  method("Array.prototype", "forEach"),
  method("Array.prototype", "push"),
  method("Array.prototype", "includes"),
  method("Array.prototype", "filter"),
  method("Array.prototype", "slice"),
  method("Array.prototype", "join"),
  method("Object", "keys"),
  method("Object", "entries"),
  method("Object", "assign"),
  method("Object", "defineProperty"),
  method("Object", "freeze"),
  method("Object", "getPrototypeOf"),
  method("Object", "hasOwn"),
  // (set as a page would: an enumerable property every object inherits)
  { name: "Object.prototype.then", how: "never calls back", unsurvivable: true, breaks: `(() => { Object.prototype.then = function () {}; return () => { delete Object.prototype.then; }; })()` },
  { name: "Object.prototype.then", how: "throws", unsurvivable: true, breaks: `(() => { Object.prototype.then = thrower("Object.prototype.then"); return () => { delete Object.prototype.then; }; })()` },
  method("Promise.prototype", "then"),
  method("Promise.prototype", "catch"),
  method("Promise", "resolve"),
  method("Promise", "all"),
  method("Promise", "race"),
  method("String.prototype", "split"),
  method("String.prototype", "trim"),
  method("String.prototype", "toLowerCase"),
  method("String.prototype", "slice"),
  method("String.prototype", "replace"),
  method("String.prototype", "charCodeAt"),
  method("RegExp.prototype", "test"),
  method("Reflect", "apply"),
  method("Reflect", "get"),
  method("Reflect", "set"),
  method("Reflect", "getOwnPropertyDescriptor"),
  method("Function.prototype", "call"),
  method("Function.prototype", "apply"),
  { name: "Map", breaks: `put(globalThis, "Map", thrower("Map"))` },
  { name: "Set", breaks: `put(globalThis, "Set", thrower("Set"))` },
  method("Map.prototype", "get"),
  method("Set.prototype", "add"),
  { name: "fetch", breaks: `put(globalThis, "fetch", thrower("fetch"))` },
  method("Response.prototype", "text"),
  method("Response.prototype", "json"),
  method("Response.prototype", "arrayBuffer"),
  method("ReadableStreamDefaultReader.prototype", "read"),
  { name: "TextDecoder", breaks: `put(globalThis, "TextDecoder", thrower("TextDecoder"))` },
  method("TextDecoder.prototype", "decode"),
  method("AbortSignal", "timeout"),
  { name: "setTimeout", breaks: `put(globalThis, "setTimeout", thrower("setTimeout"))` },
  { name: "queueMicrotask", breaks: `put(globalThis, "queueMicrotask", thrower("queueMicrotask"))` },
  { name: "requestAnimationFrame", breaks: `put(globalThis, "requestAnimationFrame", thrower("requestAnimationFrame"))` },
  { name: "customElements.define", breaks: `broken(CustomElementRegistry.prototype, "define", "customElements.define")` },
  method("Element.prototype", "attachShadow"),
  method("Node.prototype", "appendChild"),
  method("Element.prototype", "append"),
  { name: "Event", breaks: `put(globalThis, "Event", thrower("Event"))` },
  { name: "CustomEvent", breaks: `put(globalThis, "CustomEvent", thrower("CustomEvent"))` },
  method("EventTarget.prototype", "dispatchEvent"),
  method("EventTarget.prototype", "addEventListener"),
  method("WebAssembly", "instantiate"),
  method("WebAssembly", "instantiateStreaming"),
  method("WebAssembly", "Module"),
  method("WebAssembly", "Instance"),
];

/** A row's title: its name, and how it breaks when that is not "throws". */
const titleOf = ({ name, how }) => (how ? `${name} (${how})` : name);

/** A page of a course: the element alone, in `lang` (no other script of ours). */
const HOST = "/sabotaged.html";
const hostPage = (lang) => `<!doctype html><html lang="${lang}"><title>A course</title><body><main><agent-loop-playground scenario="report"></agent-loop-playground></main>
<script type="module" src="element.js"></script>`;

// The test, with what the page threw and did not catch.
const test = base.extend({
  baseURL: async ({}, use) => use(origin()),
  /** Errors thrown into the page and not caught. */
  uncaught: async ({ page }, use) => {
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await use(errors);
  },
});

// (no trace: its snapshots run a script of Playwright's in the page, which
// the page's broken built-ins break, and which would count as the page's error)
test.use({ trace: "off" });

/**
 * The three runs, made in the page with the sabotage of `row` in place
 * (null: none); it is taken back before the answer is returned. Waits by
 * looking again after each turn of the page's timers (its own, kept before
 * the sabotage): a run that never comes ends the test at its timeout.
 */
const drive = (row) => `(async () => {
  ${HELPERS}
  const e = document.querySelector("${EL}");
  const wait = setTimeout, P = Promise, has = Function.prototype.call.bind(String.prototype.includes);
  const turn = () => new P((ok) => wait(ok, 0));
  const attempt = (f) => { try { return f(); } catch (x) { return { error: String(x && x.message) }; } };
  const summary = () => { const s = e.state(); return { scenario: s.scenario, lang: s.lang, steps: s.steps, status: s.status, finalStatus: s.finalStatus, recordLength: s.recordLength }; };
  const said = () => (e.shadowRoot.querySelector("${SEL.problems}")?.textContent || "") + (e.shadowRoot.querySelector(".alp-crash")?.textContent || "");
  const run = () => attempt(() => { e.command("reset"); e.command("run"); return summary(); });
  const out = {};
  const mend = ${row ? row.breaks : "() => {}"};
  try {
    out.report = run();
    attempt(() => { const shown = e.load("core-weather"); if (shown) shown.then(null, () => {}); });
    while (attempt(() => e.state().scenario) !== "core-weather" && !has(said(), "lesson_two.json")) await turn();
    out.lessonTwo = run();
    attempt(() => { e.lang = "en"; });
    while (attempt(() => e.state().lang) !== "en" && !has(said(), "en.json")) await turn();
    out.english = run();
    out.said = said();
  } finally {
    mend();
  }
  return out;
})()`;

/** Opens the course page and waits until the element shows its playground. */
async function openHost(page, baseURL, lang = "zh-CN") {
  await page.route(`${baseURL}${HOST}`, (route) => route.fulfill({ contentType: "text/html", body: hostPage(lang) }));
  await page.goto(HOST);
  await expect(page.locator(inside(SEL.row)).first()).toBeVisible({ timeout: 0 });
}

let healthy = null;
test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await openHost(page, origin());
  healthy = await page.evaluate(drive(null));
  await page.close();
  expect(healthy.report.finalStatus).toBeTruthy();
  expect(healthy.lessonTwo.scenario).toBe("core-weather");
  expect(healthy.english.lang).toBe("en");
});

for (const row of SABOTAGES) {
  test(`after ready: ${titleOf(row)}`, async ({ page, baseURL, uncaught }) => {
    await openHost(page, baseURL);
    const got = await page.evaluate(drive(row));
    expect(got.report, "the report run").toEqual(healthy.report);
    if (row.unsurvivable) {
      // (no file can be fetched: the element says why, and stays where it was)
      expect(got.said, "naming what failed").toContain(row.name);
      expect(got.lessonTwo, "the lesson-two run").toEqual(healthy.report);
      expect(got.english, "the run, still in Chinese").toEqual(healthy.report);
    } else {
      expect(got.lessonTwo, "the lesson-two run").toEqual(healthy.lessonTwo);
      expect(got.english, "the run in English").toEqual(healthy.english);
    }
    expect(uncaught, "no uncaught error").toEqual([]);
  });
}

// Before the element loads, the page's built-ins are broken for Playwright's
// own scripts in the page too: the test looks through functions the init
// script keeps before it breaks anything (`__alpLook`), and through the
// DevTools protocol, which runs no script of Playwright's.
const LOOK = `
  const kept = (f) => Function.prototype.call.bind(f);
  const getter = (proto, key) => kept(Object.getOwnPropertyDescriptor(proto, key).get);
  const find = kept(Document.prototype.querySelector), inFragment = kept(DocumentFragment.prototype.querySelector);
  const findAll = kept(DocumentFragment.prototype.querySelectorAll), inElement = kept(Element.prototype.querySelector);
  const text = getter(Node.prototype, "textContent"), shadow = getter(Element.prototype, "shadowRoot");
  const children = getter(Element.prototype, "children"), tag = getter(Element.prototype, "localName");
  window.__alpLook = () => {
    const el = find(document, "${EL}");
    const root = el && shadow(el);
    const crash = (root && inFragment(root, ".alp-crash")) || (el && inElement(el, ".alp-crash"));
    const inside = el ? text(el) : "";
    let extra = 0;
    const kids = children(document.body);
    for (let i = 0; i < kids.length; i++) if (tag(kids[i]) !== "main" && tag(kids[i]) !== "script") extra++;
    return { said: crash ? text(crash) : inside || null, rows: root ? findAll(root, "${SEL.row}").length : 0, extra };
  };
`;

/** The value of a JavaScript expression in the page, through the DevTools protocol. */
async function evaluated(cdp, expression) {
  const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", { expression, returnByValue: true });
  if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
}

/** A run of the scenario on screen, in the page as it is (its sabotage in place). */
const RUN = `(() => {
  const e = document.querySelector("${EL}");
  try {
    e.command("reset");
    e.command("run");
    const s = e.state();
    return { scenario: s.scenario, steps: s.steps, status: s.status, finalStatus: s.finalStatus, recordLength: s.recordLength };
  } catch (x) {
    return { error: String(x && x.message) };
  }
})()`;

/**
 * Before the element's module loads: the playground works as it does on a
 * page nobody broke, or says inside itself, in the reader's language, what
 * failed (the row's name).
 */
test.describe("before the element loads", () => {
  for (const [row, lang] of [...SABOTAGES.map((r) => [r, "zh-CN"]), ...SABOTAGES.slice(0, 3).map((r) => [r, "en"])]) {
    const code = lang.split("-")[0];
    test(`before load (${code}): ${titleOf(row)}`, async ({ page, baseURL, uncaught }) => {
      await page.addInitScript({ content: `${LOOK}; window.__alpMend = (() => { ${HELPERS} return ${row.breaks}; })();` });
      await page.route(`${baseURL}${HOST}`, (route) => route.fulfill({ contentType: "text/html", body: hostPage(lang) }));
      await page.goto(HOST);
      const cdp = await page.context().newCDPSession(page);
      // (no time bound of its own: an element left empty ends the test at its timeout)
      await expect.poll(async () => {
        const seen = await evaluated(cdp, "__alpLook()");
        return !!seen.said || seen.rows > 0;
      }, { message: "the element is never left empty", timeout: 0 }).toBe(true);
      const seen = await evaluated(cdp, "__alpLook()");
      if (seen.said) {
        expect(seen.said, "in the reader's language").toContain(lead(words(code).crash_start));
        expect(seen.said, "naming what failed").toContain(row.name);
      } else {
        // It works: the run gives what it gives on a page nobody broke.
        const { scenario, steps, status, finalStatus, recordLength } = healthy.report;
        expect(await evaluated(cdp, RUN), "the run").toEqual({ scenario, steps, status, finalStatus, recordLength });
      }
      expect((await evaluated(cdp, "__alpLook()")).extra, "nothing in the host page's body").toBe(0);
      expect(uncaught, "no uncaught error").toEqual([]);
    });
  }
});

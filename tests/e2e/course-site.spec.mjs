// Living in a course site: the learner's place survives a client-side
// navigation (the element removed and added again), a narrow content column
// gets the compact layout, and iframe-resize.js works as a classic script
// from the playground's origin on a course site of another origin.
import { test as base } from "@playwright/test";
import { test, expect, EL, placeOnHost } from "./helpers.mjs";
import { serve } from "./server.mjs";

// Remove the element as a site's router does, wait, and add a fresh one
// with the same attributes where it was; its state once ready.
async function navigateAwayAndBack(page, attributes) {
  return page.evaluate(async ([el, attributes]) => {
    document.querySelector(el).remove();
    await new Promise((r) => setTimeout(r, 50));
    const again = document.createElement(el);
    for (const [k, v] of Object.entries(attributes)) again.setAttribute(k, v);
    document.querySelector("#slot").append(again);
    await new Promise((ok) => again.addEventListener("playground-ready", ok, { once: true }));
    return again.state();
  }, [EL, attributes]);
}

test("the learner's step, breakpoints and listing come back after a client-side navigation", async ({ page, baseURL }) => {
  const attributes = { function: "run_loop", scenario: "report", lang: "en" };
  await placeOnHost(page, baseURL, attributes);
  const before = await page.$eval(EL, (e) => {
    e.toggleBreakpoint("run_loop", "loop.save_results");
    e.command("debug");
    e.command("step");
    e.setListing("rust");
    return e.state();
  });
  expect(before.started).toBe(true);
  const after = await navigateAwayAndBack(page, attributes);
  expect({ step: after.step, label: after.label, breakpoints: after.breakpoints, listing: after.listing })
    .toEqual({ step: before.step, label: before.label, breakpoints: before.breakpoints, listing: "rust" });
  // Taken once: a reload (or the next visit) starts afresh.
  expect(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith("agent-loop-playground:")))).toEqual([]);
});

test("keep-place=\"off\", another scenario attribute or a picked scenario start afresh", async ({ page, baseURL }) => {
  const step = async (attributes) => {
    await page.$eval(EL, (e) => { e.command("debug"); e.command("step"); });
    return navigateAwayAndBack(page, attributes);
  };
  await placeOnHost(page, baseURL, { scenario: "report", lang: "en", "keep-place": "off" });
  const off = await step({ scenario: "report", lang: "en", "keep-place": "off" });
  expect(off.started, "opted out").toBe(false);
  const other = await step({ scenario: "limit", lang: "en", "keep-place": "off" });
  expect(other.started).toBe(false);
  await placeOnHost(page, baseURL, { scenario: "report", lang: "en" });
  const changed = await step({ scenario: "limit", lang: "en" });
  expect([changed.scenario, changed.started], "another scenario attribute").toEqual(["limit", false]);
  // The learner picked another scenario than the element's: not kept.
  await page.$eval(EL, (e) => e.load("report"));
  const picked = await step({ scenario: "limit", lang: "en" });
  expect([picked.scenario, picked.started], "a picked scenario").toEqual(["limit", false]);
  // Storage that throws is no error: the element just starts afresh.
  await page.evaluate(() => {
    Storage.prototype.setItem = () => { throw new DOMException("full", "QuotaExceededError"); };
    Storage.prototype.getItem = () => { throw new DOMException("denied", "SecurityError"); };
  });
  const blocked = await step({ scenario: "limit", lang: "en" });
  expect(blocked.started).toBe(false);
});

// Issue 46, break 10: a place is the learner's on the element it was kept
// from; an element with its own breakpoints, listing or step that differ
// opens where its author says, and a kept place never sets the language.
test("an element whose own breakpoints, listing or step differ from the kept place's opens where its author says", async ({ page, baseURL }) => {
  await placeOnHost(page, baseURL, { scenario: "report", lang: "en" });
  const kept = await page.$eval(EL, (e) => { e.toggleBreakpoint("run_loop", "loop.save_results"); e.command("debug"); e.command("step"); return e.state().breakpoints; });
  const own = { scenario: "report", lang: "en", breakpoints: "loop.ask", listing: "rust", step: "3" };
  const after = await navigateAwayAndBack(page, own);
  expect([after.step, after.listing, after.breakpoints.length]).toEqual([3, "rust", 1]);
  expect(after.breakpoints, "the author's loop.ask, not the learner's loop.save_results").not.toEqual(kept);
  // A kept place with a language in it (the element never writes one) does not set it.
  const key = await page.evaluate(() => `agent-loop-playground:place:${location.pathname.replace(/(\/index)?(\.html?)?$/, "").replace(/\/$/, "") || "/"}#n:0`);
  const entry = await page.evaluate(async ([el, key]) => {
    const old = document.querySelector(el);
    old.command("reset"); old.command("debug"); old.command("step");
    old.remove();
    const kept = JSON.parse(sessionStorage.getItem(key));
    sessionStorage.setItem(key, JSON.stringify({ ...kept, lang: "zh" }));
    return kept;
  }, [EL, key]);
  expect(entry, "the first element's place was kept").not.toBeNull();
  const back = await page.evaluate(async ([el, own]) => {
    const again = document.createElement(el);
    for (const [k, v] of Object.entries(own)) again.setAttribute(k, v);
    document.querySelector("#slot").append(again);
    await new Promise((ok) => again.addEventListener("playground-ready", ok, { once: true }));
    return again.state();
  }, [EL, own]);
  expect([back.lang, back.started], "the place is taken, its language is not").toEqual(["en", true]);
});

test("a garbage entry in sessionStorage is ignored", async ({ page, baseURL }) => {
  await placeOnHost(page, baseURL, { scenario: "report", lang: "en" });
  const key = await page.evaluate(() => `agent-loop-playground:place:${location.pathname.replace(/(\/index)?(\.html?)?$/, "").replace(/\/$/, "") || "/"}#n:0`);
  for (const garbage of ["{", "null", '{"attrs":"||report","step":-4,"breakpoints":[],"listing":"python"}',
    '{"attrs":"||report","step":1,"breakpoints":["<img src=x>"],"listing":"python"}']) {
    const got = await page.evaluate(async ([el, key, garbage]) => {
      document.querySelector(el).remove();
      await new Promise((r) => setTimeout(r, 50));
      sessionStorage.setItem(key, garbage);
      const again = document.createElement(el);
      again.setAttribute("scenario", "report");
      again.setAttribute("lang", "en");
      document.querySelector("#slot").append(again);
      await new Promise((ok) => again.addEventListener("playground-ready", ok, { once: true }));
      return again.state();
    }, [EL, key, garbage]);
    expect(got.started, garbage).toBe(false);
    expect(got.breakpoints, garbage).toEqual([]);
  }
});

test("an element replaced in the same task (a re-render) takes the place, and leaves none behind", async ({ page, baseURL }) => {
  const attributes = { function: "run_loop", scenario: "report", lang: "en" };
  await placeOnHost(page, baseURL, attributes);
  const [before, after, left] = await page.evaluate(async ([el, attributes]) => {
    const old = document.querySelector(el);
    old.toggleBreakpoint("run_loop", "loop.save_results");
    old.command("debug");
    const before = old.state();
    const fresh = document.createElement(el);
    for (const [k, v] of Object.entries(attributes)) fresh.setAttribute(k, v);
    old.replaceWith(fresh);
    await new Promise((ok) => fresh.addEventListener("playground-ready", ok, { once: true }));
    await new Promise((r) => setTimeout(r, 50));
    return [before, fresh.state(), Object.keys(sessionStorage)];
  }, [EL, attributes]);
  expect([after.step, after.breakpoints]).toEqual([before.step, before.breakpoints]);
  expect(left, "taken, nothing left for a later visit").toEqual([]);
  // Moved (out and back in one task): it keeps its own state, and no entry stays.
  const moved = await page.evaluate(async (el) => {
    const e = document.querySelector(el);
    e.command("step");
    const slot = e.parentNode;
    slot.append(document.createElement("p"));
    slot.append(e);
    await new Promise((r) => setTimeout(r, 50));
    return [e.state().started, Object.keys(sessionStorage)];
  }, EL);
  expect(moved).toEqual([true, []]);
});

test("two elements on a page keep their places apart, by id or by order", async ({ page, baseURL }) => {
  await placeOnHost(page, baseURL, { scenario: "report", lang: "en", id: "1" });
  const steps = await page.evaluate(async (el) => {
    const second = document.createElement(el);
    second.setAttribute("scenario", "report");
    second.setAttribute("lang", "en");
    document.querySelector("#slot").append(second);
    await new Promise((ok) => second.addEventListener("playground-ready", ok, { once: true }));
    const [a, b] = document.querySelectorAll(el);
    a.command("debug");
    b.command("debug");
    b.command("step");
    b.command("step");
    const want = [a.state().step, b.state().step];
    const keys = [];
    for (const e of [a, b]) e.remove();
    keys.push(...Object.keys(sessionStorage).sort());
    const slot = document.querySelector("#slot");
    for (const id of ["1", ""]) {
      const e = document.createElement(el);
      if (id) e.id = id;
      e.setAttribute("scenario", "report");
      e.setAttribute("lang", "en");
      slot.append(e);
      await new Promise((ok) => e.addEventListener("playground-ready", ok, { once: true }));
    }
    return { want, got: [...document.querySelectorAll(el)].map((e) => e.state().step), keys };
  }, EL);
  expect(steps.got).toEqual(steps.want);
  expect(steps.keys).toEqual([
    "agent-loop-playground:place:/host#id:1",
    "agent-loop-playground:place:/host#n:1",
  ]);
});

test("in a narrow content column the panels stack low and the setup starts closed; compact hides the lower panels", async ({ page, baseURL }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const measure = (attrs) => page.evaluate(async ([el, attrs]) => {
    const column = document.createElement("div");
    column.style.width = "620px"; // VitePress's content column
    document.body.append(column);
    const e = document.createElement(el);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    column.append(e);
    await new Promise((ok) => e.addEventListener("playground-ready", ok, { once: true }));
    const root = e.shadowRoot.querySelector(".alp-root");
    const out = {
      compact: root.classList.contains("alp-compact"),
      codeHeight: parseFloat(getComputedStyle(root.querySelector(".alp-code")).maxHeight),
      setupOpen: root.querySelector(".alp-setup").open,
      lowerShown: getComputedStyle(root.querySelector(".alp-lower")).display !== "none",
      height: Math.round(e.getBoundingClientRect().height),
    };
    column.remove();
    return out;
  }, [EL, attrs]);
  await placeOnHost(page, baseURL, { scenario: "report", lang: "en", "keep-place": "off" });
  const narrow = await measure({ scenario: "report", lang: "en" });
  // (the locals and output stay: a learner reads them; only compact hides them)
  expect(narrow).toMatchObject({ compact: false, setupOpen: false, lowerShown: true });
  expect(narrow.codeHeight, "the stacked panels are low").toBeLessThanOrEqual(340);
  const wide = await page.evaluate(() => innerWidth);
  expect(wide, "on a wide screen: the column, not the window, decides").toBeGreaterThan(1000);
  const compact = await measure({ scenario: "report", lang: "en", compact: "" });
  expect(compact).toMatchObject({ compact: true, setupOpen: false, lowerShown: false });
  expect(compact.height).toBeLessThan(narrow.height);
  // Hidden when it connects (a closed tab of the lesson): laid out when it is shown.
  const hidden = await page.evaluate(async (el) => {
    const column = document.createElement("div");
    column.style.cssText = "width:620px;display:none";
    document.body.append(column);
    const e = document.createElement(el);
    e.setAttribute("scenario", "report");
    column.append(e);
    await new Promise((ok) => e.addEventListener("playground-ready", ok, { once: true }));
    column.style.display = "block";
    await new Promise((r) => setTimeout(r, 200));
    const root = e.shadowRoot.querySelector(".alp-root");
    return { setupOpen: root.querySelector(".alp-setup").open };
  }, EL);
  expect(hidden).toEqual({ setupOpen: false });
});

// ---- iframe-resize.js on a course site of another origin (its own server;
// the playground is the E2E server's dist/).
base("iframe-resize.js loads as a classic script from the playground's origin and sizes the frame; a wrong origin= is said", async ({ page }) => {
  const playground = process.env.ALP_E2E_ORIGIN;
  const lesson = (origin) => `<!doctype html><html lang="en"><title>Course</title><link rel="icon" href="data:,">
<script src="${playground}/iframe-resize.js"></script>
<iframe id="f" style="width:1000px;border:0" height="150"
  src="${playground}/index.html?embed=1&scenario=report&lang=en&origin=${encodeURIComponent(origin)}"></iframe>`;
  const pages = {}; // read per request: filled once the server knows its origin
  const host = await serve([], pages);
  pages["/right.html"] = lesson(host.origin);
  pages["/wrong.html"] = lesson("https://course.example");
  try {
    const said = [];
    page.on("console", (m) => said.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => said.push(`error: ${e.message}`));
    await page.goto(`${host.origin}/right.html`);
    await expect.poll(() => page.$eval("#f", (f) => Number(f.height)), { timeout: 15000 }).toBeGreaterThan(300);
    expect(said.filter((m) => /^(error|warning)/.test(m)), "no console error").toEqual([]);
    await page.goto(`${host.origin}/wrong.html`);
    await expect.poll(() => said.find((m) => m.includes("origin=https://course.example")) ?? "", { timeout: 15000 })
      .toContain(`but this page is embedded by ${host.origin}; nothing will be posted (set origin=${host.origin})`);
    await page.waitForTimeout(500);
    expect(await page.$eval("#f", (f) => f.height), "nothing posted").toBe("150");
  } finally {
    host.close();
  }
});

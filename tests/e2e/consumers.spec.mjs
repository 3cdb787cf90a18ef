// The packed element in real consumers, built with their own tools at
// pinned versions (tests/consumers/, installed by scripts/setup): a Vite
// app (build and dev server), a webpack 5 app, a VitePress site (two
// playgrounds on a Markdown page, its dark toggle, client-side navigation
// away and back; and its dev server) and a Hugo site (a shortcode, raw HTML; Debian's hugo). Each page must step, draw its record, and load every file
// it asks for: no 404, no console error, nothing from another site.
import { expect } from "@playwright/test";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { root, strictTest } from "./helpers.mjs";
import { serve } from "./server.mjs";

const EL = "agent-loop-playground";
const consumers = path.join(root, "tests", "consumers");
let tools; // tests/consumers/build.mjs
const servers = {};
let origin = "";

const test = strictTest(() => origin, { aborted: true });
test.describe.configure({ mode: "default" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  if (!fs.existsSync(path.join(consumers, "node_modules", "vitepress"))) {
    throw new Error("tests/consumers/node_modules is missing: run scripts/setup");
  }
  if (!fs.existsSync(path.join(root, "dist", "element.js"))) throw new Error("dist/ is missing: run `scripts/build`");
  tools = await import(path.join(consumers, "build.mjs"));
  tools.install();
  await tools.buildVite();
  await tools.buildWebpack();
  await tools.buildVitePress();
  tools.buildHugo();
  for (const name of ["vite", "webpack", "vitepress", "hugo"]) servers[name] = await serve([["/", tools.out(name)]]);
});

test.afterAll(() => Object.values(servers).forEach((s) => s.close()));

/** Waits for every playground of the page, steps the first three times and
 *  reads what a learner sees. */
async function stepFirst(page) {
  await page.waitForFunction((sel) => {
    const all = [...document.querySelectorAll(sel)];
    return all.length > 0 && all.every((e) => e.ready === true);
  }, EL, { timeout: 20000 });
  return page.$eval(EL, (el) => {
    for (let i = 0; i < 3; i++) el.command("step");
    const root = el.shadowRoot;
    return {
      step: el.state().step,
      rows: root.querySelectorAll(".alp-row").length,
      svg: !!root.querySelector('svg[data-role="record"]'),
      styled: root.adoptedStyleSheets.length === 1 && getComputedStyle(root.querySelector(".alp-root")).display !== "inline",
      caption: root.querySelector(".alp-caption-title")?.textContent || "",
    };
  });
}

function expectStepping(seen) {
  expect(seen.step, "three steps taken").toBeGreaterThan(0);
  expect(seen.rows, "the listing is drawn").toBeGreaterThan(10);
  expect(seen.svg, "the record figure is drawn").toBe(true);
  expect(seen.styled, "its stylesheet applies").toBe(true);
  expect(seen.caption.length, "a caption explains the step").toBeGreaterThan(3);
}

/** The files a bundled build emitted for the element: hashed, next to the page's scripts. */
function emitted(dir) {
  const all = fs.readdirSync(dir, { recursive: true }).map(String);
  return {
    wasm: all.filter((f) => f.endsWith(".wasm")),
    css: all.filter((f) => /\.css$/.test(f)),
    // (named by its content's hash alone in webpack's default)
    pack: all.filter((f) => f.endsWith(".json") && JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")).pack === "lesson_two"),
    english: all.filter((f) => f.endsWith(".json") && JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")).pack === "en"),
  };
}

/** The first playground switched to English (its table fetched from where
 *  the build put it): the language and the caption it shows. */
async function inEnglish(page) {
  await page.$eval(EL, (el) => { el.lang = "en"; });
  await page.waitForFunction((sel) => document.querySelector(sel).state().lang === "en", EL, { timeout: 10000 });
  return page.$eval(EL, (el) => ({ lang: el.state().lang, han: /[\u4e00-\u9fff]/.test(el.shadowRoot.querySelector(".alp-caption-title").textContent) }));
}

/** The page's lesson-two playground (its pack fetched from where the build
 *  put it): the program, the scenario, and its listing. */
async function lessonTwo(page) {
  return page.$eval(`${EL}[program="lesson_two"]`, (el) => {
    el.command("stepInto");
    const rows = [...el.shadowRoot.querySelectorAll(".alp-row code")].map((c) => c.textContent).join("\n");
    return { program: el.state().program, scenario: el.state().scenario, agentLoop: rows.includes("def agent_loop(") };
  });
}
const LESSON_TWO = { program: "lesson_two", scenario: "core-two-tools", agentLoop: true };

test("a Vite build emits the module with a hashed name and finds it, and adds no stylesheet", async ({ page }) => {
  origin = servers.vite.origin;
  const files = emitted(tools.out("vite"));
  expect(files.wasm.some((f) => /agent-loop-playground_bg-[\w-]+\.wasm$/.test(f)), files.wasm.join()).toBe(true);
  expect(files.css, "the element's styles are in its module").toEqual([]);
  expect(files.pack, "lesson two's pack is emitted").toHaveLength(1);
  expect(files.english, "English's table is emitted").toHaveLength(1);
  await page.goto(`${origin}/index.html`);
  expectStepping(await stepFirst(page));
  expect(await lessonTwo(page)).toEqual(LESSON_TWO);
  expect(await inEnglish(page)).toEqual({ lang: "en", han: false });
});

test("the Vite dev server serves the element as it is", async ({ page }) => {
  const dev = await tools.devVite();
  try {
    origin = new URL(dev.url).origin;
    await page.goto(dev.url);
    expectStepping(await stepFirst(page));
    expect(await lessonTwo(page)).toEqual(LESSON_TWO);
  } finally {
    await dev.close();
  }
});

test("a webpack 5 build emits the module as an asset and finds it", async ({ page }) => {
  origin = servers.webpack.origin;
  const files = emitted(tools.out("webpack"));
  expect(files.wasm.length, "the module is emitted").toBe(1);
  expect(files.css, "no stylesheet").toEqual([]);
  expect(files.pack, "lesson two's pack is emitted").toHaveLength(1);
  expect(files.english, "English's table is emitted").toHaveLength(1);
  await page.goto(`${origin}/index.html`);
  const seen = await stepFirst(page);
  expectStepping(seen);
  expect(seen.caption, "in the element's language").toMatch(/[\u4e00-\u9fff]/);
  expect(await lessonTwo(page)).toEqual(LESSON_TWO);
  expect(await inEnglish(page)).toEqual({ lang: "en", han: false });
});

test("a VitePress page holds two playgrounds, follows the dark toggle and survives client-side navigation", async ({ page }) => {
  origin = servers.vitepress.origin;
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto(`${origin}/index.html`);
  expectStepping(await stepFirst(page));
  expect(await page.$$eval(EL, (all) => all.length)).toBe(2);
  // The site keeps its own stylesheet (VitePress links the first CSS file
  // of the build: the element adds none).
  const linked = await page.$$eval('link[rel~="stylesheet"]', (ls) => ls.map((l) => new URL(l.href).pathname));
  expect(linked.some((p) => /\/assets\/style\.[\w-]+\.css$/.test(p)), linked.join()).toBe(true);
  const background = () =>
    page.$eval(EL, (el) => getComputedStyle(el.shadowRoot.querySelector(".alp-root")).backgroundColor);
  const luminance = (rgb) => {
    const [r, g, b] = rgb.match(/\d+(\.\d+)?/g).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  expect(luminance(await background()), "light with the site").toBeGreaterThan(0.5);
  // The site's own appearance switch (a class on <html>).
  await page.getByRole("switch", { name: "Switch to dark theme" }).first().click();
  await expect.poll(() => page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);
  await expect.poll(async () => luminance(await background()), { message: "dark with the site" }).toBeLessThan(0.3);
  // In VitePress's content column the setup panel starts closed.
  const layout = await page.$eval(EL, (el) => {
    const root = el.shadowRoot.querySelector(".alp-root");
    return { width: Math.round(el.getBoundingClientRect().width), compact: root.classList.contains("alp-compact"), setup: root.querySelector(".alp-setup").open };
  });
  expect(layout.width, "a narrow column").toBeLessThan(800);
  expect(layout, "the setup panel closed in a column").toMatchObject({ compact: false, setup: false });
  // Away to a chapter without a playground, and back, without a reload:
  // the learner's place (step 3, a breakpoint) comes back with it.
  const left = await page.$eval(EL, (el) => { el.toggleBreakpoint("run_loop", "loop.ask"); return el.state(); });
  await page.evaluate(() => { window.notReloaded = true; });
  await page.locator(".vp-doc a[href*='other']").click();
  await expect(page.locator("h1")).toHaveText(/Another chapter/);
  await page.locator(".vp-doc a", { hasText: "Back to the loop" }).click();
  await page.waitForFunction((sel) => document.querySelector(sel)?.ready === true, EL, { timeout: 20000 });
  const back = await page.$eval(EL, (el) => el.state());
  expect([back.step, back.breakpoints], "the same step and breakpoints").toEqual([left.step, left.breakpoints]);
  expectStepping(await stepFirst(page));
  expect(await page.evaluate(() => window.notReloaded), "client-side navigation, not a reload").toBe(true);
});

// Pre-bundling (optimizeDeps) would move element.js into Vite's deps folder,
// where the module's URL answers with the site's HTML: the recipe excludes it.
test("the VitePress dev server (vitepress dev) serves the element as it is", async ({ page }) => {
  const dev = await tools.devVitePress();
  try {
    origin = new URL(dev.url).origin;
    // (the dev server's first HTML lacks the config's head icon: Chromium asks for /favicon.ico)
    await page.route(`${origin}/favicon.ico`, (route) => route.fulfill({ status: 204 }));
    await page.goto(dev.url);
    expectStepping(await stepFirst(page));
    // (the page leaves first: its dev client would try to reconnect)
    await page.goto("about:blank");
  } finally {
    await dev.close();
  }
});

test("a Hugo site writes the element with a shortcode and as raw HTML", async ({ page }) => {
  origin = servers.hugo.origin;
  await page.goto(`${origin}/`);
  const shortcode = await page.$eval(EL, (el) => el.getAttributeNames().map((n) => `${n}=${el.getAttribute(n)}`).sort());
  expect(shortcode, "the shortcode's parameters are the attributes, hyphenated ones too")
    .toEqual(["function=run_loop", "keep-place=off", "lang=en", "scenario=report", "time-budget=3"]);
  expectStepping(await stepFirst(page));
  await page.locator("a", { hasText: "The loop, as raw HTML" }).click();
  await expect(page.locator("h1")).toHaveText("The loop, as raw HTML");
  const seen = await stepFirst(page);
  expectStepping(seen);
  expect(seen.caption, "in the element's language").toMatch(/[\u4e00-\u9fff]/);
});

test("the element's types check a TypeScript app and refuse a wrong call", () => {
  const tsc = path.join(consumers, "node_modules", ".bin", "tsc");
  const ok = spawnSync(tsc, ["-p", path.join(consumers, "types", "tsconfig.json")], { encoding: "utf8" });
  expect(ok.status, ok.stdout + ok.stderr).toBe(0);
  const flags = ["--noEmit", "--strict", "--lib", "es2022,dom", "--module", "esnext", "--moduleResolution", "bundler"];
  const wrong = spawnSync(tsc, [...flags, path.join(consumers, "types", "wrong.ts")], { encoding: "utf8" });
  expect(wrong.status, "a wrong command name is a type error").not.toBe(0);
  expect(wrong.stdout).toContain("not assignable to parameter of type 'Command'");
});

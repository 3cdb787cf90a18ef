// The mdBook course in examples/course-book/, built for real with mdbook
// 0.5.4 (scripts/setup) from a copy, with the element's files from dist/:
// the playgrounds run, the book keeps its own look, the playgrounds follow
// the book's theme (light / coal), and keys pressed inside a playground do
// not also turn the book's page.
//   SCREENSHOTS=1 npx playwright test course-book   also writes docs/course-book-{light,coal}.png
import { expect } from "@playwright/test";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { root, strictTest } from "./helpers.mjs";
import { serve } from "./server.mjs";

const MDBOOK = "0.5.4";
const EL = "agent-loop-playground";
const CH1 = "/ask-claude.html"; // first chapter: one playground (#ask); has a "next" link
const CH2 = "/run-loop.html"; // second chapter: #report and #limit; has a "previous" link
const CH3 = "/core-loop.html"; // lesson two: #core
const CH4 = "/guarantees.html"; // lesson three, from its program pack: #guarantee (en) and #recover (zh)
const THEMES = [
  { theme: "light", scheme: "light" },
  { theme: "coal", scheme: "dark" },
];

let work; // temp copy of the book
let server;

// ---- Build and serve the book once for this file -----------------------------

function mdbookVersion() {
  const env = { ...process.env, PATH: `${path.join(os.homedir(), ".cargo/bin")}:${process.env.PATH}` };
  try {
    return [execFileSync("mdbook", ["--version"], { encoding: "utf8", env }).trim(), env];
  } catch {
    throw new Error(`mdbook is not installed: run scripts/setup (it installs mdbook ${MDBOOK})`);
  }
}

// Any console error or warning, page error, failed request or request that
// leaves this spec's own server fails the test.
const test = strictTest(() => server.origin, { aborted: true });

test.describe.configure({ mode: "default" }); // one worker, one build; a failure does not skip the rest

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const [version, env] = mdbookVersion();
  expect(version, `mdbook ${MDBOOK} (run scripts/setup)`).toContain(MDBOOK);
  for (const f of ["element.js", "agent-loop-playground_bg.wasm"]) {
    if (!fs.existsSync(path.join(root, "dist", f))) throw new Error(`dist/${f} is missing: run \`scripts/build\``);
  }
  work = fs.mkdtempSync(path.join(os.tmpdir(), "alp-course-book-"));
  const book = path.join(root, "examples/course-book");
  fs.cpSync(book, work, {
    recursive: true,
    filter: (src) => !["book", path.join("src", "alp"), path.join("src", "lessons")].includes(path.relative(book, src)),
  });
  // The book's own script: copies dist/'s element files into src/alp/ (and
  // lesson three's pack into src/lessons/) and runs mdbook build.
  execFileSync(path.join(work, "build.sh"), { cwd: work, env: { ...env, DIST: path.join(root, "dist"), LESSON_THREE: path.join(root, "examples/lesson-three") }, stdio: "pipe" });
  server = await serve([["/", path.join(work, "book")]]);
});

test.afterAll(async () => {
  server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// ---- Helpers ---------------------------------------------------------------------
/** Stores the mdBook theme (and an open sidebar) before the page's own scripts read them. */
const useTheme = (page, theme) =>
  page.addInitScript((t) => {
    localStorage.setItem("mdbook-theme", t);
    localStorage.setItem("mdbook-sidebar", "visible");
  }, theme);

async function openChapter(page, chapter) {
  await page.goto(server.origin + chapter);
  await page.waitForFunction((sel) => {
    const all = [...document.querySelectorAll(sel)];
    return all.length > 0 && all.every((e) => e.ready === true);
  }, EL, { timeout: 15000 });
}

const state = (page, sel) => page.$eval(sel, (e) => e.state());

/** What the book's own look is made of: computed styles of its landmarks, its fonts, its stylesheets. */
const bookLook = (page) =>
  page.evaluate(() => {
    const props = ["font-family", "font-size", "line-height", "color", "background-color", "margin", "padding", "width", "color-scheme"];
    const pick = (sel) => {
      const el = document.querySelector(sel);
      if (!el) return `${sel}: missing`;
      const c = getComputedStyle(el);
      return Object.fromEntries(props.map((p) => [p, c.getPropertyValue(p)]));
    };
    const selectors = ["html", "body", ".sidebar", ".sidebar .chapter a", ".menu-bar", ".menu-title", "main h1", "main p",
      "main code", ".content", ".nav-chapters"];
    return {
      styles: Object.fromEntries(selectors.map((s) => [s, pick(s)])),
      fonts: [...document.fonts].map((f) => `${f.family} ${f.weight} ${f.style}`).sort(),
      sheets: [...document.styleSheets].map((s) => s.href && new URL(s.href).pathname),
      headChildren: document.head.children.length,
      htmlClass: document.documentElement.className,
    };
  });

/** Relative luminance (0 black … 1 white) of a computed "rgb(…)" colour. */
function luminance(rgb) {
  const [r, g, b] = rgb.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// ---- The tests, in both themes ---------------------------------------------------------------
for (const { theme, scheme } of THEMES) {
  test.describe(`theme ${theme}`, () => {
    test.beforeEach(({ page }) => useTheme(page, theme));

    test("the playgrounds in every chapter run", async ({ page }) => {
      for (const [chapter, ids] of [[CH1, ["#ask"]], [CH2, ["#report", "#limit"]], [CH3, ["#core"]], [CH4, ["#guarantee", "#recover"]]]) {
        await openChapter(page, chapter);
        expect(await page.evaluate(() => document.documentElement.classList.contains("js"))).toBe(true);
        for (const id of ids) {
          const el = page.locator(id);
          await el.locator('[data-command="debug"]').click();
          const before = await state(page, id);
          expect(before.started, `${chapter} ${id} started`).toBe(true);
          await el.locator('[data-command="step"]').click();
          const after = await state(page, id);
          expect(after.step, `${chapter} ${id}: Step moved`).toBeGreaterThan(before.step);
        }
      }
      // Lesson three beside them, from its pack: the code refuses the refund over the limit.
      await page.locator('#guarantee [data-command="debug"]').click();
      const check = await state(page, "#guarantee");
      expect([check.program, check.label, check.scenario]).toEqual(["lessons/lesson-three.pack.json", "limit.check", "refund-over"]);
      await page.locator('#guarantee [data-command="step"]').click();
      expect((await state(page, "#guarantee")).label).toBe("limit.refuse");
      expect((await state(page, "#recover")).lang).toBe("zh");
      // Lesson two's quick check, asked with prediction on where the run shows why.
      await openChapter(page, CH3);
      const quick = await page.$eval("#says-done", (e) => {
        e.command("debug");
        for (let i = 0; i < 200 && e.state().status !== "answered"; i++) {
          const q = e.state().question;
          if (q && q.text.includes("task complete")) return { label: q.label, predict: e.state().predict };
          if (q) e.answer(0);
          else e.command("step");
        }
        return null;
      });
      expect(quick).toEqual({ label: "core.stop", predict: true });
      // The breakpoints written in the chapter's Markdown were read.
      await openChapter(page, CH2);
      await page.locator('#report [data-command="debug"]').click();
      expect((await state(page, "#report")).label).toBe("loop.ask");
      await page.locator('#report [data-command="continue"]').click();
      const s = await state(page, "#report");
      expect(s.label).toBe("loop.save_results");
      expect(s.recordLength).toBe(2);
      // The other playground on that page did not move.
      expect((await state(page, "#limit")).scenario).toBe("limit");
    });

    test("the book's styles, sidebar and fonts are the same with and without the playground", async ({ page }) => {
      // Without: element.js answered with an empty module (no request fails, nothing is defined).
      await page.route("**/alp/element.js", (route) =>
        route.fulfill({ contentType: "text/javascript", body: "// blocked by the test\n" }));
      await page.goto(server.origin + CH1);
      await page.evaluate(() => document.fonts.ready);
      expect(await page.evaluate(() => customElements.get("agent-loop-playground"))).toBeUndefined();
      const without = await bookLook(page);
      expect(without.htmlClass).toContain(theme);
      // With: the real script, the playground built.
      await page.unroute("**/alp/element.js");
      await openChapter(page, CH1);
      await page.evaluate(() => document.fonts.ready);
      const withIt = await bookLook(page);
      expect(withIt, "nothing of the book's look changed").toEqual(without);
      // The element's stylesheet is inside its shadow root only.
      const inner = await page.$eval("#ask", (e) => e.shadowRoot.adoptedStyleSheets.length);
      expect(inner).toBe(1);
    });

    test(`the playground follows the book's theme (${scheme})`, async ({ page }) => {
      await openChapter(page, CH2);
      const seen = await page.evaluate((sel) => {
        const html = getComputedStyle(document.documentElement);
        return {
          htmlClass: document.documentElement.className,
          bookScheme: html.colorScheme,
          // mdBook paints its background on <html> (body is transparent).
          bookBg: [document.body, document.documentElement].map((e) => getComputedStyle(e).backgroundColor)
            .find((c) => c !== "rgba(0, 0, 0, 0)"),
          elements: [...document.querySelectorAll(sel)].map((e) => {
            const rootBox = e.shadowRoot.querySelector(".alp-root");
            const box = e.shadowRoot.querySelector(".alp");
            return {
              id: e.id,
              hostScheme: getComputedStyle(e).colorScheme,
              rootScheme: getComputedStyle(rootBox).colorScheme,
              bg: getComputedStyle(box).backgroundColor,
              ink: getComputedStyle(box).color,
            };
          }),
        };
      }, EL);
      test.info().annotations.push({ type: "colors", description: JSON.stringify(seen) });
      expect(seen.htmlClass.split(" ")).toContain(theme);
      // mdBook 0.5.4 declares it: `:root { color-scheme: var(--color-scheme) }`, --color-scheme: light on .light, dark on .coal.
      expect(seen.bookScheme, "mdBook declares color-scheme for the theme").toBe(scheme);
      const dark = scheme === "dark";
      expect(luminance(seen.bookBg) < 0.2, `book background ${seen.bookBg}`).toBe(dark);
      expect(seen.elements.length).toBe(2);
      for (const e of seen.elements) {
        expect(luminance(e.bg) < 0.2, `#${e.id} background ${e.bg} should be ${dark ? "dark" : "light"} (host color-scheme: ${e.hostScheme}, .alp-root: ${e.rootScheme})`).toBe(dark);
        expect(luminance(e.ink) > 0.5, `#${e.id} text ${e.ink}`).toBe(dark);
      }
      // The reader switches the theme in the book's own menu: the playgrounds follow without a reload.
      const other = dark ? "light" : "coal";
      await page.locator("#mdbook-theme-toggle").click();
      await page.locator(`#mdbook-theme-${other}`).click();
      await expect(page.locator("html")).toHaveClass(new RegExp(`\\b${other}\\b`));
      const backgrounds = () => page.$$eval(EL, (all) => all.map((e) => getComputedStyle(e.shadowRoot.querySelector(".alp")).backgroundColor));
      await expect.poll(async () => (await backgrounds()).map((bg) => luminance(bg) < 0.2), `playgrounds after switching to ${other}`)
        .toEqual([!dark, !dark]);
    });

    test("keys inside a playground step it and do not turn the book's page", async ({ page }) => {
      // Chapter 1 has a "next" chapter: → would go there.
      await openChapter(page, CH1);
      await page.evaluate(() => { window.__samePage = true; });
      const el = page.locator("#ask");
      await el.locator('[data-command="debug"]').click();
      const stillHere = async (what) => {
        await page.waitForTimeout(250); // mdBook navigates with location.href: give it the chance
        expect(page.url(), `${what}: the book did not turn the page`).toBe(server.origin + CH1);
        expect(await page.evaluate(() => window.__samePage === true), `${what}: no reload`).toBe(true);
      };
      await el.locator(".alp-code").focus();
      let s = await state(page, "#ask");
      for (const [key, moves] of [["ArrowRight", 1], ["ArrowLeft", -1], ["ArrowDown", 1], ["ArrowUp", -1],
        ["F10", 1], ["ArrowLeft", -1], ["F11", 1], ["ArrowLeft", -1], ["F8", 1]]) {
        await page.keyboard.press(key);
        await stillHere(key);
        const next = await state(page, "#ask");
        if (moves > 0) expect(next.step, `${key} moved forward`).toBeGreaterThan(s.step);
        else expect(next.step, `${key} moved back`).toBeLessThan(s.step);
        s = next;
      }
      // Chapter 2 has a "previous" chapter: ← would go there.
      await openChapter(page, CH2);
      await page.evaluate(() => { window.__samePage = true; });
      await page.locator('#report [data-command="debug"]').click();
      await page.locator("#report .alp-code").focus();
      await page.keyboard.press("ArrowRight");
      const forward = await state(page, "#report");
      await page.keyboard.press("ArrowLeft");
      await page.waitForTimeout(250);
      expect(page.url(), "ArrowLeft in a playground: the book stayed on chapter 2").toBe(server.origin + CH2);
      expect(await page.evaluate(() => window.__samePage === true)).toBe(true);
      expect((await state(page, "#report")).step).toBeLessThan(forward.step);
      // Outside the playgrounds the book's own keys still work.
      await page.locator("main h1").click();
      await Promise.all([page.waitForURL(server.origin + CH1), page.keyboard.press("ArrowLeft")]);
    });
  });
}

// ---- Screenshots for the docs (SCREENSHOTS=1) ---------------------------------------------------------
test.describe("screenshots", () => {
  test.skip(!process.env.SCREENSHOTS, "set SCREENSHOTS=1 to refresh docs/course-book-{light,coal}.png");
  test.use({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  for (const { theme } of THEMES) {
    test(`docs/course-book-${theme}.png`, async ({ page }) => {
      await useTheme(page, theme);
      await openChapter(page, CH2);
      await page.$eval("#report", (e) => {
        e.command("debug");
        e.command("continue");
      });
      // The top of the chapter: the book's sidebar and heading, the text, then the playground.
      await page.waitForTimeout(150);
      await page.screenshot({ path: path.join(root, `docs/course-book-${theme}.png`) });
    });
  }
});

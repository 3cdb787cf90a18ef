// Refreshes the README screenshots docs/screenshot-{desktop,narrow}-{zh,en}.png,
// docs/predict-en.png, docs/compare-zh.png, docs/setup-output-zh.png and
// the phone's screens docs/phone-*.png
// (the old `run.mjs --screenshots`). Skipped unless SCREENSHOTS=1:
//   SCREENSHOTS=1 npx playwright test screenshots
// zh text needs a CJK font on the machine (Debian: fonts-noto-cjk).
import path from "node:path";
import { test, EL, root, open, showView } from "./helpers.mjs";

test.skip(!process.env.SCREENSHOTS, "set SCREENSHOTS=1 to refresh docs/*.png");

for (const [width, height, name] of [[1440, 900, "desktop"], [390, 844, "narrow"]]) {
  test.describe(`${name} ${width}x${height}`, () => {
    test.use({ viewport: { width, height }, deviceScaleFactor: 1 });
    for (const lang of ["zh", "en"]) {
      test(`docs/screenshot-${name}-${lang}.png`, async ({ page }) => {
        await open(page, `?scenario=report&lang=${lang}`);
        await page.$eval(EL, (e) => {
          e.toggleBreakpoint("run_loop", "loop.ask");
          e.toggleBreakpoint("run_loop", "loop.save_results");
          e.command("debug");
          e.command("continue");
        });
        await page.waitForTimeout(100);
        await page.screenshot({ path: path.join(root, `docs/screenshot-${name}-${lang}.png`), fullPage: name === "desktop" });
      });
    }
  });
}

test.describe("predict and what-if 1280x900", () => {
  test.use({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  test("docs/predict-en.png", async ({ page }) => {
    await open(page, "?scenario=report&lang=en&predict=1");
    await page.$eval(EL, (e) => {
      // Past the first question (answered wrong), to the second one.
      for (let i = 0; i < 20 && !e.state().question; i++) e.command("step");
      e.answer(1);
      for (let i = 0; i < 40 && !e.state().question; i++) e.command("step");
      e.shadowRoot.querySelector('[data-role="predict"]').scrollIntoView({ block: "center" });
    });
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(root, "docs/predict-en.png") });
  });
  test("docs/setup-output-zh.png", async ({ page }) => {
    await open(page, "?scenario=report&lang=zh");
    await page.$eval(EL, (e) => {
      e.command("run");
      // The entry call at the end of the setup code, and the output it ends.
      const code = e.shadowRoot.querySelector('[data-role="setup-code"]');
      code.scrollTop = code.scrollHeight;
      e.shadowRoot.querySelector(".alp-output-panel").scrollIntoView({ block: "start" });
    });
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(root, "docs/setup-output-zh.png") });
  });
  test("docs/compare-zh.png", async ({ page }) => {
    // (another loop beside the lesson's, stepped to where it stops: the two
    // records side by side above the figure)
    await open(page, "?scenario=core-says-done&compare=stop_on_text&lang=zh");
    await page.$eval(EL, (e) => {
      e.command("debug");
      for (let i = 0; i < 8; i++) e.command("step");
    });
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(root, "docs/compare-zh.png") });
  });
});

// A phone (issue 44, point 6): the code or the record under the dock, the
// caption under either; the two records side by side (point 4) and two
// tools in one reply (point 10), in light and dark, on a phone in the
// record view and at 1440 × 900.
const REPORT = "?scenario=report&lang=zh&breakpoints=loop.save_results";
const COMPARE = "?scenario=core-says-done&compare=stop_on_text&lang=zh";
const TWO_TOOLS = "?scenario=core-two-tools&lang=zh";
for (const [name, query, view, scheme, steps, width, height] of [
  ["phone-code-zh", REPORT, "code", "light", 0, 390, 844],
  ["phone-record-zh-dark", REPORT, "record", "dark", 0, 390, 844],
  ["phone-compare-zh", COMPARE, "record", "light", 8, 390, 844],
  ["phone-compare-zh-dark", COMPARE, "record", "dark", 8, 390, 844],
  ["phone-two-tools-zh", TWO_TOOLS, "record", "light", 40, 390, 844],
  ["phone-two-tools-zh-dark", TWO_TOOLS, "record", "dark", 40, 390, 844],
  ["desktop-compare-zh-dark", COMPARE, "code", "dark", 8, 1440, 900],
  ["desktop-two-tools-zh", TWO_TOOLS, "code", "light", 40, 1440, 900],
  ["desktop-two-tools-zh-dark", TWO_TOOLS, "code", "dark", 40, 1440, 900],
]) {
  test.describe(`${name} ${width}x${height}`, () => {
    test.use({ viewport: { width, height }, deviceScaleFactor: 1 });
    test(`docs/${name}.png`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await open(page, query);
      await page.$eval(EL, (e, n) => {
        e.command("debug");
        if (n === 0) e.command("continue");
        for (let i = 0; i < n; i++) e.command("step");
      }, steps);
      await showView(page, view);
      await page.waitForTimeout(100);
      await page.screenshot({ path: path.join(root, `docs/${name}.png`) });
    });
  });
}

// Refreshes the README screenshots docs/screenshot-{desktop,narrow}-{zh,en}.png
// (the old `run.mjs --screenshots`). Skipped unless SCREENSHOTS=1:
//   SCREENSHOTS=1 npx playwright test screenshots
// zh text needs a CJK font on the machine (Debian: fonts-noto-cjk).
import path from "node:path";
import { test, EL, root, open } from "./helpers.mjs";

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

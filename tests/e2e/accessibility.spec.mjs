// axe-core finds no violation on the page (before and while debugging) or on
// the course example, in both languages. axe is injected, so CSP is bypassed.
import { test, expect, EL, open, openCourse, axe } from "./helpers.mjs";

test.use({ bypassCSP: true });

for (const lang of ["zh", "en"]) {
  test(`axe-core: page in ${lang}, before and while debugging`, async ({ page }) => {
    await open(page, `?scenario=report&lang=${lang}`);
    await test.step("before debugging", async () => {
      expect(await axe(page)).toEqual([]);
    });
    await test.step("stopped at a breakpoint", async () => {
      await page.$eval(EL, (e) => { e.toggleBreakpoint("run_loop", "loop.save_results"); e.command("debug"); });
      expect(await axe(page)).toEqual([]);
    });
    await test.step("sixteen steps into it", async () => {
      await page.$eval(EL, (e) => { e.command("stepInto"); for (let i = 0; i < 15; i++) e.command("stepInto"); });
      expect(await axe(page)).toEqual([]);
    });
  });

  test(`axe-core: course example in ${lang}`, async ({ page }) => {
    await openCourse(page);
    if (lang === "en") await page.$$eval(EL, (els) => els.forEach((e) => (e.lang = "en")));
    await page.$$eval(EL, (els) => els.forEach((e) => e.command("debug")));
    expect(await axe(page)).toEqual([]);
  });
}

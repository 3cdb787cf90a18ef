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

// Themes: light, dark, and the system setting; no axe violation (contrast
// included) in either.
for (const [how, query, scheme] of [["theme=dark", "&theme=dark", "light"], ["system dark", "", "dark"], ["theme=light on a dark system", "&theme=light", "dark"]]) {
  test(`axe-core and colours: ${how}`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await open(page, `?scenario=report&lang=en${query}`);
    const background = () => page.$eval(EL, (e) => getComputedStyle(e.shadowRoot.querySelector(".alp")).backgroundColor);
    const dark = how !== "theme=light on a dark system";
    expect(await background()).toBe(dark ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)");
    await page.$eval(EL, (e) => { e.toggleBreakpoint("run_loop", "loop.save_results"); e.command("debug"); e.command("stepInto"); });
    expect(await axe(page)).toEqual([]);
    await page.$eval(EL, (e) => e.command("run"));
    expect(await axe(page)).toEqual([]);
  });
}

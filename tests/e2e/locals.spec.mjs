// Issue 44, point 9, on the screen: at the line that appends the results
// the locals panel shows the whole Python frame (the record, call, result,
// the functions the setup passed as Python writes them, a long value
// folded); the status chip says paused, not running; a breakpoint says how
// many times the run has stopped on it.
import { test, expect, EL, open, command, bp, lineOf, showView } from "./helpers.mjs";

/** The locals panel as {name: shown text}. */
const locals = (page) => page.$$eval(`${EL} .alp-locals dt`, (dts) =>
  Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling.textContent])));

for (const lang of ["zh", "en"]) {
  test(`the frame's locals, the paused chip and the hit count (${lang})`, async ({ page }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await open(page, `?scenario=report&lang=${lang}`);
    const ask = await lineOf(page, "run_loop", "response = ask(messages)");
    const save = await lineOf(page, "run_loop", 'messages.append({"role": "user", "content": results})');
    await page.locator(bp(ask, "run_loop")).click();
    await page.locator(bp(save, "run_loop")).click();
    await page.locator(command("debug")).click();
    const counter = page.locator(`${EL} .alp-counter`);
    await expect(counter).toContainText(lang === "zh" ? "此断点已命中 1 次" : "hits at this breakpoint: 1");

    await test.step("at the line that appends the results: messages, call and result are there", async () => {
      await page.locator(command("continue")).click();
      await expect(counter).toContainText(lang === "zh" ? "此断点已命中 1 次" : "hits at this breakpoint: 1");
      const shown = await locals(page);
      for (const name of ["messages", "call", "result", "results", "number", "ask", "execute", "emit", "kinds"]) {
        expect(Object.keys(shown), name).toContain(name);
      }
      expect(shown.ask).toBe("<function <lambda>>");
      expect(shown.emit).toBe("<built-in function print>");
      expect(shown.messages).toContain("2");
      // result is long: folded to a line, the rest a click away.
      const fold = page.locator(`${EL} .alp-locals dd details`).first();
      await expect(fold).toBeVisible();
      expect(await fold.evaluate((d) => d.open)).toBe(false);
      await fold.locator("summary").click();
      expect(await fold.evaluate((d) => d.open)).toBe(true);
    });

    await test.step("the chip says paused while the run is on the way", async () => {
      await showView(page, "record");
      const chip = page.locator(`${EL} .alp-status`);
      await expect(chip).toContainText(lang === "zh" ? "已暂停" : "paused");
      await expect(chip).not.toContainText(lang === "zh" ? "运行中" : "running");
    });

    await test.step("the second model call is the breakpoint's second stop", async () => {
      await showView(page, "code");
      await page.locator(command("continue")).click();
      await expect(counter).toContainText(lang === "zh" ? "此断点已命中 2 次" : "hits at this breakpoint: 2");
    });
  });
}

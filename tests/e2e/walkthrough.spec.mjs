// The lesson walk-through: breakpoints on ask and on saving the tool results,
// debug, continue, step, continue to the end; in both languages.
import { test, expect, EL, SEL, inside, open, state, cards, lineOf, current, command, bp, pressed } from "./helpers.mjs";

// The lines to stop at, as each listing writes them.
const NEEDLES = {
  python: { ask: "response = ask(messages)", save: 'messages.append({"role": "user"' },
  rust: { ask: "ask(&messages)", save: 'messages.push(json!({"role": "user"' },
};

for (const [lang, listing, width] of [["zh", "python", 1440], ["en", "python", 1440], ["zh", "rust", 1440], ["en", "rust", 1440], ["zh", "python", 390], ["en", "python", 390]]) {
  test(`lesson walk-through in ${lang}, ${listing} listing, ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: width > 400 ? 900 : 844 });
    await open(page, `?function=run_loop&scenario=report&lang=${lang}${listing === "rust" ? "&listing=rust" : ""}`);
    expect((await state(page)).listing, "python is the default").toBe(listing);
    let ask, save;
    await test.step("find the ask and save lines and set breakpoints on them", async () => {
      ask = await lineOf(page, "run_loop", NEEDLES[listing].ask);
      save = await lineOf(page, "run_loop", NEEDLES[listing].save);
      expect(ask && save, "both lines are in the listing").toBeTruthy();
      await page.locator(bp(ask, "run_loop")).click();
      await page.locator(bp(save, "run_loop")).click();
      expect(await pressed(page, ask)).toBe("true");
    });
    await test.step("debug stops at ask", async () => {
      await page.locator(command("debug")).click();
      expect(await current(page)).toEqual({ fn: "run_loop", line: ask });
    });
    await test.step("continue stops at the save with two message cards", async () => {
      await page.locator(command("continue")).click();
      expect(await current(page)).toEqual({ fn: "run_loop", line: save });
      expect(await cards(page), "two message cards before the save").toBe(2);
    });
    await test.step("step saves the tool results: three cards", async () => {
      await page.locator(command("step")).click();
      expect(await cards(page), "three after it").toBe(3);
    });
    await test.step("continue is back at ask with a record of three", async () => {
      await page.locator(command("continue")).click();
      expect(await current(page)).toEqual({ fn: "run_loop", line: ask });
      expect((await state(page)).recordLength).toBe(3);
    });
    await test.step("continue runs to the end: answered, four cards, caption announced", async () => {
      await page.locator(command("continue")).click();
      const s = await state(page);
      expect(s.status).toBe("answered");
      expect(s.step).toBe(s.steps - 1);
      expect(await cards(page)).toBe(4);
      const caption = await page.textContent(inside(SEL.captionTitle));
      expect(caption).toBe(lang === "zh" ? "run_loop 返回" : "run_loop returns");
      const live = await page.textContent(inside(SEL.live));
      expect(live.includes(caption), "the live region announces the caption").toBe(true);
    });
  });
}

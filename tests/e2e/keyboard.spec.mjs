// Keyboard: the debugger keys while the playground has focus, and a whole
// session driven by Tab, Enter, Space and the F keys alone.
import { test, expect, EL, SEL, inside, open, state, lineOf, command, bp, pressed, langButton } from "./helpers.mjs";

test("keyboard: F10/F11/Shift+F11/F8 and arrows while focused", async ({ page }) => {
  await open(page, "?scenario=report&lang=en&listing=rust");
  await test.step("F10 and the arrows move while the code has focus", async () => {
    await page.locator(inside(SEL.code)).focus();
    await page.keyboard.press("F10");
    expect((await state(page)).step).toBe(0);
    await page.keyboard.press("ArrowRight");
    expect((await state(page)).label).toBe("loop.check_budget");
    await page.keyboard.press("ArrowLeft");
    expect((await state(page)).step).toBe(0);
  });
  await test.step("F8 continues to a breakpoint, F11 steps in, Shift+F11 steps out", async () => {
    await page.$eval(EL, (e) => e.toggleBreakpoint("run_loop", "loop.ask"));
    await page.keyboard.press("F8");
    expect((await state(page)).label).toBe("loop.ask");
    await page.keyboard.press("F11");
    expect((await state(page)).currentFunction).toBe("ask_claude");
    await page.keyboard.press("Shift+F11");
    expect((await state(page)).currentFunction).toBe("run_loop");
  });
  await test.step("breakpoint buttons work from the keyboard too", async () => {
    // Line 3 is a doc comment, where the run never stops: the breakpoint
    // goes to the next line that can stop (the signature, line 4).
    await page.locator(bp(3)).focus();
    await page.keyboard.press("Enter");
    expect(await pressed(page, 3)).toBe("false");
    expect(await pressed(page, 4)).toBe("true");
  });
  await test.step("outside the playground the arrows are left alone", async () => {
    const before = (await state(page)).step;
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press("ArrowRight");
    expect((await state(page)).step).toBe(before);
  });
});

test("keyboard only: tab to the controls, set a breakpoint, debug, step, continue", async ({ page }) => {
  await open(page, "?scenario=report&lang=en&listing=rust");
  const focusOn = async (selector, max = 80) => {
    for (let i = 0; i < max; i++) {
      await page.keyboard.press("Tab");
      // The focused element, looking inside shadow roots.
      const focused = (s) => {
        let a = document.activeElement;
        while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
        return a?.matches(s.split(" ").pop());
      };
      if (await page.evaluate(focused, selector)) return;
    }
    throw new Error(`never reached ${selector} with Tab`);
  };
  await test.step("Tab to Debug, Enter, F10 twice", async () => {
    await focusOn(command("debug"));
    await page.keyboard.press("Enter");
    expect((await state(page)).label).toBe("loop.check_budget");
    await page.keyboard.press("F10");
    await page.keyboard.press("F10");
    expect((await state(page)).label).toBe("loop.rule");
  });
  await test.step("the line numbers are one Tab stop; ↓ reaches the ask line, Space sets it", async () => {
    const ask = await lineOf(page, "run_loop", "ask(&messages)");
    await focusOn(`${EL} .alp-bp`, 40);
    const line = () => page.evaluate(() => {
      let a = document.activeElement;
      while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
      return a?.classList.contains("alp-bp") ? Number(a.dataset.line) : null;
    });
    const first = await line();
    for (let i = 0; i < 200 && (await line()) !== ask; i++) await page.keyboard.press("ArrowDown");
    expect(await line()).toBe(ask);
    // The code panel follows the focus: the focused line number is in its view.
    const seen = await page.$eval(EL, (e) => {
      const code = e.shadowRoot.querySelector(".alp-code").getBoundingClientRect();
      const b = e.shadowRoot.activeElement.getBoundingClientRect();
      return b.top >= code.top - 1 && b.bottom <= code.bottom + 1;
    });
    expect(seen, "the focused line number is in view").toBe(true);
    expect((await state(page)).label, "↓ on a line number moves the focus, not the run").toBe("loop.rule");
    await page.keyboard.press("Space");
    expect(await pressed(page, ask)).toBe("true");
    await page.keyboard.press("End");
    await page.keyboard.press("Home");
    expect(await line()).toBe(first);
    // One Tab stop: the next Tab leaves the line numbers.
    await page.keyboard.press("Tab");
    expect(await line(), "Tab goes past the other line numbers").toBe(null);
  });
  await test.step("F8 continues to ask, to ask again, to the end", async () => {
    await page.keyboard.press("F8");
    expect((await state(page)).label).toBe("loop.ask");
    await page.keyboard.press("F8");
    expect((await state(page)).label).toBe("loop.ask");
    expect((await state(page)).recordLength).toBe(3);
    await page.keyboard.press("F8");
    expect((await state(page)).status).toBe("answered");
  });
  await test.step("the language buttons are reachable too", async () => {
    await focusOn(langButton("zh"), 400);
    await page.keyboard.press("Enter");
    expect((await state(page)).lang).toBe("zh");
  });
});

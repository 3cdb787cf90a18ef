// The lesson's panels: the setup and entry point as Python, the output
// ending with what the entry prints, and message cards that open their
// full text.
import { test, expect, EL, open, command, showView } from "./helpers.mjs";

for (const [lang, width] of [["zh", 1440], ["en", 1440], ["zh", 390], ["en", 390]]) {
  test(`setup, output and cards in ${lang} at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: width > 400 ? 900 : 844 });
    await open(page, `?scenario=report&lang=${lang}`);
    const setup = page.locator(`${EL} [data-role="setup"]`);
    await test.step("the setup panel shows question, SYSTEM, TOOLS, the stand-ins and the entry as code", async () => {
      if (width < 900) {
        await expect(setup, "closed on a phone").not.toHaveAttribute("open", "");
        await setup.locator("summary").click();
      }
      await expect(setup).toHaveAttribute("open", "");
      await expect(setup.locator("summary")).toHaveText(lang === "zh" ? "教学设置与入口" : "Setup and entry point");
      const text = await setup.textContent();
      for (const needle of ["QUESTION = ", "SYSTEM = ", "TOOLS = ", '"name": "run_main"', "ZeroDivisionError",
        "class Messages:", "subprocess = Runs()", "outcome = run_loop(ask, execute, max_calls=4)", 'print(outcome["text"])']) {
        expect(text, needle).toContain(needle);
      }
      // The stand-ins' comments are in the reader's language.
      expect(await setup.locator('[data-role="setup-code"]').textContent()).toContain(
        lang === "zh" ? "代替 client.messages" : "Stands in for client.messages");
      expect(text).toContain(lang === "zh" ? "教学替身：模型依次给出的回复" : "Teaching double: the model's replies, in order");
    });
    await test.step("at the end the output ends with what the entry prints", async () => {
      await page.locator(command("run")).click();
      const output = await page.locator(`${EL} [data-role="output"]`).textContent();
      const lines = output.split("\n");
      expect(lines[0]).toBe(lang === "zh" ? "第 1 次请求模型" : "model call 1");
      expect(output).toContain(lang === "zh" ? "answered · 模型调用 2 次" : "answered · model calls: 2");
      // The last line is the model's answer, printed by print(outcome["text"]).
      const state = await page.$eval(EL, (e) => e.outcome().result.text);
      expect(lines.at(-1)).toBe(state.split("\n").at(-1));
    });
    await test.step("the tool_result card shows the last line of the traceback", async () => {
      await showView(page, "record");
      const card = await page.locator(`${EL} [data-message-index="2"]`).textContent();
      expect(card).toContain("ZeroDivisionError: division by zero");
    });
    await test.step("a card opens its full text by click and by Enter", async () => {
      await page.locator(`${EL} [data-message-index="2"]`).click();
      const full = page.locator(`${EL} [data-role="card"]`);
      await expect(full).toContainText('"tool_use_id": "call_1"');
      await expect(full).toContainText("Traceback (most recent call last)");
      await page.locator(`${EL} [data-message-index="2"]`).click();
      await expect(full).toBeEmpty();
      await page.locator(`${EL} [data-message-index="1"]`).focus();
      await page.keyboard.press("Enter");
      await expect(full).toContainText('"type": "tool_use"');
      await page.keyboard.press("Escape");
      await expect(full).toBeEmpty();
    });
  });
}

test("on a phone the setup starts closed", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, "?scenario=report&lang=en");
  await expect(page.locator(`${EL} [data-role="setup"]`)).not.toHaveAttribute("open", "");
});

test("run_main and ask_claude print what their entry returns", async ({ page }) => {
  await open(page, "?scenario=error&lang=en");
  await page.locator(command("run")).click();
  const output = page.locator(`${EL} [data-role="output"]`);
  await expect(output).toContainText("is_error: True");
  await expect(output).toContainText("exit_code=1");
  await page.$eval(EL, (e) => { e.load("request"); e.command("run"); });
  await expect(output).toContainText("stop_reason: tool_use");
  await expect(output).toContainText("tool_use id: call_1");
});

for (const width of [1440, 390]) test(`the question, the model's words and what the model reads follow the language (${width} px)`, async ({ page }) => {
  await page.setViewportSize({ width, height: width > 400 ? 900 : 844 });
  await open(page, "?scenario=report&lang=zh");
  await page.locator(command("run")).click();
  const cardsText = () => page.$$eval(`${EL} svg[data-role="record"] [data-message-index]`, (g) => g.map((c) => c.textContent));
  let cards = await cardsText();
  expect(cards[0]).toContain("请运行 main.py，只把结果告诉我。");
  expect(cards[3]).toContain("main.py 运行失败：ZeroDivisionError");
  await expect(page.locator(`${EL} [data-role="setup"]`)).toContainText("按用户的要求工作");
  const before = await page.$eval(EL, (e) => e.state());
  await page.locator(`${EL} [data-lang="en"]`).click();
  // (once English's table has arrived: data/en.json)
  await page.waitForFunction((el) => document.querySelector(el).state().lang === "en", EL);
  const after = await page.$eval(EL, (e) => e.state());
  expect([after.step, after.status, after.lang]).toEqual([before.step, before.status, "en"]);
  cards = await cardsText();
  expect(cards[0]).toContain("Run main.py and only report the result.");
  expect(cards[3]).toContain("main.py failed: ZeroDivisionError");
  await expect(page.locator(`${EL} [data-role="setup"]`)).toContainText("Work on the user's request.");
});

test("the current line keeps context in view; the figure scrolls to the card that changed", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, "?scenario=keeps-asking&lang=en");
  await page.$eval(EL, (e) => e.setAttribute("height", "260"));
  await page.locator(command("debug")).click();
  // Step until a step adds a card to a record that no longer fits.
  for (let i = 0; i < 200; i++) {
    const before = (await page.$eval(EL, (e) => e.state())).recordLength;
    await page.locator(command("step")).click();
    const now = await page.$eval(EL, (e) => ({ n: e.state().recordLength, scrolls: e.shadowRoot.querySelector(".alp-figure").scrollHeight > e.shadowRoot.querySelector(".alp-figure").clientHeight }));
    if (now.n > before && now.n >= 5 && now.scrolls) break;
  }
  const view = await page.$eval(EL, (e) => {
    const code = e.shadowRoot.querySelector(".alp-code");
    const row = e.shadowRoot.querySelector('[aria-current="step"]');
    const r = row.getBoundingClientRect(), c = code.getBoundingClientRect();
    const fig = e.shadowRoot.querySelector(".alp-figure");
    const changed = [...e.shadowRoot.querySelectorAll(".alp-figure .alp-changed")].pop();
    const f = fig.getBoundingClientRect();
    const k = changed ? changed.getBoundingClientRect() : null;
    return {
      above: r.top - c.top, below: c.bottom - r.bottom, rowHeight: r.height,
      figureScrolls: fig.scrollHeight > fig.clientHeight,
      cardVisible: k ? k.top >= f.top - 1 && k.bottom <= f.bottom + 1 : null,
    };
  });
  expect(view.above, "context above the current line").toBeGreaterThanOrEqual(view.rowHeight * 2);
  expect(view.below, "context below the current line").toBeGreaterThanOrEqual(view.rowHeight * 2);
  expect(view.figureScrolls, "the record is taller than its panel").toBe(true);
  expect(view.cardVisible, "the changed card is in view").toBe(true);
});

test("on a 390 px phone nothing sticky covers the current line, the stage sits under the code, and nothing is clipped", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, "?scenario=report&lang=zh&breakpoints=loop.ask,loop.save_results");
  const place = () => page.$eval(EL, (e) => {
    const box = (sel) => e.shadowRoot.querySelector(sel).getBoundingClientRect();
    const row = box('[aria-current="step"]'), bar = box(".alp-dock"), stage = box(".alp-caption");
    return {
      row: [row.top, row.bottom], bar: [bar.top, bar.bottom],
      covered: row.bottom > bar.top && row.top < bar.bottom,
      rowInView: row.top >= -1 && row.bottom <= innerHeight + 1,
      stageInView: stage.top >= -1 && stage.bottom <= innerHeight + 1 && stage.height > 0,
    };
  });
  await page.locator(command("debug")).click();
  // A learner scrolls the code up, part of it under the sticky controls.
  await page.$eval(EL, (e) => {
    const code = e.shadowRoot.querySelector(".alp-code").getBoundingClientRect();
    scrollBy(0, code.top - e.shadowRoot.querySelector(".alp-dock").getBoundingClientRect().height + 150);
  });
  for (const name of ["continue", "continue", "step", "continue", "back", "step", "step", "step"]) {
    await page.locator(command(name)).click();
    const at = await place();
    expect(at.covered, `the current line is not under the controls after ${name}: ${JSON.stringify(at)}`).toBe(false);
    expect(at.rowInView, `the current line is on screen after ${name}`).toBe(true);
    expect(at.stageInView, `the stage is on screen under the code after ${name}`).toBe(true);
  }
  // Switched to the record, its figure and the stage on screen, a Step
  // leaves the page where it is.
  await showView(page, "record");
  const y = await page.evaluate(() => scrollY);
  await page.locator(command("step")).click();
  expect(await page.evaluate(() => scrollY), "reading the figure, the page stays").toBe(y);
  const sizes = await page.$eval(EL, (e) => {
    const fig = e.shadowRoot.querySelector(".alp-figure");
    const svg = fig.querySelector("svg").getBoundingClientRect();
    const bps = [...e.shadowRoot.querySelectorAll(".alp-bp")].map((b) => b.getBoundingClientRect()).filter((r) => r.height > 0);
    return {
      clipped: fig.scrollWidth > fig.clientWidth || svg.right > fig.getBoundingClientRect().right + 1,
      smallest: Math.min(...bps.map((r) => Math.min(r.width, r.height))),
      buttons: Math.min(...[...e.shadowRoot.querySelectorAll(".alp-btn")].map((b) => b.getBoundingClientRect().height)),
    };
  });
  expect(sizes.clipped, "the figure fits the width").toBe(false);
  expect(sizes.smallest, "breakpoint targets").toBeGreaterThanOrEqual(44);
  expect(sizes.buttons, "control targets").toBeGreaterThanOrEqual(44);
});

test("a narrow element lays its figure out narrow (wrapped, not shrunk), and follows a resize", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, "?scenario=two-calls&lang=en");
  await page.locator(command("run")).click();
  await showView(page, "record");
  const figure = () => page.$eval(EL, (e) => {
    const svg = e.shadowRoot.querySelector('svg[data-role="record"]');
    const box = e.shadowRoot.querySelector(".alp-figure");
    return { width: svg.viewBox.baseVal.width, scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width, fits: box.scrollWidth <= box.clientWidth };
  });
  const narrow = await figure();
  expect(narrow.width).toBe(340);
  expect(narrow.scale, "text is drawn at about its own size").toBeGreaterThan(0.95);
  expect(narrow.fits).toBe(true);
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect.poll(async () => (await figure()).width).toBe(520);
  const state = await page.$eval(EL, (e) => e.state());
  expect(state.status, "a resize changes nothing else").toBe("answered");
});

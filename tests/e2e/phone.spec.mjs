// A phone screen that teaches (issue 44, point 6): at 390 × 844 the
// controls, the timeline and a code | record switch stay at the top; under
// them one panel, the code or the record, with the caption under it in both
// views; the record button counts the messages and marks a step that added
// one; every tap target is at least 44 × 44 px; a wrapped row's number
// stands by its first line. At 1440 px nothing of this shows.
//! Lessons tested: lesson one (report, two-calls).
import { test, expect, EL, open, command } from "./helpers.mjs";

const PHONE = { width: 390, height: 844 };
const view = (name) => `${EL} .alp-view[data-view="${name}"]`;

/** In the page: where the parts are, and which panel shows. */
function parts() {
  const root = document.querySelector("agent-loop-playground").shadowRoot;
  const box = (sel) => {
    const el = root.querySelector(sel);
    const r = el?.getBoundingClientRect();
    return r && r.height > 0 ? { top: r.top, bottom: r.bottom } : null;
  };
  const onScreen = (r) => !!r && r.top >= -1 && r.bottom <= innerHeight + 1;
  const dock = box(".alp-dock");
  const clear = (r) => onScreen(r) && r.top >= dock.bottom - 1;
  const count = root.querySelector(".alp-view-count");
  return {
    code: !!box(".alp-code"),
    figure: !!box(".alp-figure"),
    lineOnScreen: clear(box('[aria-current="step"]')),
    figureOnScreen: clear(box(".alp-figure")),
    captionOnScreen: clear(box(".alp-caption")),
    switchOnScreen: onScreen(box('.alp-view[data-view="record"]')),
    count: count?.textContent ?? "",
    grew: count?.dataset.grew ?? "",
    record: root.querySelectorAll('svg[data-role="record"] [data-message-index]').length,
    pressed: [...root.querySelectorAll(".alp-view")].filter((b) => b.getAttribute("aria-pressed") === "true").map((b) => b.dataset.view),
  };
}

/** In the page: `parts` given to it, the walk of a whole run by the
 *  element's own buttons (a click each, no round trip per step). */
async function withParts(page) {
  await page.evaluate(`window.alpParts = ${parts}`);
}

/** In the page, after Debug: every step in the code view, then one tap
 *  to the record and one back, what is wrong at each. */
function walkBothViews() {
  const root = document.querySelector("agent-loop-playground").shadowRoot;
  const el = root.host;
  const tap = (sel) => root.querySelector(sel).click();
  const problems = [];
  let steps = 0, grewSeen = 0;
  for (; steps < 80; steps++) {
    const before = window.alpParts();
    const at = `step ${el.state().step}`;
    if (!before.lineOnScreen) problems.push(`${at}: the line is not on screen clear of the dock`);
    if (!before.captionOnScreen) problems.push(`${at}: the caption is not on screen (code view)`);
    if (!before.switchOnScreen) problems.push(`${at}: the record button is not on screen`);
    if (before.figure) problems.push(`${at}: the figure shows beside the code`);
    tap('.alp-view[data-view="record"]');
    const record = window.alpParts();
    if (!record.figureOnScreen || !record.captionOnScreen || record.code) problems.push(`${at}: record view ${JSON.stringify(record)}`);
    if (record.count !== String(record.record)) problems.push(`${at}: the button counts ${record.count}, the record has ${record.record}`);
    if (record.grew === "true") grewSeen++;
    tap('.alp-view[data-view="code"]');
    if (el.state().status !== "paused") break;
    tap('[data-command="step"]');
  }
  return { problems: problems.slice(0, 6), steps, grewSeen };
}

for (const lang of ["zh", "en"]) {
  for (const scheme of ["light", "dark"]) {
    test(`a phone (${lang}, ${scheme}): one panel under the dock, the caption always under it, the record one tap away on every step`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize(PHONE);
      await open(page, `?scenario=report&lang=${lang}`);
      await withParts(page);
      expect(await page.evaluate(() => window.alpParts()), "before the start: the code, not the figure").toMatchObject({ code: true, figure: false, pressed: ["code"] });
      await page.locator(command("debug")).click();
      // A real tap (nothing covers the switch), then the walk.
      await page.locator(view("record")).click();
      expect(await page.evaluate(() => window.alpParts())).toMatchObject({ code: false, figureOnScreen: true, captionOnScreen: true, pressed: ["record"] });
      await page.locator(view("code")).click();
      const walk = await page.evaluate(walkBothViews);
      expect(walk.problems).toEqual([]);
      expect(walk.steps, "walked the run").toBeGreaterThan(20);
      expect(walk.grewSeen, "steps that added a message were marked").toBeGreaterThanOrEqual(3);
    });
  }
}

/** In the page, in the record view: Step to the end; at each step whether
 *  the view is kept, figure and caption on screen, and whether the record
 *  grew beside whether the button says so. */
function walkRecord() {
  const root = document.querySelector("agent-loop-playground").shadowRoot;
  const el = root.host;
  const out = [];
  for (let i = 0; i < 60; i++) {
    const before = window.alpParts();
    root.querySelector('[data-command="step"]').click();
    const after = window.alpParts();
    out.push({ kept: after.pressed.join() === "record", seen: after.figureOnScreen && after.captionOnScreen, added: Number(after.count) > Number(before.count), grew: after.grew === "true" });
    if (el.state().status !== "paused") break;
  }
  return out;
}

test("on a phone the record view stays through steps, and the step that adds a message is marked on its button", async ({ page }) => {
  await page.setViewportSize(PHONE);
  await open(page, "?scenario=two-calls&lang=en");
  await withParts(page);
  await page.locator(command("debug")).click();
  await page.locator(view("record")).click();
  const marks = await page.evaluate(walkRecord);
  expect(marks.filter((m) => !m.kept || !m.seen), "the record view kept, figure and caption on screen").toEqual([]);
  expect(marks.filter((m) => m.added).length, "messages were added").toBeGreaterThanOrEqual(3);
  expect(marks.filter((m) => m.added !== m.grew), "the mark is on exactly the steps that added a message").toEqual([]);
  // Back one step past an append: the record shrinks, nothing is marked new.
  await page.locator(command("back")).click();
  expect((await page.evaluate(() => window.alpParts())).grew).toBe("false");
});

test("on a phone every tap target is at least 44 × 44 px, and a wrapped row's number stands by its first line", async ({ page }) => {
  await page.setViewportSize(PHONE);
  await open(page, "?scenario=report&lang=zh");
  const sizes = await page.$eval(EL, (e) => {
    const r = e.shadowRoot;
    const small = [];
    for (const el of r.querySelectorAll(".alp-btn, .alp-bp, .alp-view, .alp-lang, .alp-listing, .alp-select, .alp-predict, .alp-slider")) {
      const b = el.getBoundingClientRect();
      if (b.height === 0) continue;
      if (b.width < 44 || b.height < 44) small.push(`${el.className} ${el.textContent.trim().slice(0, 12)}: ${Math.round(b.width)} × ${Math.round(b.height)}`);
    }
    // The rows that wrap: the number's text at the first line's height.
    const off = [];
    for (const row of r.querySelectorAll(".alp-row:not(.alp-instr)")) {
      const code = row.querySelector("code").getBoundingClientRect();
      const bp = row.querySelector(".alp-bp, .alp-gutter");
      if (code.height < 60 || !bp) continue;
      const range = document.createRange();
      range.selectNodeContents(bp);
      const number = range.getBoundingClientRect();
      const text = document.createTreeWalker(row.querySelector("code"), NodeFilter.SHOW_TEXT, { acceptNode: (n) => n.data.trim() ? 1 : 3 }).nextNode();
      const first = document.createRange();
      first.setStart(text, text.data.search(/\S/));
      first.setEnd(text, text.data.search(/\S/) + 1);
      const line = first.getBoundingClientRect();
      if (Math.abs(number.top - line.top) > 4) off.push(`line ${row.dataset.line}: number at ${Math.round(number.top - code.top)} px, first line at ${Math.round(line.top - code.top)} px`);
    }
    // The setup's heading still shows it opens (its disclosure marker: a summary shown as a list item).
    const summary = r.querySelector(".alp-setup summary");
    const b = summary.getBoundingClientRect();
    const setup = { display: getComputedStyle(summary).display, height: Math.round(b.height) };
    return { small: small.slice(0, 8), off: off.slice(0, 5), setup };
  });
  expect(sizes.small, "targets smaller than 44 × 44").toEqual([]);
  expect(sizes.off, "numbers beside a wrapped row's first line").toEqual([]);
  expect(sizes.setup.display, "the setup heading keeps its open/close marker").toBe("list-item");
  expect(sizes.setup.height, "the setup heading is a 44 px target").toBeGreaterThanOrEqual(44);
});

test("at 1440 px the switch is not there: code and record side by side", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  await page.locator(command("debug")).click();
  const p = await page.evaluate(parts);
  expect(p).toMatchObject({ code: true, figure: true, switchOnScreen: false });
});

test("on a phone a question (predict first) stands with its line on screen, clear of the dock, its choices 44 px tall", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await open(page, "?scenario=report&lang=en&predict=1");
  await withParts(page);
  await page.locator(command("debug")).click();
  const seen = [];
  for (let i = 0; i < 80 && seen.length < 3; i++) {
    const q = await page.$eval(EL, (e) => {
      const root = e.shadowRoot;
      if (!root.querySelector(".alp-q-open")) return null;
      const choices = [...root.querySelectorAll(".alp-q-open [data-choice]")].map((c) => c.getBoundingClientRect().height);
      return { ...window.alpParts(), smallest: Math.min(...choices) };
    });
    if (q) {
      seen.push(q);
      expect(q.lineOnScreen, `question ${seen.length}: its line on screen, clear of the dock`).toBe(true);
      expect(q.smallest, "choices are 44 px tall").toBeGreaterThanOrEqual(44);
      await page.locator(`${EL} .alp-q-open [data-choice="0"]`).click();
      expect((await page.evaluate(() => window.alpParts())).lineOnScreen, "after the answer").toBe(true);
    }
    await page.locator(command("step")).click();
  }
  expect(seen.length, "questions were asked").toBeGreaterThanOrEqual(2);
});

test("on a phone deep code keeps room for its text: every row of another loop has room for 16 characters a line", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await open(page, "?scenario=core-says-done&compare=stop_on_text&lang=zh");
  await page.$eval(EL, (e) => { e.command("debug"); for (let i = 0; i < 8; i++) e.command("step"); });
  // Every row of the listing: room for at least 16 characters on its first
  // line (after its own indentation) and on each continuation line.
  const narrow = await page.$eval(EL, (e) => [...e.shadowRoot.querySelectorAll(".alp-row:not(.alp-instr) code")].flatMap((code) => {
    const probe = document.createElement("span");
    probe.textContent = "0000000000";
    probe.style.cssText = "position:absolute;white-space:nowrap;text-indent:0;padding:0";
    code.append(probe);
    const ch = probe.getBoundingClientRect().width / 10;
    probe.remove();
    if (!(ch > 0)) return ["no character width measured"];
    const width = code.getBoundingClientRect().width;
    const lead = code.querySelector(".alp-lead")?.getBoundingClientRect().width ?? 0;
    const style = getComputedStyle(code);
    const first = (width - parseFloat(style.paddingLeft) - parseFloat(style.textIndent) - lead) / ch;
    const rest = (width - parseFloat(style.paddingLeft)) / ch;
    return Math.min(first, rest) < 16 ? [`${code.textContent.trim().slice(0, 30)}: ${Math.floor(first)} and ${Math.floor(rest)} characters`] : [];
  }));
  expect(narrow).toEqual([]);
});

test("on a phone, after the switch, the other buttons still do what they say (listing, language, a breakpoint)", async ({ page }) => {
  await page.setViewportSize(PHONE);
  await open(page, "?scenario=report&lang=zh");
  await page.locator(command("debug")).click();
  await page.locator(view("record")).click();
  await page.locator(view("code")).click();
  await page.locator(`${EL} [data-listing="rust"]`).click();
  expect(await page.$eval(EL, (e) => e.shadowRoot.querySelector(".alp").dataset.listing), "the Rust listing").toBe("rust");
  // The learner scrolls up to the language buttons: a tap there (not a
  // move of the step) leaves them on screen.
  await page.locator(`${EL} [data-lang="en"]`).scrollIntoViewIfNeeded();
  await page.locator(`${EL} [data-lang="en"]`).click();
  await expect.poll(() => page.$eval(EL, (e) => e.state().lang)).toBe("en");
  const button = await page.$eval(EL, (e) => e.shadowRoot.querySelector('[data-lang="en"]').getBoundingClientRect().toJSON());
  expect(button.top >= 0 && button.bottom <= 844, `the language buttons are still on screen: ${JSON.stringify(button)}`).toBe(true);
  const pressed = await page.$$eval(`${EL} .alp-view`, (bs) => bs.map((b) => b.getAttribute("aria-pressed")));
  expect(pressed, "the switch is as it was left").toEqual(["true", "false"]);
});

// A counter that says a breakpoint's hits wraps under itself rather than
// squeeze the slider a learner drags (it took two thirds of the row).
test("at a breakpoint the counter wraps and the slider keeps half the row", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, "?scenario=report&lang=zh&breakpoints=loop.save_results&step=loop.save_results");
  await expect(page.locator(`${EL} .alp-counter`)).toContainText("此断点已命中 1 次");
  const [slider, row] = await page.$eval(EL, (e) => [".alp-slider", ".alp-timeline"]
    .map((s) => e.shadowRoot.querySelector(s).getBoundingClientRect().width));
  expect(slider / row).toBeGreaterThan(0.5);
});

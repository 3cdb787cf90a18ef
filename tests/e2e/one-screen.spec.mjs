// One screen: at 1440 × 900 and 1280 × 800, zh and en, light and dark, on
// every step of the lesson's eight scenarios, the controls, the current
// line, the figure and the explanation of the step are inside the window
// without scrolling the page, and no code row is cut; on a 390 px phone the
// line and its stage are on screen, clear of the sticky controls, and the
// record is one tap away (its switch on screen).
import { test, expect, EL, open, command, COURSE, openCourse } from "./helpers.mjs";

const LESSON = ["request", "error", "success", "timeout", "reject", "report", "limit", "truncated"];

/** Every step of the scenario on screen, measured in the page: what is
 *  outside the window (first few), the steps walked, the page's scroll. */
function walkSteps() {
  const e = document.querySelector("agent-loop-playground");
  const root = e.shadowRoot;
  const box = (sel) => root.querySelector(sel)?.getBoundingClientRect();
  const inside = (r) => r && r.height > 0 && r.top >= -1 && r.left >= -1 && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1;
  const out = [];
  let steps = 0;
  e.command("reset");
  for (let i = 0; i < 400; i++) {
    e.command("stepInto");
    steps++;
    const s = e.state();
    const parts = {
      controls: box(".alp-controls"),
      line: box('[aria-current="step"]'),
      figure: box(".alp-figure"),
      stage: box('[data-role="caption"]'),
    };
    // The current row is in the code panel's view, not scrolled out of it.
    const panel = box(".alp-code");
    if (parts.line && panel && (parts.line.top < panel.top - 1 || parts.line.bottom > panel.bottom + 1)) parts.line = null;
    for (const [name, r] of Object.entries(parts)) {
      if (!inside(r) && out.length < 6) out.push(`${s.scenario} step ${s.step} (${s.label}): ${name} ${r ? `${Math.round(r.top)}–${Math.round(r.bottom)}` : "missing"}`);
    }
    if (s.step + 1 >= s.steps) break;
  }
  // A row too long for the panel wraps: nothing is cut or scrolled sideways.
  const code = root.querySelector(".alp-code");
  const cut = [...root.querySelectorAll(".alp-row code")].filter((c) => c.scrollWidth > c.clientWidth + 1).length;
  return { out, steps, scrolled: scrollY, cut, sideways: code.scrollWidth > code.clientWidth + 1 };
}

for (const [width, height] of [[1440, 900], [1280, 800]]) {
  for (const lang of ["zh", "en"]) {
    for (const scheme of ["light", "dark"]) {
      test(`one screen at ${width} × ${height}, ${lang}, ${scheme}: line, figure and stage in view on every step`, async ({ page }) => {
        await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
        await page.setViewportSize({ width, height });
        let walked = 0;
        for (const id of LESSON) {
          await open(page, `?scenario=${id}&lang=${lang}`);
          const r = await page.evaluate(walkSteps);
          walked += r.steps;
          expect(r.out, `${id}: outside the window`).toEqual([]);
          expect(r.scrolled, `${id}: the page never scrolls`).toBe(0);
          expect(r.cut, `${id}: rows cut`).toBe(0);
          expect(r.sideways, `${id}: the code scrolls sideways`).toBe(false);
        }
        expect(walked, "every step of the eight").toBeGreaterThan(150);
      });
    }
  }
}

test("an element 760 px wide in a course page keeps code and figure side by side on one screen", async ({ page }) => {
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.route("**/host-760.html", (route) => route.fulfill({ contentType: "text/html",
    body: `<!doctype html><html lang="en"><title>Course</title><body style="margin:0"><main style="width:760px;margin:0 auto">
      <agent-loop-playground scenario="report" lang="en"></agent-loop-playground></main>
      <script type="module" src="./element.js"></script>` }));
  await page.goto("/host-760.html");
  await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
  const r = await page.evaluate(walkSteps);
  expect(r.out).toEqual([]);
  expect(r.scrolled).toBe(0);
  const side = await page.$eval(EL, (e) => {
    const code = e.shadowRoot.querySelector(".alp-code").getBoundingClientRect();
    const fig = e.shadowRoot.querySelector(".alp-figure").getBoundingClientRect();
    return fig.left >= code.right - 1;
  });
  expect(side, "the figure stands beside the code").toBe(true);
});

for (const [width, height] of [[1440, 900], [1280, 800]]) {
  test(`predict first at ${width} × ${height}: each question and its verdict appear beside the code, and the page never scrolls`, async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.setViewportSize({ width, height });
    await open(page, "?scenario=report&lang=en&predict=1");
    const view = () => page.$eval(EL, (e) => {
      const box = (sel) => e.shadowRoot.querySelector(sel)?.getBoundingClientRect();
      const inside = (r) => !!r && r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1;
      const q = e.shadowRoot.querySelector(".alp-q-open, .alp-q-result");
      return { y: scrollY, line: inside(box('[aria-current="step"]')), panel: !q || inside(q.getBoundingClientRect()), asked: !!e.shadowRoot.querySelector(".alp-q-open") };
    });
    let asked = 0;
    await page.locator(command("debug")).click();
    for (let i = 0; i < 70 && asked < 4; i++) {
      const v = await view();
      expect(v, `move ${i}`).toMatchObject({ y: 0, line: true, panel: true });
      if (v.asked) {
        asked++;
        await page.locator(`${EL} .alp-q-open [data-choice="0"]`).click();
        expect(await view(), `after answering question ${asked}`).toMatchObject({ y: 0, line: true, panel: true });
      }
      await page.locator(command("step")).click();
    }
    expect(asked, "questions were asked").toBeGreaterThanOrEqual(3);
  });
}

/** In the page: whether the current row is whole inside the code panel,
 *  and the rows whose text wraps inside a name (`unw|rap_or`). */
function currentRowAndBreaks() {
  const root = document.querySelector("agent-loop-playground").shadowRoot;
  const row = root.querySelector('[aria-current="step"]').getBoundingClientRect();
  const panel = root.querySelector(".alp-code").getBoundingClientRect();
  const whole = row.top >= panel.top - 1 && row.bottom <= panel.bottom + 1;
  const inName = [];
  for (const code of root.querySelectorAll(".alp-row code")) {
    if (code.getBoundingClientRect().height < 30) continue; // one line: nothing wraps
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    let prev = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getClientRects()[0];
        const ch = node.data[i];
        if (r && prev && r.top > prev.top + 4 && /\w/.test(ch) && /\w/.test(prev.ch)) inName.push(code.textContent.trim().slice(0, 50));
        if (r) prev = { top: r.top, ch };
      }
    }
  }
  return { whole, inName: [...new Set(inName)] };
}

for (const [width, height] of [[390, 844], [1440, 900]]) {
  test(`switching Python ↔ Rust and the tracing lines keeps the whole current row in the code panel, wrapped at its joints (${width} px)`, async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.setViewportSize({ width, height });
    await open(page, "?scenario=report&lang=en");
    const problems = [];
    for (let n = 0; n < 60; n += 4) {
      await page.$eval(EL, (e) => { for (let i = 0; i < 4; i++) e.command("step"); });
      for (const toggle of [`${EL} [data-listing="rust"]`, `${EL} .alp-reveal-box`, `${EL} .alp-reveal-box`, `${EL} [data-listing="python"]`]) {
        await page.locator(toggle).click();
        const r = await page.evaluate(currentRowAndBreaks);
        if (!r.whole) problems.push(`step ${n} after ${toggle}: the current row is cut by the panel's edge`);
        for (const t of r.inName) problems.push(`step ${n}: wraps inside a name: ${t}`);
      }
    }
    expect([...new Set(problems)]).toEqual([]);
  });
}

/** In the page, on a phone: every step of the scenario (Step into, by the API); the current line on screen, in its panel and clear of the
 *  sticky dock, the stage on screen, the record one tap away. */
function walkPhone() {
  const e = document.querySelector("agent-loop-playground");
  const root = e.shadowRoot;
  const box = (sel) => root.querySelector(sel).getBoundingClientRect();
  const out = [];
  let steps = 0;
  e.command("debug");
  for (let i = 0; i < 400; i++) {
    const s = e.state();
    const [row, code, bar, stage, toRecord] = ['[aria-current="step"]', ".alp-code", ".alp-dock", ".alp-caption", '.alp-view[data-view="record"]'].map(box);
    const why = [];
    if (row.top < bar.bottom - 1 && row.bottom > bar.top) why.push("line under the controls");
    if (row.top < -1 || row.bottom > innerHeight + 1) why.push(`line off screen ${Math.round(row.top)}`);
    if (row.top < code.top - 1 || row.bottom > code.bottom + 1) why.push("line cut by its panel");
    if (stage.top < -1 || stage.bottom > innerHeight + 1) why.push(`stage off screen ${Math.round(stage.top)}–${Math.round(stage.bottom)}`);
    if (toRecord.top < -1 || toRecord.bottom > innerHeight + 1) why.push("the record's switch off screen");
    if (why.length && out.length < 6) out.push(`${s.scenario} step ${s.step} (${s.label}): ${why.join(", ")}`);
    steps++;
    if (s.step + 1 >= s.steps) break;
    e.command("stepInto");
  }
  // At the end, the record shown in its place fits the width.
  root.querySelector('.alp-view[data-view="record"]').click();
  const fig = root.querySelector(".alp-figure");
  return { out, steps, clipped: fig.clientWidth === 0 || fig.scrollWidth > fig.clientWidth + 1 };
}

for (const lang of ["zh", "en"]) {
  for (const scheme of ["light", "dark"]) {
    test(`a 390 × 844 phone, ${lang}, ${scheme}: on every step of the eight the line and its stage are on screen, clear of the dock, the record one tap away`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      await page.setViewportSize({ width: 390, height: 844 });
      let walked = 0;
      for (const id of LESSON) {
        await open(page, `?scenario=${id}&lang=${lang}`);
        const r = await page.evaluate(walkPhone);
        walked += r.steps;
        expect(r.out, id).toEqual([]);
        expect(r.clipped, `${id}: the figure fits the width`).toBe(false);
      }
      expect(walked).toBeGreaterThan(150);
    });
  }
}

test("in a course page at 1280 × 800, Continue brings a line below the window into view, the controls kept on screen", async ({ page }) => {
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await openCourse(page);
  const loop = page.locator(COURSE.loop);
  // The learner scrolls the loop's playground up into the window (its top 300 px down).
  await loop.evaluate((e) => window.scrollBy(0, e.getBoundingClientRect().top - 300));
  const before = await page.evaluate(() => window.scrollY);
  await loop.locator('[data-command="debug"]').click();
  await loop.locator('[data-command="continue"]').click();
  const seen = await loop.evaluate((e) => {
    const row = e.shadowRoot.querySelector('[aria-current="step"]').getBoundingClientRect();
    const bar = e.shadowRoot.querySelector(".alp-controls").getBoundingClientRect();
    return { row: [row.top, row.bottom], bar: [bar.top, bar.bottom], height: innerHeight };
  });
  expect(seen.row[1], `the current line (${seen.row}) is in the window`).toBeLessThanOrEqual(seen.height);
  expect(seen.row[0]).toBeGreaterThanOrEqual(0);
  expect(seen.bar[0], "the controls stay on screen").toBeGreaterThanOrEqual(-1);
  // Loading the page never scrolled it on its own.
  await openCourse(page);
  expect(await page.evaluate(() => window.scrollY), "no scroll without a move").toBe(0);
  expect(before).toBeGreaterThan(0);
});

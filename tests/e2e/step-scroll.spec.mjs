// A step is one frame (issue 44, point 5): after every step of `report`
// the current line is inside the code panel and on screen at once, in the
// same task as the click, before any animation could run: no smooth
// scrolling of the code panel for steps, at desktop and phone sizes, with
// the reader's motion setting as browsers default it (the suite's config
// asks for reduced motion).
import { test, expect, EL, open } from "./helpers.mjs";

test.use({ contextOptions: { reducedMotion: "no-preference" } });

for (const [width, height] of [[1440, 900], [1280, 800], [390, 844]]) {
  test(`the current line is in view in the task of the step, at ${width} × ${height}`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await open(page, "?scenario=report&lang=zh");
    const out = await page.$eval(EL, (e) => {
      const code = e.shadowRoot.querySelector(".alp-code");
      const button = e.shadowRoot.querySelector('[data-command="stepInto"]');
      const missed = [];
      let steps = 0;
      e.command("reset");
      for (; steps < 400; steps++) {
        button.click();
        const row = e.shadowRoot.querySelector('[aria-current="step"]');
        if (!row) break;
        const r = row.getBoundingClientRect();
        const c = code.getBoundingClientRect();
        const inPanel = r.top >= c.top - 1 && r.bottom <= c.bottom + 1;
        const onScreen = r.top >= 0 && r.bottom <= innerHeight;
        if (!inPanel || !onScreen) missed.push(`step ${e.state().step} line ${row.dataset.line}: row ${Math.round(r.top)}–${Math.round(r.bottom)}, panel ${Math.round(c.top)}–${Math.round(c.bottom)}, window ${innerHeight}`);
        if (e.state().status !== "paused") break;
      }
      return { steps, missed };
    });
    expect(out.steps).toBeGreaterThan(20);
    expect(out.missed).toEqual([]);
  });
}

// Issue 44, point 3: the lesson tells learners to press 调试, 下一步 and
// 继续; the buttons carry those words (Debug, Next, Continue), with step
// into and out beside the next step.
for (const [lang, words] of [["zh", ["调试", "下一步", "单步进入", "单步跳出", "继续"]], ["en", ["Debug", "Next", "Step into", "Step out", "Continue"]]]) {
  test(`the step buttons carry the lesson's words (${lang})`, async ({ page }) => {
    await open(page, `?scenario=report&lang=${lang}`);
    const shown = await page.$eval(EL, (e) => ["debug", "step", "stepInto", "stepOut", "continue"]
      .map((c) => e.shadowRoot.querySelector(`[data-command="${c}"]`)?.textContent.trim() ?? ""));
    expect(shown).toEqual(words);
  });
}

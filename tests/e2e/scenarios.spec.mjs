// Every shipped scenario, picked from the scenario menu, runs to an end.
import { test, expect, EL, SEL, inside, open } from "./helpers.mjs";

test("every scenario loads, runs to its end, and emits one step event per move", async ({ page }) => {
  await open(page, "?lang=en");
  const ids = await page.$$eval(inside(SEL.enabledOption), (o) => o.length);
  expect(ids, `scenarios listed: ${ids}`).toBeGreaterThanOrEqual(20);
  // Lesson two's texts come in a pack, fetched when one of its scenarios is
  // first shown (packs.spec.mjs): here before the loop, which is synchronous.
  await page.$eval(EL, (e) => Promise.resolve(e.load("core-weather")).then(() => e.load("request")));
  const events = await page.$eval(
    EL,
    (e, selectSel) => {
      let n = 0;
      e.addEventListener("playground-step", () => n++);
      const select = e.shadowRoot.querySelector(selectSel);
      const statuses = [];
      for (const opt of [...select.options].filter((o) => !o.disabled)) {
        select.value = opt.value;
        select.dispatchEvent(new Event("change", { bubbles: true }));
        e.command("run");
        statuses.push(e.state().status);
      }
      return { n, statuses };
    },
    SEL.select,
  );
  expect(events.statuses.every((s) => s && s !== "paused" && s !== "ready"), JSON.stringify(events.statuses)).toBe(true);
  expect(events.n, "one event per load and one per run").toBe(ids * 2);
});

test("the picker lists each lesson's own scenarios first, in the lesson's order, by id", async ({ page }) => {
  await open(page, "?scenario=report&lang=zh");
  const groups = await page.$$eval(`${EL} ${SEL.optgroup}`, (gs) => gs.map((g) => [g.label, [...g.querySelectorAll("option")].map((o) => o.value)]));
  expect(groups[0]).toEqual(["第一课：八个例子", ["request", "error", "success", "timeout", "reject", "report", "limit", "truncated"]]);
  expect(groups[1]).toEqual(["第二课：核心循环", ["core-weather", "core-two-tools", "core-unknown-tool", "core-tool-raises", "core-max-tokens", "core-cap", "core-no-text", "core-refusal", "core-says-done", "core-four-turns"]]);
  expect(groups.slice(2).map((g) => g[0])).toEqual(["更多情况：ask_claude", "更多情况：run_main", "更多情况：run_loop"].filter((l) => groups.some((g) => g[0] === l)));
  expect(groups[groups.length - 1][1]).toContain("says-done");
  expect(groups[groups.length - 1][1]).toContain("stop-sequence");
});

for (const [lang, width] of [["en", 1440], ["zh", 390]]) test(`a breakpoint the scenario never reaches is named under the timeline (${lang}, ${width} px)`, async ({ page }) => {
  await page.setViewportSize({ width, height: width > 400 ? 900 : 844 });
  await open(page, `?scenario=limit&lang=${lang}&breakpoints=loop.answered,loop.ask`);
  const note = page.locator(`${EL} [data-role="unreached"]`);
  await expect(note).toBeVisible();
  await expect(note).toContainText(lang === "zh" ? "这个场景里不会停在这些断点" : "never reaches these breakpoints");
  await page.$eval(EL, (e) => e.load("report"));
  await expect(note).toBeHidden();
});

for (const [lang, width] of [["zh", 1440], ["en", 390]]) test(`says-done and stop-sequence: stop on stop_reason, never on the text (${lang}, ${width} px)`, async ({ page }) => {
  await page.setViewportSize({ width, height: width > 400 ? 900 : 844 });
  await open(page, `?scenario=says-done&lang=${lang}`);
  await page.$eval(EL, (e) => e.command("run"));
  const done = await page.$eval(EL, (e) => e.state());
  expect([done.status, done.recordLength]).toEqual(["answered", 4]);
  await page.$eval(EL, (e) => { e.load("stop-sequence"); e.command("run"); });
  expect((await page.$eval(EL, (e) => e.state())).status).toBe("model_stopped");
  await page.$eval(EL, (e) => { e.load("limit"); e.toggleBreakpoint("run_loop", "loop.call_limit"); e.command("debug"); });
  const caption = await page.locator(`${EL} [data-role="caption"]`).textContent();
  expect(caption).toContain(lang === "zh" ? "安全网" : "safety net");
});

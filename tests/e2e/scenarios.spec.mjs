// Every shipped scenario, picked from the scenario menu, runs to an end.
import { test, expect, EL, SEL, inside, open } from "./helpers.mjs";

test("every scenario loads, runs to its end, and emits one step event per move", async ({ page }) => {
  await open(page, "?lang=en");
  const ids = await page.$$eval(inside(SEL.enabledOption), (o) => o.length);
  expect(ids, `scenarios listed: ${ids}`).toBeGreaterThanOrEqual(20);
  const events = await page.$eval(
    EL,
    (e, selectSel) => {
      let n = 0;
      e.addEventListener("playground-step", () => n++);
      const select = e.querySelector(selectSel);
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

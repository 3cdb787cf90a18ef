// The code listing: tracing lines are hidden until revealed.
import { test, expect, EL, SEL, inside, open } from "./helpers.mjs";

test("instrumentation toggle reveals the tracing lines", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const visible = () => page.$$eval(inside(SEL.instr), (r) => r.filter((x) => x.offsetParent !== null).length);
  expect(await visible()).toBe(0);
  await page.locator(inside(SEL.revealBox)).check();
  const shown = await visible();
  expect(shown, `tracing lines visible: ${shown}`).toBeGreaterThan(20);
});

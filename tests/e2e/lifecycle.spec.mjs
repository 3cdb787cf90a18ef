// The element's life cycle: removing it releases its trace (once the task
// is over: a move within one task keeps it, see hardening.spec.mjs); adding
// it back builds a new one.
import { test, expect, EL, open } from "./helpers.mjs";

test("removing an element releases it; adding it back works", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const result = await page.evaluate(async (el) => {
    const e = document.querySelector(el);
    const parent = e.parentNode;
    e.remove();
    await new Promise((r) => setTimeout(r, 10));
    const gone = { state: e.state(), children: e.childElementCount };
    parent.appendChild(e);
    await new Promise((r) => e.addEventListener("playground-ready", r, { once: true }));
    e.command("run");
    return { gone, status: e.state().status };
  }, EL);
  expect(result.gone).toEqual({ state: null, children: 0 });
  expect(result.status).toBe("answered");
});

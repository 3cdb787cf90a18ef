// The code listing: tracing lines are hidden until revealed.
import { test, expect, EL, SEL, inside, open, state, command } from "./helpers.mjs";

test("instrumentation toggle reveals the tracing lines", async ({ page }) => {
  await open(page, "?scenario=report&lang=en&listing=rust");
  const visible = () => page.$$eval(inside(SEL.instr), (r) => r.filter((x) => x.offsetParent !== null).length);
  expect(await visible()).toBe(0);
  await page.locator(inside(SEL.revealBox)).check();
  const shown = await visible();
  expect(shown, `tracing lines visible: ${shown}`).toBeGreaterThan(20);
});

for (const [lang, width] of [["en", 1440], ["zh", 1440], ["en", 390], ["zh", 390]]) test(`the Python listing is shown by default; switching keeps the step and the breakpoints (${lang}, ${width} px)`, async ({ page }) => {
  await page.setViewportSize({ width, height: width > 400 ? 900 : 844 });
  await open(page, `?scenario=report&lang=${lang}&breakpoints=loop.save_results`);
  const buttons = () => page.$$eval(`${EL} [data-listing]`, (bs) => bs.filter((b) => b.tagName === "BUTTON").map((b) => [b.dataset.listing, b.getAttribute("aria-pressed")]));
  expect(await buttons()).toEqual([["python", "true"], ["rust", "false"]]);
  const firstRow = await page.$eval(`${EL} ${SEL.row} code`, (c) => c.textContent);
  expect(firstRow).toMatch(/^def run_loop\(ask, execute, max_calls=4, emit=print\):/);
  expect(await page.$eval(`${EL} ${SEL.code}`, (c) => c.textContent.includes("#|")), "the marks are not shown").toBe(false);
  await page.locator(command("debug")).click();
  const py = await state(page);
  expect([py.label, py.listing]).toEqual(["loop.save_results", "python"]);
  const pyRow = await page.$eval(`${EL} ${SEL.currentRow} code`, (c) => c.textContent.trim());
  expect(pyRow).toBe('messages.append({"role": "user", "content": results})');
  await page.locator(`${EL} [data-listing="rust"]`).click();
  const rust = await state(page);
  expect([rust.step, rust.label, rust.listing]).toEqual([py.step, "loop.save_results", "rust"]);
  expect(await page.$eval(`${EL} ${SEL.currentRow} code`, (c) => c.textContent.trim())).toBe('messages.push(json!({"role": "user", "content": results}));');
  expect(rust.breakpoints).toEqual([{ function: "run_loop", line: rust.line }]);
  expect(await page.$$eval(`${EL} ${SEL.currentRow}`, (r) => r.length), "exactly one current line").toBe(1);
  // The element API and attribute.
  await page.$eval(EL, (e) => e.setAttribute("listing", "python"));
  expect((await state(page)).listing).toBe("python");
  await page.$eval(EL, (e) => e.setListing("rust"));
  expect((await state(page)).listing).toBe("rust");
  await page.$eval(EL, (e) => e.setListing("python"));
  await expect(page.locator(`${EL} .alp-provenance`)).toContainText(lang === "zh" ? "在 CPython 上逐行核对" : "checks the Python listing line by line against CPython");
});

test("the locals panel uses the names of the listing shown", async ({ page }) => {
  await open(page, "?scenario=error&lang=en&breakpoints=main.cap");
  await page.locator(command("debug")).click();
  const names = () => page.$$eval(`${EL} .alp-locals dt`, (dts) => dts.map((d) => d.textContent));
  const python = await names();
  expect(python).toContain("output");
  expect(python, "Python has no returncode local").not.toContain("returncode");
  await page.locator(`${EL} [data-listing="rust"]`).click();
  expect(await names()).toContain("returncode");
});

test("the tracing lines line up with the code they trace", async ({ page }) => {
  await open(page, "?scenario=report&lang=en&listing=rust");
  await page.locator(`${EL} .alp-reveal-box`).click();
  const left = await page.$eval(EL, (e) => {
    const at = (sel) => e.shadowRoot.querySelector(sel).getBoundingClientRect().left;
    return [at(".alp-row:not(.alp-instr) code"), at(".alp-instr code")];
  });
  expect(left[1], "a tracing line starts where a code line does").toBeCloseTo(left[0], 0);
});

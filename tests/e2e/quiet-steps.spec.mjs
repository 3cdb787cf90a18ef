// A step writes only what changed (issue 24: the step's work). A write of
// the same value is not free: the browser restyles what the attribute can
// match (`lang` on <html>: the whole page and every playground in it), so a
// step that leaves the language alone must not set it again, and the
// playground sets no attribute to the value it already has. The address bar
// (the stand-alone page's link to the step) is written once the browser is
// idle, once for a burst of steps.
import { test, expect, EL, open } from "./helpers.mjs";

/** Steps `n` times (answering questions), recording every attribute write
 *  on <html> and every same-value attribute write inside the playground. */
const walk = (page, n) =>
  page.$eval(
    EL,
    (el, n) => {
      const html = [];
      const same = [];
      const name = (node) => `${node.localName}${node.getAttribute("class") ? "." + node.getAttribute("class").split(" ")[0] : ""}`;
      const page = new MutationObserver((records) => html.push(...records.map((r) => r.attributeName)));
      page.observe(document.documentElement, { attributes: true });
      const shadow = new MutationObserver(() => {});
      shadow.observe(el.shadowRoot, { attributes: true, attributeOldValue: true, subtree: true });
      for (let i = 0; i < n; i++) {
        const s = el.state();
        if (s.question) el.answer(0);
        else if (s.step >= s.steps - 1) el.command("reset");
        else el.command("stepInto");
        // One write per attribute in a step: its old value is not its new one.
        const records = shadow.takeRecords();
        for (const r of records) {
          const writes = records.filter((o) => o.target === r.target && o.attributeName === r.attributeName);
          if (writes.length === 1 && r.oldValue === r.target.getAttribute(r.attributeName)) same.push(`${name(r.target)} ${r.attributeName}="${r.oldValue}"`);
        }
      }
      html.push(...page.takeRecords().map((r) => r.attributeName));
      page.disconnect();
      shadow.disconnect();
      return { html, same: [...new Set(same)] };
    },
    n,
  );

test("steps on the stand-alone page leave <html>'s lang alone while the language stays", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const { html } = await walk(page, 40);
  expect(html, "attributes written on <html> during 40 steps").toEqual([]);
  // (a change of language still reaches the page's own header and footer)
  await page.$eval(EL, (e) => { e.lang = "zh"; });
  await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe("zh-CN");
});

test("a burst of steps writes the address bar once, after them, with the last step", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const during = await page.$eval(EL, (el) => {
    const replace = history.replaceState.bind(history);
    window.__writes = [];
    history.replaceState = (state, title, url) => {
      window.__writes.push(String(url));
      return replace(state, title, url);
    };
    el.command("debug");
    for (let i = 0; i < 20; i++) el.command("stepInto");
    return { writes: window.__writes.length, step: el.state().step };
  });
  expect(during.writes, "no write while the steps run").toBe(0);
  await page.waitForFunction((step) => location.hash.includes(`step=${step}`), during.step);
  await page.waitForTimeout(200);
  const writes = await page.evaluate(() => window.__writes);
  expect(writes).toHaveLength(1);
  expect(writes[0]).toContain(`step=${during.step}`);
  // One move: nothing is written before the frame that draws it.
  const beforeFrame = await page.$eval(EL, (el) => {
    const before = window.__writes.length;
    el.shadowRoot.querySelector('[data-command="stepInto"]').click();
    return new Promise((ok) => requestAnimationFrame(() => ok(window.__writes.length - before)));
  });
  expect(beforeFrame, "address bar writes between the click and its frame").toBe(0);
});

test("a step sets no attribute in the playground to the value it already has", async ({ page }) => {
  await open(page, "?scenario=report&lang=en&predict=1");
  const { same } = await walk(page, 80);
  expect(same, "same-value writes during 80 steps").toEqual([]);
});

test("the pressed line numbers are the breakpoints, in every listing a walk shows (only those buttons are rewritten)", async ({ page }) => {
  await open(page, "?scenario=report&lang=en&breakpoints=loop.save_results");
  const wrong = await page.$eval(EL, (el) => {
    const shadow = el.shadowRoot;
    const seen = new Set();
    const wrong = [];
    const check = (when) => {
      const shown = shadow.querySelector(".alp-bp")?.dataset.function;
      seen.add(shown);
      const pressed = [...shadow.querySelectorAll('.alp-bp[aria-pressed="true"]')].map((b) => `${b.dataset.function}:${b.dataset.line}`).sort();
      const set = el.state().breakpoints.filter((b) => b.function === shown).map((b) => `${b.function}:${b.line}`).sort();
      if (pressed.join() !== set.join()) wrong.push(`${when}: pressed ${pressed.join() || "none"}, set ${set.join() || "none"}`);
    };
    check("at the start");
    for (let i = 0; i < 60; i++) {
      el.command("stepInto");
      // Breakpoints change while another function's listing is shown: its
      // cached rows must follow when it comes back.
      if (i === 5) el.toggleBreakpoint("run_loop", "loop.save_results");
      if (i === 9) el.toggleBreakpoint("run_loop", 2);
      if (i === 12) {
        const b = shadow.querySelector(".alp-bp");
        el.toggleBreakpoint(b.dataset.function, Number(b.dataset.line));
      }
      check(`after step ${i + 1}`);
    }
    return { wrong, seen: [...seen] };
  });
  expect(wrong.seen.length, "the walk showed more than one listing").toBeGreaterThan(1);
  expect(wrong.wrong).toEqual([]);
});

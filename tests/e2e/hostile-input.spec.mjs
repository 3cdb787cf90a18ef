// Hostile input: markup, huge strings, bidi text and deep nesting stay inert
// text; broken fixtures are reported in the page.
import { test, expect, EL, SEL, inside, open } from "./helpers.mjs";

test("hostile input is inert text and the layout holds", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  let result;
  await test.step("load a hostile scenario, step through it, run deep inputs", async () => {
    result = await page.$eval(EL, (e) => {
      const nested = (n) => (n === 0 ? "bottom" : { deeper: nested(n - 1) });
      const huge = "A".repeat(200000);
      const marked = `<script>window.__pwned = 1</script></text></svg><img src=x onerror="window.__pwned = 2"> onerror=alert(1) 🚀🧪 مرحبا بالعالم שלום ${huge}`;
      const id = e.addScenario({
        id: "hostile", function: "run_loop", title: { zh: "<b>恶意</b>", en: "<i>hostile</i> \u202e title" }, question: marked,
        model: [
          { stop_reason: "tool_use", content: [{ type: "text", text: marked }, { type: "tool_use", id: "<call id='x'>", name: "run_main", input: {} }] },
          { stop_reason: "end_turn", content: [{ type: "text", text: marked }] },
        ],
        process: { returncode: 1, stdout: `</pre><script>window.__pwned = 3</script>${huge}`, stderr: "<b>bold?</b>\n" + "x".repeat(5000) },
      });
      e.load(id);
      const statuses = [];
      const steps = e.state().steps;
      for (let i = 0; i < steps; i++) e.command("stepInto");
      statuses.push(e.state().status);
      // Deeply nested input in a tool request (90 levels) renders; 1000 levels is a clean protocol_error.
      e.model = (() => { let n = 0; return () => (n++ === 0
        ? { stop_reason: "tool_use", content: [{ type: "tool_use", id: "deep", name: "run_main", input: nested(90) }] }
        : { stop_reason: "end_turn", content: [{ type: "text", text: "done" }] }); })();
      e.command("run");
      statuses.push(e.state().status, e.outcome().result.messages[2].content[0].content);
      e.model = () => ({ stop_reason: "tool_use", content: [{ type: "tool_use", id: "d", name: "run_main", input: nested(1000) }] });
      e.command("run");
      statuses.push(e.state().status);
      return { statuses, pwned: window.__pwned ?? null };
    });
  });
  await test.step("no script ran and no element was created from data", async () => {
    expect(result.pwned, "no injected script ran").toBeNull();
    expect(result.statuses).toEqual(["answered", "answered", "unsupported tool or arguments", "protocol_error"]);
    const fromData = SEL.markupFromData.map((tag) => inside(tag)).join(", ");
    expect(await page.$$eval(fromData, (x) => x.length), "no element was created from data").toBe(0);
  });
  await test.step("the layout holds and the title is shown as text", async () => {
    // Nothing pokes out of the page horizontally.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `page is ${overflow}px too wide`).toBeLessThanOrEqual(0);
    const select = await page.$eval(inside(SEL.select), (s) => s.selectedOptions[0].textContent);
    expect(select.includes("<i>hostile</i>"), "a title with markup is shown as text").toBe(true);
  });
});

test("a fixture that is not JSON, or has wrong types, is reported in the page", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const messages = await page.$eval(EL, (e) => {
    const out = [];
    for (const bad of ["{not json", JSON.stringify({ id: "w", function: "run_loop", title: { zh: "x", en: "x" }, max_calls: "4", model: "no" }), JSON.stringify([1, 2])]) {
      try { e.addScenario(bad); out.push("accepted"); } catch (error) { out.push(error.message); }
    }
    e.command("run");
    out.push(e.state().status);
    return out;
  });
  expect(messages[0]).toMatch(/\(file\): line 1, column 2: not valid JSON/);
  expect(messages[1]).toMatch(/max_calls: must be an integer/);
  expect(messages[1]).toMatch(/model: must be a list of replies/);
  expect(messages[2]).toMatch(/must be a JSON object/);
  expect(messages[3], "the current scenario still works").toBe("answered");
  // The notice box holds addScenario's latest broken scenario (each call
  // replaces the one before; every one was thrown to its caller).
  const shown = await page.textContent(inside(SEL.problems));
  expect(shown.includes("(file): must be a JSON object"), shown).toBe(true);
  expect(shown.includes("max_calls"), shown).toBe(false);
});

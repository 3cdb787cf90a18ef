// Lesson two in the page, zh and en: the weather scenario steps through
// execute_tool to its answer; the two-tool reply pairs both ids; an
// anti-pattern loop beside the right one names where each run parts, and
// the text-only loop ends with the API's 400.
import { test, expect, EL, open } from "./helpers.mjs";

/** Step to the end; the functions seen, the output and the record's cards. */
async function runToEnd(page) {
  return page.$eval(EL, (e) => {
    const root = e.shadowRoot;
    const functions = new Set();
    e.command("reset");
    for (let i = 0; i < 600 && e.state().step + 1 < e.state().steps; i++) {
      e.command("stepInto");
      functions.add(e.currentStep().function);
    }
    const text = (sel) => [...root.querySelectorAll(sel)].map((n) => n.textContent).join("\n");
    return { functions: [...functions], output: text('[data-role="output"]'), outcome: e.outcome() };
  });
}

for (const lang of ["zh", "en"]) {
  test(`the weather question runs through execute_tool to an answer (${lang})`, async ({ page }) => {
    const errors = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await open(page, `?scenario=core-weather&lang=${lang}`);
    const run = await runToEnd(page);
    expect(run.functions).toContain("agent_loop");
    expect(run.functions).toContain("execute_tool");
    expect(run.outcome.result.text).toBe(lang === "zh" ? "巴黎现在 18 °C，晴。" : "It is 18 °C and sunny in Paris.");
    expect(run.output).toContain(lang === "zh" ? "第 2 轮：stop_reason=end_turn" : "turn 2: stop_reason=end_turn");
    expect(errors).toEqual([]);
  });

  test(`two tool_use blocks come back as two tool_results with their ids (${lang})`, async ({ page }) => {
    await open(page, `?scenario=core-two-tools&lang=${lang}`);
    const run = await runToEnd(page);
    const results = run.outcome.result.messages[2].content;
    expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_01", "toolu_02"]);
  });

  test(`the text-only loop beside the right one parts at turn 2 and ends with the API's 400 (${lang})`, async ({ page }) => {
    await open(page, `?scenario=core-weather&lang=${lang}`);
    const after = await page.$eval(EL, (e) => {
      e.whatIf({ function: "keep_text_only" });
      return { outcome: e.outcome(), compare: e.shadowRoot.querySelector(".alp-compare")?.textContent ?? "" };
    });
    expect(after.outcome.error.kind).toBe("bad_request");
    expect(after.outcome.error.message).toContain("Error code: 400");
    expect(after.outcome.error.message).toContain("unexpected `tool_use_id`");
    // Both places are named: the lesson's loop gets its reply, the variant raises.
    expect(after.compare).toContain("core.announce");
    expect(after.compare).toContain("raise");
  });
}

test("an edit that names a function of another lesson is refused by field", async ({ page }) => {
  await open(page, "?scenario=core-weather&lang=en");
  const message = await page.$eval(EL, (e) => {
    try {
      e.whatIf({ function: "run_loop" });
      return "";
    } catch (err) {
      return String(err.message);
    }
  });
  expect(message).toContain("function:");
});

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

  test(`the text-only loop beside the right one parts where it saves only the text and ends with the API's 400 (${lang})`, async ({ page }) => {
    await open(page, `?scenario=core-weather&lang=${lang}`);
    const after = await page.$eval(EL, (e) => {
      e.whatIf({ function: "keep_text_only" });
      return { outcome: e.outcome(), compare: e.shadowRoot.querySelector(".alp-compare")?.textContent ?? "" };
    });
    expect(after.outcome.error.kind).toBe("bad_request");
    expect(after.outcome.error.message).toContain("Error code: 400");
    expect(after.outcome.error.message).toContain("unexpected `tool_use_id`");
    // Both places are named, by their stages' titles (never a trace label):
    // the lesson's loop saves the whole reply, the variant only its text.
    expect(after.compare).toContain(lang === "zh" ? "保存完整回复" : "Save the whole reply");
    expect(after.compare).toContain(lang === "zh" ? "反模式：只保存文字" : "ANTI-PATTERN: keep only the text");
    expect(after.compare).not.toMatch(/\b(core|only)\.[a-z_]+/);
  });
}

// Each anti-pattern on the lesson's case for it, from the "run beside" buttons.
const CASES = [
  ["core-says-done", "stop_on_text"],
  ["core-four-turns", "cap_as_brake"],
  ["core-weather", "keep_text_only"],
];

for (const lang of ["zh", "en"]) {
  for (const [scenario, loop] of CASES) {
    test(`${loop} beside agent_loop on ${scenario}: the button runs it, the comparison names both places (${lang})`, async ({ page }) => {
      await open(page, `?scenario=${scenario}&lang=${lang}`);
      await page.click(`${EL} [data-action="beside"][data-function="${loop}"]`);
      const compare = page.locator(`${EL} [data-role="compare"]`);
      await expect(compare).toBeVisible();
      const text = await compare.textContent();
      const state = await page.$eval(EL, (e) => e.state());
      expect(state.function).toBe(loop);
      expect(state.compare.function).toBe("agent_loop");
      expect(state.program).toBe("lesson_two");
      // Both columns are named by their loop, and both places by title and line.
      expect(await compare.locator("thead th").allTextContents()).toEqual(["agent_loop", loop]);
      const line = lang === "zh" ? "（第 \\d+ 行）" : " \\(line \\d+\\)";
      const at = lang === "zh" ? " 在 " : " at ";
      expect(text).toMatch(new RegExp(`agent_loop${at}[^（(]+${line}`));
      expect(text).toMatch(new RegExp(`${loop}${at}[^（(]+${line}`));
      await expect(page.locator(`${EL} [data-action="beside"][data-function="${loop}"]`)).toHaveAttribute("aria-pressed", "true");
      // The text-only loop ends with the API's error card in the figure.
      const refused = await page.$eval(EL, (e) => {
        e.command("run");
        return { kind: e.outcome().error?.kind ?? null, card: e.shadowRoot.querySelector('[data-role="api-error"]')?.textContent ?? "" };
      });
      if (loop === "keep_text_only") {
        expect(refused.kind).toBe("bad_request");
        expect(refused.card).toContain("400 · invalid_request_error");
        expect(refused.card).toContain("unexpected `tool_use_id`");
      }
      await page.click(`${EL} [data-action="back-to-lesson"]`);
      await expect(compare).toBeHidden();
      expect(await page.$eval(EL, (e) => e.state().function)).toBe("agent_loop");
    });
  }

  test(`an edit in the editor that leaves a tool turn unanswered gets the API's 400 (${lang})`, async ({ page }) => {
    await open(page, `?scenario=core-weather&lang=${lang}`);
    // The first reply is cut off: the loop takes it for a tool turn and
    // sends an empty user message, which the API refuses.
    const replies = [
      { stop_reason: "max_tokens", content: [{ type: "text", text: "It is" }] },
      { stop_reason: "end_turn", content: [{ type: "text", text: "ok" }] },
    ];
    await page.fill(`${EL} textarea[data-edit="model"]`, JSON.stringify(replies, null, 2));
    await page.click(`${EL} [data-action="what-if"]`);
    const after = await page.$eval(EL, (e) => {
      e.command("run");
      const root = e.shadowRoot;
      return {
        error: e.outcome().error,
        card: root.querySelector('[data-role="api-error"]')?.textContent ?? "",
        compare: root.querySelector('[data-role="compare"]').textContent,
      };
    });
    expect(after.error.kind).toBe("bad_request");
    expect(after.card).toContain("non-empty content");
    expect(after.compare).toContain(lang === "zh" ? "你的版本" : "Your version");
  });
}

test("program= offers one lesson's scenarios and compare= opens a loop beside the lesson's", async ({ page }) => {
  await open(page, "?program=lesson_two&compare=keep_text_only&scenario=core-weather&lang=en");
  const r = await page.$eval(EL, (e) => ({
    state: e.state(),
    groups: [...e.shadowRoot.querySelectorAll(".alp-select optgroup")].map((g) => g.label),
    options: [...e.shadowRoot.querySelectorAll(".alp-select option")].map((o) => o.value),
  }));
  expect(r.state.program).toBe("lesson_two");
  expect(r.state.function).toBe("keep_text_only");
  expect(r.state.compare.function).toBe("agent_loop");
  expect(r.groups).toEqual(["Lesson two: the core loop"]);
  expect(r.options).not.toContain("report");
  expect(r.options).toContain("core-four-turns");
  // The link keeps the loop beside and the step; opened, it shows them again.
  await page.$eval(EL, (e) => { e.command("stepInto"); e.command("stepInto"); e.command("stepInto"); });
  await page.waitForFunction(() => location.hash.includes("compare=keep_text_only") && location.hash.includes("step="));
  const hash = await page.evaluate(() => location.hash);
  const before = await page.$eval(EL, (e) => e.state());
  await page.goto(`/index.html${hash}`);
  await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
  const after = await page.$eval(EL, (e) => e.state());
  expect([after.function, after.step, after.compare.function]).toEqual([before.function, before.step, "agent_loop"]);
});

for (const lang of ["zh", "en"]) {
  test(`bad program= and compare= values are said in the element's language; a loop as function= runs beside (${lang})`, async ({ page, problems }) => {
    await open(page, `?program=lesson_3&compare=agent_loop&scenario=core-weather&lang=${lang}`);
    const r = await page.$eval(EL, (e) => ({
      notice: e.shadowRoot.querySelector('[data-role="notice"]').textContent,
      hidden: e.shadowRoot.querySelector('[data-role="notice"]').hidden,
      state: e.state(),
    }));
    expect(r.hidden).toBe(false);
    expect(r.notice).toContain(lang === "zh" ? "program 的值 lesson_3 不能用" : "program lesson_3 cannot be used");
    expect(r.notice).toContain(lang === "zh" ? "compare 的值 agent_loop 不能用于这个场景" : "compare agent_loop cannot be used with this scenario");
    expect(r.state.whatIf).toBe(false);
    // Each notice is also said once in the console, for the author.
    expect(problems.filter((p) => p.includes("lesson_3")).length).toBe(1);
    problems.length = 0;
    await open(page, `?function=cap_as_brake&lang=${lang}`);
    const s = await page.$eval(EL, (e) => e.state());
    expect([s.function, s.compare.function, s.program]).toEqual(["cap_as_brake", "agent_loop", "lesson_two"]);
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

// Issue 44, point 4: "run beside" drew one run. Both records side by side,
// the first difference marked in both, the verdict on the first screen,
// and stepping the run on screen moves the lesson's marker too.
test("beside another loop both records are drawn side by side, the verdict on the first screen", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, "?scenario=core-says-done&compare=stop_on_text&lang=en");
  const pair = (e) => {
    const box = e.shadowRoot.querySelector('[data-role="pair"]');
    const column = (k) => [...box.querySelectorAll(".alp-pair-row")].map((r) => r.children[k]);
    const marked = (k, cls) => column(k).flatMap((c, i) => (c.classList.contains(cls) ? [i] : []));
    const rect = box.querySelector(".alp-pair-verdict").getBoundingClientRect();
    return {
      hidden: box.hidden,
      heads: [...box.querySelectorAll('[role="columnheader"]')].map((h) => h.textContent),
      verdict: box.querySelector(".alp-pair-verdict").textContent,
      inView: rect.top >= 0 && rect.bottom <= innerHeight,
      parts: [marked(0, "alp-pair-parts"), marked(1, "alp-pair-parts")],
      here: [marked(0, "alp-pair-here"), marked(1, "alp-pair-here")],
    };
  };
  const before = await page.$eval(EL, pair);
  expect(before.hidden).toBe(false);
  expect(before.heads).toEqual(["agent_loop", "stop_on_text"]);
  expect(before.verdict).toMatch(/agent_loop: done, \d+ messages; stop_on_text: done, 1 message\. The records differ from message #1 on\./);
  expect(before.inView, "the verdict is on the first screen").toBe(true);
  expect(before.parts, "the first difference, in both columns").toEqual([[1], [1]]);
  expect(before.here, "no run is anywhere before the start").toEqual([[], []]);
  // Step the run on screen to its end: the lesson's marker moves with it.
  const places = await page.$eval(EL, (e, pairSrc) => {
    const read = new Function(`return (${pairSrc})`)();
    e.command("debug");
    const seen = [];
    for (let i = 0; i < 40 && e.state().status !== "done"; i++) {
      seen.push(JSON.stringify(read(e).here));
      e.command("step");
    }
    return seen;
  }, pair.toString());
  expect(new Set(places.map((p) => JSON.parse(p)[0].join())).size, places.join(" ")).toBeGreaterThan(1);
  // (one marker each, once its record has a message)
  expect(places.every((p) => JSON.parse(p).every((marks) => marks.length <= 1)), places.join(" ")).toBe(true);
  expect(JSON.parse(places.at(-1))[1], "the run on screen at its last message").toEqual([0]);
  // Back to the lesson: no pair.
  await page.$eval(EL, (e) => e.whatIf(null));
  expect(await page.$eval(EL, (e) => e.shadowRoot.querySelector('[data-role="pair"]').hidden)).toBe(true);
});

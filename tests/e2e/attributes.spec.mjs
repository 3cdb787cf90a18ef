// Attributes of <agent-loop-playground>: controls, height, compact, function,
// scenario and breakpoints (by label and by function:line); breakpoints and
// step set again.
import { test, expect, EL, SEL, open, state, command } from "./helpers.mjs";

test("attributes: controls, height, compact, breakpoints by label and line", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  let r;
  await test.step("add a second element with every attribute", async () => {
    r = await page.evaluate(async ([el, SEL]) => {
      const e = document.createElement(el);
      e.setAttribute("function", "run_main");
      e.setAttribute("listing", "rust"); // run_main:5 counts in the Rust listing
      e.setAttribute("scenario", "timeout");
      e.setAttribute("controls", "debug,step,continue");
      e.setAttribute("height", "240");
      e.setAttribute("breakpoints", "main.spawn, run_main:5");
      e.setAttribute("compact", "");
      e.id = "extra";
      document.querySelector("main").appendChild(e);
      await new Promise((ok) => e.addEventListener("playground-ready", ok, { once: true }));
      const code = e.shadowRoot.querySelector(SEL.code);
      return {
        buttons: [...e.shadowRoot.querySelectorAll(SEL.anyCommand)].map((b) => b.dataset.command),
        maxHeight: getComputedStyle(code).maxHeight,
        lowerHidden: getComputedStyle(e.shadowRoot.querySelector(SEL.lower)).display,
        breakpoints: e.state().breakpoints,
        options: [...e.shadowRoot.querySelectorAll(SEL.optgroup)].map((g) => [g.label, [...g.querySelectorAll("option")].map((o) => o.value)]),
        otherState: document.querySelector(el).state().scenario,
      };
    }, [EL, SEL]);
  });
  await test.step("the attributes took effect", async () => {
    expect(r.buttons, "controls=").toEqual(["debug", "step", "continue"]);
    expect(r.maxHeight, "height=").toBe("240px");
    expect(r.lowerHidden, "compact").toBe("none");
    expect(r.breakpoints.length, "breakpoints=").toBe(2);
    expect(r.breakpoints.every((b) => b.function === "run_main")).toBe(true);
    // The lesson's run_main cases first, in the lesson's order, then the others of run_main only.
    expect(r.options.map((g) => g[0]), "function= limits the picker").toEqual(["The lesson's eight", "More cases: run_main"]);
    expect(r.options[0][1]).toEqual(["error", "success", "timeout", "reject"]);
    expect(r.options[1][1]).toEqual(["long-output", "no-output", "non-empty-input", "os-error"]);
    expect(r.otherState, "the first element is unchanged").toBe("report");
  });
  await test.step("debug and continue stop at the breakpoints from the attribute", async () => {
    await page.locator(command("debug", "#extra")).click();
    expect((await state(page, "#extra")).label).toBe("main.envelope");
    await page.locator(command("continue", "#extra")).click();
    expect((await state(page, "#extra")).label).toBe("main.spawn");
  });
});

test("author mistakes are shown in the element and said once in the console", async ({ page, problems }) => {
  await open(page, "?scenario=report&lang=en");
  const cases = [
    [{ scenario: "nope" }, "There is no scenario nope; showing report."],
    [{ breakpoints: "loop.save_result" }, "Cannot place breakpoint loop.save_result"],
    [{ function: "bogus" }, "function bogus cannot be used"],
    [{ function: "run_main", scenario: "report" }, "Scenario report belongs to run_loop"],
    [{ listing: "cobol" }, "listing cobol cannot be used"],
    [{ "time-budget": "soon" }, "time-budget soon cannot be used"],
    [{ controls: "debug,stepp" }, "controls stepp cannot be used"],
    [{ "heading-level": "h2" }, "heading-level h2 cannot be used"],
    [{ theme: "night" }, "theme night cannot be used"],
  ];
  for (const [i, [attributes, expected]] of cases.entries()) {
    const result = await page.evaluate(async ([attributes, i]) => {
      const e = document.createElement("agent-loop-playground");
      e.id = `mistake-${i}`;
      e.setAttribute("lang", "en");
      for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
      document.body.append(e);
      await new Promise((ok) => e.addEventListener("playground-ready", ok, { once: true }));
      const box = e.shadowRoot.querySelector('[data-role="notice"]');
      e.command("run");
      return { role: box.getAttribute("role"), hidden: box.hidden, text: box.textContent, status: e.state().status };
    }, [attributes, i]);
    expect(result.role).toBe("status");
    expect(result.hidden, JSON.stringify(attributes)).toBe(false);
    expect(result.text).toContain(expected);
    expect(["answered", "call_limit", "model_stopped", "protocol_error", "model_error"].concat(["done"]), "it still works").toContain(result.status === "done" ? "done" : result.status);
  }
  const warnings = problems.filter((p) => p.startsWith("console.warning: agent-loop-playground:"));
  expect(warnings.length, "one console warning per notice").toBe(cases.length);
  problems.splice(0, problems.length, ...problems.filter((p) => !warnings.includes(p)));
});

// Issue 46, break 12: a burst of attribute changes (a framework that sets
// them on every render) is applied once, with its last value.
test("1,000 scenario and lang changes in one script are applied once, with the last value", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const r = await page.$eval(EL, async (e) => {
    let steps = 0;
    e.addEventListener("playground-step", () => steps++);
    for (let i = 0; i < 1000; i++) {
      e.setAttribute("scenario", i % 2 ? "limit" : "timeout");
      e.setAttribute("lang", i % 2 ? "en" : "zh");
    }
    e.setAttribute("scenario", "truncated");
    await new Promise((ok) => setTimeout(ok, 0));
    return { steps, scenario: e.state().scenario, lang: e.state().lang };
  });
  expect([r.scenario, r.lang]).toEqual(["truncated", "en"]);
  expect(r.steps, "one move: the last scenario shown").toBeLessThanOrEqual(2);
});

// breakpoints and step set again on an open playground (a course page's
// "show this moment" link): the list replaces every breakpoint, the step
// is gone to, a mistake is a notice that the next value takes away.
test("breakpoints and step set again take effect, and their mistakes are said then unsaid", async ({ page, problems }) => {
  await open(page, "?scenario=report&lang=en");
  const r = await page.$eval(EL, async (e) => {
    const settle = () => new Promise((ok) => setTimeout(ok, 0));
    const notice = () => (e.shadowRoot.querySelector('[data-role="notice"]').hidden ? "" : e.shadowRoot.querySelector('[data-role="notice"]').textContent);
    const out = {};
    e.toggleBreakpoint("run_loop", "loop.ask");
    e.setAttribute("breakpoints", "loop.save_results");
    await settle();
    out.replaced = e.state().breakpoints.length;
    e.command("debug");
    out.stoppedAt = e.state().label;
    e.setAttribute("step", "2");
    await settle();
    out.step = [e.state().step, e.state().status];
    e.setAttribute("step", "loop.nope");
    await settle();
    out.said = notice();
    e.setAttribute("step", "loop.save_results");
    await settle();
    out.label = e.state().label;
    out.unsaid = notice();
    e.removeAttribute("breakpoints");
    await settle();
    out.none = e.state().breakpoints.length;
    return out;
  });
  expect(r.replaced, "the list replaced the breakpoint clicked before").toBe(1);
  expect(r.stoppedAt).toBe("loop.save_results");
  expect(r.step).toEqual([2, "paused"]);
  expect(r.said).toContain("loop.nope");
  expect(r.label).toBe("loop.save_results");
  expect(r.unsaid).not.toContain("loop.nope");
  expect(r.none).toBe(0);
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes("loop.nope")));
});

// A notice that takes another's place (a second bad step after a first)
// is said in the console too: the console said each notice once by their
// count, and a replaced one kept the count.
test("a bad value that replaces another bad one is said again in the console", async ({ page, problems }) => {
  await open(page, "?scenario=report&lang=en");
  const notice = await page.$eval(EL, async (e) => {
    const settle = () => new Promise((ok) => setTimeout(ok, 0));
    e.setAttribute("step", "loop.first_mistake");
    await settle();
    e.setAttribute("step", "loop.second_mistake");
    await settle();
    return e.shadowRoot.querySelector('[data-role="notice"]').textContent;
  });
  expect(notice).toContain("loop.second_mistake");
  expect(notice).not.toContain("loop.first_mistake");
  const said = problems.filter((p) => p.startsWith("console.warning: agent-loop-playground:"));
  expect(said.filter((p) => p.includes("loop.first_mistake")).length, said.join("\n")).toBe(1);
  expect(said.filter((p) => p.includes("loop.second_mistake")).length, said.join("\n")).toBe(1);
  problems.splice(0, problems.length, ...problems.filter((p) => !said.includes(p)));
});

// A "show this moment" link clicked twice goes there twice; a step set in
// the same script as a scenario is one of that scenario.
test("the same step or list set again goes there again, and a step waits for the scenario set with it", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const r = await page.$eval(EL, async (e) => {
    const settle = () => new Promise((ok) => setTimeout(ok, 0));
    const out = {};
    e.setAttribute("step", "loop.save_results");
    await settle();
    const at = e.state().step;
    e.command("step");
    e.setAttribute("step", "loop.save_results");
    await settle();
    out.again = [at, e.state().step];
    e.setAttribute("breakpoints", "loop.ask");
    await settle();
    e.toggleBreakpoint("run_loop", "loop.save_results");
    e.setAttribute("breakpoints", "loop.ask");
    await settle();
    out.list = e.state().breakpoints.length;
    // (the step first in the script, the scenario second: the step is the new scenario's)
    e.setAttribute("step", "loop.ask");
    e.setAttribute("scenario", "limit");
    await settle();
    out.order = [e.state().scenario, e.state().label, e.state().started];
    return out;
  });
  expect(r.again[1], "the link clicked again").toBe(r.again[0]);
  expect(r.list, "the same list again drops the clicked breakpoint").toBe(1);
  expect(r.order).toEqual(["limit", "loop.ask", true]);
});

test("a notice quoting a long value stays inside a phone's width", async ({ page, problems }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, "?scenario=report&lang=en");
  const r = await page.$eval(EL, async (e) => {
    e.setAttribute("step", "loop.save_results.after_the_second_tool_call_has_returned_".repeat(3));
    e.setAttribute("breakpoints", "x".repeat(5000));
    await new Promise((ok) => setTimeout(ok, 0));
    const box = e.shadowRoot.querySelector('[data-role="notice"]');
    return { page: document.documentElement.scrollWidth, box: box.getBoundingClientRect().right, chars: box.textContent.length, hidden: box.hidden };
  });
  expect(r.hidden).toBe(false);
  expect(r.page, "the page does not scroll sideways").toBeLessThanOrEqual(390);
  expect(r.box).toBeLessThanOrEqual(390);
  expect(r.chars, "a long value is quoted by its start").toBeLessThan(1200);
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes("after_the_second") && !p.includes("xxxxxxxx")));
});

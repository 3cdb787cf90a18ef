// Author callbacks: el.model / el.process set from JavaScript, including ones
// that throw or return garbage; step handlers may call state().
import { test, expect, EL, open } from "./helpers.mjs";

test("author callbacks: custom, throwing and garbage models", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const statuses = await page.$eval(EL, (e) => {
    const out = {};
    const seen = [];
    e.addEventListener("playground-step", (ev) => seen.push([ev.detail.step, e.state().step]));
    e.command("debug");
    e.command("step");
    out.handlerSawState = seen.slice();
    e.model = (req) => req.messages.length === 1
      ? { stop_reason: "tool_use", content: [{ type: "tool_use", id: "mine_1", name: "run_main", input: {} }] }
      : { stop_reason: "end_turn", content: [{ type: "text", text: "custom double saw " + req.messages.length }] };
    e.command("run");
    out.custom = [e.state().status, e.outcome().result.text];
    e.model = () => { throw new TypeError("no network in class"); };
    e.command("run");
    out.throws = [e.state().status, e.outcome().result.text];
    e.model = () => 42;
    e.command("run");
    out.garbage = [e.state().status, e.outcome().result.messages.length];
    e.process = () => { throw new Error("sandbox says no"); };
    e.model = null;
    e.command("run");
    out.process = e.outcome().result.messages[2].content[0].content;
    return out;
  });
  expect(statuses.handlerSawState, "step handlers can call state()").toEqual([[1, 1], [2, 2]]);
  expect(statuses.custom, "a custom model").toEqual(["answered", "custom double saw 3"]);
  expect(statuses.throws, "a throwing model").toEqual(["model_error", "model request failed: TypeError"]);
  expect(statuses.garbage, "a model returning garbage").toEqual(["protocol_error", 1]);
  expect(statuses.process, "a throwing process").toBe("cannot start: sandbox says no");
});

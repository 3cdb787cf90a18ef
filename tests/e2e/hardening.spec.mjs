// Hostile authors: no callback can break a playground, no recording can
// freeze the tab, moving or removing an element mid-work loses nothing, and
// the iframe talks only to the origin it is told to.
import fs from "node:fs";
import path from "node:path";
import { test, expect, EL, open, root } from "./helpers.mjs";

// Each model callback shape and what the run must end with (status, and the
// start of the result text). Defined in the page (the page's CSP forbids eval).
const MODEL_SHAPES = [
  ["Error whose message is undefined", "model_error", "model request failed: Error"],
  ["Error whose name is a number", "model_error", "model request failed: Error"],
  ["Error whose message getter throws", "model_error", "model request failed: Error"],
  ["a thrown string", "model_error", "model request failed: Error"],
  ["a thrown number", "model_error", "model request failed: Error"],
  ["a thrown undefined", "model_error", "model request failed: Error"],
  ["a thrown null", "model_error", "model request failed: Error"],
  ["a thrown symbol", "model_error", "model request failed: Error"],
  ["a thrown revoked Proxy", "model_error", "model request failed: Error"],
  ["a thrown object with odd fields", "model_error", "model request failed: Error"],
  ["a thrown custom error", "model_error", "model request failed: QuotaError"],
  ["returns undefined", "protocol_error", "the response is not in a format"],
  ["returns null", "protocol_error", "the response is not in a format"],
  ["returns 42", "protocol_error", "the response is not in a format"],
  ["returns a cyclic object", "protocol_error", "the response is not in a format"],
  ["returns a BigInt", "protocol_error", "the response is not in a format"],
  ["returns an object whose toJSON throws", "protocol_error", "the response is not in a format"],
  ["returns a Proxy that throws on every read", "model_error", "model request failed: Error"],
  ["returns a resolved Promise", "model_error", "model request failed: TypeError"],
  ["returns a rejecting Promise", "model_error", "model request failed: TypeError"],
];
const PROCESS_SHAPES = [
  ["throws an Error whose message is undefined", "cannot start: (no message)"],
  ["throws a string", "cannot start: boom"],
  ["returns 42", "cannot start: bad outcome: must be an object"],
  ["returns a wrong returncode", "cannot start: bad outcome: returncode: must be an integer"],
  ["returns a rejecting Promise", "cannot start: the process callback returned a Promise"],
];

test("every callback shape ends in a clear status, and another playground still works", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const results = await page.$eval(EL, (e, [models, processes]) => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const hostile = new Proxy({}, { get() { throw new Error("no reads"); } });
    const cyclic = {};
    cyclic.self = cyclic;
    const error = (set) => { const x = new Error("x"); set(x); return x; };
    const model = {
      "Error whose message is undefined": () => { throw error((x) => { x.message = undefined; }); },
      "Error whose name is a number": () => { throw error((x) => { x.name = 42; }); },
      "Error whose message getter throws": () => { throw error((x) => Object.defineProperty(x, "message", { get() { throw new Error("getter"); } })); },
      "a thrown string": () => { throw "boom"; },
      "a thrown number": () => { throw 42; },
      "a thrown undefined": () => { throw undefined; },
      "a thrown null": () => { throw null; },
      "a thrown symbol": () => { throw Symbol("s"); },
      "a thrown revoked Proxy": () => { throw revoked.proxy; },
      "a thrown object with odd fields": () => { throw { name: {}, message: [] }; },
      "a thrown custom error": () => { throw error((x) => { x.name = "QuotaError"; }); },
      "returns undefined": () => undefined,
      "returns null": () => null,
      "returns 42": () => 42,
      "returns a cyclic object": () => cyclic,
      "returns a BigInt": () => 10n,
      "returns an object whose toJSON throws": () => ({ toJSON() { throw new Error("no"); } }),
      "returns a Proxy that throws on every read": () => hostile,
      "returns a resolved Promise": () => Promise.resolve({ stop_reason: "end_turn", content: [] }),
      "returns a rejecting Promise": () => Promise.reject(new Error("later")),
    };
    const process = {
      "throws an Error whose message is undefined": () => { throw error((x) => { x.message = undefined; }); },
      "throws a string": () => { throw "boom"; },
      "returns 42": () => 42,
      "returns a wrong returncode": () => ({ returncode: "one" }),
      "returns a rejecting Promise": () => Promise.reject(new Error("later")),
    };
    const out = { models: [], processes: [] };
    for (const [name] of models) {
      e.model = model[name];
      e.command("run");
      out.models.push([name, e.state().status, e.outcome().result?.text ?? ""]);
    }
    e.model = null;
    for (const [name] of processes) {
      e.process = process[name];
      e.command("run");
      out.processes.push([name, e.outcome().result.messages[2].content[0].content]);
    }
    e.process = null;
    return out;
  }, [MODEL_SHAPES, PROCESS_SHAPES]);
  for (const [[name, status, text], [, gotStatus, gotText]] of MODEL_SHAPES.map((s, i) => [s, results.models[i]])) {
    expect([name, gotStatus, gotText.startsWith(text) ? text : gotText]).toEqual([name, status, text]);
  }
  for (const [[name, text], [, got]] of PROCESS_SHAPES.map((s, i) => [s, results.processes[i]])) {
    expect([name, got.startsWith(text) ? text : got]).toEqual([name, text]);
  }
  // The same element still works with its doubles, and a second one too.
  await page.$eval(EL, (e) => e.command("run"));
  expect((await page.$eval(EL, (e) => e.state())).status).toBe("answered");
  await page.evaluate(() => {
    const second = document.createElement("agent-loop-playground");
    second.id = "second";
    second.setAttribute("scenario", "limit");
    document.body.append(second);
  });
  await page.waitForFunction(() => document.querySelector("#second")?.ready === true);
  const second = await page.$eval("#second", (e) => { e.command("debug"); e.command("step"); return e.state(); });
  expect([second.scenario, second.step, second.status]).toEqual(["limit", 2, "paused"]);
});

test("an async callback is refused when it is assigned, with a clear message", async ({ page, problems }) => {
  await open(page, "?scenario=report&lang=en");
  const result = await page.$eval(EL, (e) => {
    const tries = [];
    for (const fn of [async () => ({}), async function* () {}, 42, "model"]) {
      try {
        e.model = fn;
        tries.push("accepted");
      } catch (error) {
        tries.push(`${error.name}: ${error.message}`);
      }
    }
    e.command("run");
    return { tries, status: e.state().status, model: e.model };
  });
  expect(result.tries[0]).toMatch(/^TypeError: el\.model must be synchronous/);
  expect(result.tries[1]).toMatch(/^TypeError: el\.model must be synchronous/);
  expect(result.tries[2]).toBe("TypeError: el.model must be a function or null");
  expect(result.tries[3]).toBe("TypeError: el.model must be a function or null");
  expect([result.status, result.model], "the doubles still answer").toEqual(["answered", null]);
  // Each refusal also said so in the console (and nothing else went wrong).
  const refusals = problems.filter((p) => p.startsWith("console.error: agent-loop-playground: el.model must be"));
  expect(refusals.length).toBe(4);
  problems.splice(0, problems.length, ...problems.filter((p) => !refusals.includes(p)));
});

test("replacing the scenario on screen keeps it on screen and records the new version", async ({ page }) => {
  await open(page, "?scenario=request&lang=en");
  const out = await page.$eval(EL, (e) => {
    e.load("report");
    const fixture = {
      id: "report", function: "run_loop", title: { zh: "报告（改）", en: "Report (edited)" }, max_calls: 1,
      model: [{ stop_reason: "tool_use", content: [{ type: "tool_use", id: "call_1", name: "run_main", input: {} }] }],
      process: { returncode: 1, stdout: "", stderr: "ZeroDivisionError: division by zero\n" },
    };
    e.addScenario(fixture);
    const select = e.shadowRoot.querySelector(".alp-select");
    const shown = select.options[select.selectedIndex].textContent;
    e.command("run");
    return { scenario: e.state().scenario, status: e.state().status, shown };
  });
  expect(out).toEqual({ scenario: "report", status: "call_limit", shown: "Report (edited)" });
});

test("moving an element keeps its state; removing it from its own callback is safe", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const before = await page.$eval(EL, (e) => {
    e.addScenario({ id: "mine", function: "run_loop", title: { zh: "我的", en: "Mine" },
      model: [{ stop_reason: "end_turn", content: [{ type: "text", text: "hi" }] }] });
    e.load("limit");
    e.toggleBreakpoint("run_loop", "loop.ask");
    e.command("debug");
    e.command("step");
    const box = document.createElement("div");
    document.body.append(box);
    box.appendChild(e); // moved: disconnected and connected in one task
    return e.state();
  });
  await page.waitForTimeout(50);
  const after = await page.$eval(EL, (e) => {
    const moved = e.state();
    e.load("mine");
    e.command("run");
    return { moved, mine: e.state().status };
  });
  expect(after.moved).toEqual(before);
  expect(after.mine).toBe("answered");
  // A model that removes its own element mid-recording.
  const removed = await page.$eval(EL, (e) => {
    window.removedPlayground = e;
    e.model = () => { e.remove(); return { stop_reason: "end_turn", content: [{ type: "text", text: "bye" }] }; };
    return e.state().status;
  });
  expect(removed).toBe("ready");
  // Freed once the task is over (its trace and listeners released).
  await page.waitForFunction(() => window.removedPlayground.ready === false);
});

test("a playground-step handler that steps again walks on without recursion", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  const out = await page.$eval(EL, (e) => {
    let events = 0;
    e.addEventListener("playground-step", () => { events++; e.command("step"); });
    e.command("step");
    return { events, state: e.state() };
  });
  expect(out.state.status).toBe("answered");
  expect(out.state.step).toBe(out.state.steps - 1);
  expect(out.events, "one event per move, then it stops at the end").toBeGreaterThan(10);
});

test("a runaway model stops at the time budget with a caption, and the tab stays responsive", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  await page.evaluate(() => {
    const el = document.createElement("agent-loop-playground");
    el.id = "runaway";
    el.setAttribute("lang", "en");
    el.setAttribute("time-budget", "0.4s");
    document.body.append(el);
  });
  await page.waitForFunction(() => document.querySelector("#runaway")?.ready === true);
  const out = await page.$eval("#runaway", (e) => {
    e.addScenario({ id: "forever", function: "run_loop", title: { zh: "不停", en: "Forever" }, max_calls: 1e9, model: [],
      process: { returncode: 1, stdout: "", stderr: "x".repeat(5000) } });
    let n = 0;
    e.model = () => ({ stop_reason: "tool_use", content: [{ type: "tool_use", id: `c${++n}`, name: "run_main", input: {} }] });
    e.load("forever");
    e.command("run");
    return { calls: n, state: e.state(), caption: e.shadowRoot.querySelector(".alp-caption-title").textContent };
  });
  expect(out.state.status).toBe("time_budget");
  expect(out.caption).toBe("Recording stopped: out of time");
  // (how soon it stopped is the clock's business: no test here reads it)
  expect(out.calls).toBeGreaterThan(0);
  // ... and the tab answers: the element moves at once.
  expect(await page.$eval("#runaway", (e) => (e.command("reset"), e.command("stepInto"), e.state().started))).toBe(true);
});

test("the iframe talks only to the origin it is given, and answers a breakpoint toggle", async ({ page, problems }) => {
  await open(page, "?scenario=report&lang=en");
  const received = await page.evaluate(async () => {
    const frame = (query) => new Promise((resolve) => {
      const messages = [];
      const iframe = document.createElement("iframe");
      const done = () => { window.removeEventListener("message", listener); resolve(messages.map((m) => m.type + (m.on !== undefined ? `:${m.on}` : ""))); };
      const listener = (e) => {
        if (e.source !== iframe.contentWindow) return;
        messages.push(e.data);
        if (e.data.type === "ready") {
          const send = (line) => iframe.contentWindow.postMessage({ source: "agent-loop-playground", type: "toggleBreakpoint", function: "run_loop", line }, "*");
          send("loop.ask");
          send(3.5);
          setTimeout(done, 500);
        }
      };
      window.addEventListener("message", listener);
      iframe.src = `index.html?scenario=report&lang=en&embed=1${query}`;
      document.body.append(iframe);
      setTimeout(done, 5000);
    });
    return {
      mine: await frame(`&origin=${encodeURIComponent(location.origin)}`),
      other: await frame("&origin=https%3A%2F%2Fcourse.example"),
      // (issue 46, break 15: a scheme and a host are case-insensitive)
      upper: await frame(`&origin=${encodeURIComponent(location.origin.toUpperCase())}`),
    };
  });
  expect(received.upper, "HTTP://127.0.0.1:… is this origin").toContain("ready");
  expect(received.mine).toContain("ready");
  expect(received.mine).toContain("breakpoint:true");
  expect(received.mine).toContain("error");
  expect(received.other, "nothing reaches another origin").toEqual([]);
  // ... and the frame says why, once, in the console (the only problem).
  const wrong = problems.filter((p) => p.includes("origin=https://course.example, but this page is embedded by"));
  expect(wrong.length).toBe(1);
  problems.splice(0, problems.length, ...problems.filter((p) => !wrong.includes(p)));
});

// Issue 44: a server that answers the module's URL with an HTML page (a dev
// server's pre-bundling, a site's fallback page) gets a message, in the
// reader's language, that names the URL and what to check.
for (const lang of ["en", "zh"]) {
  test(`an HTML page served as the module is named, with what to check (${lang})`, async ({ page, baseURL, problems }) => {
    const url = `${baseURL}/agent-loop-playground_bg.wasm`;
    await page.route(url, (route) => route.fulfill({ contentType: "text/html", body: "<!DOCTYPE html><html><body>app</body></html>" }));
    await page.goto(`/index.html?scenario=report&lang=${lang}`);
    const crash = page.locator(`${EL} .alp-crash`);
    await expect(crash).toBeVisible();
    const said = await crash.textContent();
    const word = JSON.parse(fs.readFileSync(path.join(root, `fixtures/i18n/${lang}.json`), "utf8")).element.module_not_wasm;
    expect(word, "the table has the word").toBeTruthy();
    // Every part of the word around its values, and the values.
    for (const part of word.split(/\{\w+\}/).filter(Boolean)) expect(said).toContain(part);
    expect(said).toContain(url);
    expect(said, "the browser's own reason").toContain("3c 21 44 4f");
    // (the module's glue warns that the type was not application/wasm: expected here)
    const mime = problems.filter((p) => p.includes("application/wasm"));
    problems.splice(0, problems.length, ...problems.filter((p) => !mime.includes(p)));
  });
}

// Issue 46, break 3: a model callback that assigns el.model (itself, or a
// new function each call) from inside itself. Its setting is applied once,
// after the recording it was made in; a setting made while that one is
// being applied is not applied again, so the two never chase each other.
for (const shape of ["itself", "a new function each call"]) {
  test(`a model callback that assigns el.model to ${shape} is applied once, and the tab goes on`, async ({ page }) => {
    await open(page, "?scenario=report&lang=en");
    const result = await page.$eval(EL, async (e, shape) => {
      let calls = 0;
      const answer = () => ({ stop_reason: "end_turn", content: [{ type: "text", text: `answer ${calls}` }] });
      function model() {
        calls++;
        e.model = shape === "itself" ? model : () => { calls++; e.model = model; return answer(); };
        return answer();
      }
      e.model = model;
      const first = calls;
      // A task after it: never reached while microtasks chase each other.
      await new Promise((ok) => setTimeout(ok, 0));
      const settled = calls;
      await new Promise((ok) => setTimeout(ok, 0));
      e.command("run");
      return { first, settled, later: calls, status: e.state().status, text: e.state().resultText ?? "" };
    }, shape);
    expect(result.first, "recorded once when assigned").toBe(1);
    expect(result.settled, "and once more for the setting made inside it").toBe(2);
    expect(result.later, "then nothing more: run replays the recording").toBe(2);
    expect(result.status).toBe("answered");
  });
}

// Issue 46, break 7: the limits of a crossing hold for what is serialised,
// not for a first look at the value: a getter that answers more the second
// time it is read, and a toJSON that makes a long text, are both counted
// as JSON.stringify reads them, once.
for (const shape of ["a getter that answers more on its second read", "a toJSON that makes 9,000,000 characters"]) {
  test(`a reply with ${shape} is refused as too big`, async ({ page }) => {
    await open(page, "?scenario=report&lang=en");
    const r = await page.$eval(EL, (e, shape) => {
      let reads = 0;
      const block = (i) => ({ type: "tool_use", id: `c${i}`, name: "run_main", input: {} });
      e.model = shape.startsWith("a getter")
        ? () => ({ stop_reason: "tool_use", get content() { return ++reads === 1 ? [block(0)] : Array.from({ length: 120000 }, (_, i) => block(i)); } })
        : () => ({ toJSON: () => ({ stop_reason: "end_turn", content: [{ type: "text", text: "x".repeat(9000000) }] }) });
      e.command("run");
      const lowers = [1, 2, 3].map(() => (e.command("back"), e.shadowRoot.querySelector(".alp-lower")?.textContent ?? "")).join("\n");
      return { status: e.state().finalStatus, lowers };
    }, shape);
    expect(r.status).toBe("model_error");
    expect(r.lowers).toContain("too big for the playground: more than");
  });
}

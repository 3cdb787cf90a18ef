// E2E tests in real headless Chromium (Playwright + Debian's chromium)
// against the release build in dist/, served on 127.0.0.1.
//   node tests/e2e/run.mjs                 run the tests
//   node tests/e2e/run.mjs --screenshots   also refresh docs/*.png
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dist = path.join(root, "dist");
const shots = process.argv.includes("--screenshots");

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
// The course example as an author would host it: dist/ copied under a
// sub-path, the lesson page elsewhere, with only the asset paths adjusted.
const lesson = fs
  .readFileSync(path.join(dist, "course-example.html"), "utf8")
  .replaceAll('src="element.js"', 'src="../assets/alp/element.js"')
  .replaceAll('src="iframe-resize.js"', 'src="../assets/alp/iframe-resize.js"')
  .replaceAll('src="index.html?', 'src="../assets/alp/index.html?');
const server = await serve([["/course/assets/alp/", dist], ["/", dist]], { "/course/lesson/": lesson });

let passed = 0;
const failures = [];
async function test(name, body, contextOptions = {}) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, reducedMotion: "reduce", ...contextOptions });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(`console.${m.type()}: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("request", (r) => requests.push(r.url()));
  const started = Date.now();
  try {
    await body(page, { requests });
    assert.deepEqual(problems, [], "no console errors or warnings");
    const foreign = requests.filter((u) => !u.startsWith(server.origin) && !u.startsWith("data:"));
    assert.deepEqual(foreign, [], "every request stays on the page's origin");
    passed++;
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    failures.push(name);
    console.log(`FAIL ${name}\n     ${String(error.stack || error).split("\n").slice(0, 6).join("\n     ")}`);
    if (problems.length) console.log("     problems:", problems);
  } finally {
    await context.close();
  }
}

const el = "agent-loop-playground";
async function open(page, query = "") {
  await page.goto(`${server.origin}/index.html${query}`);
  await page.waitForFunction(() => document.querySelector("agent-loop-playground")?.ready === true, null, { timeout: 15000 });
}
const state = (page, sel = el) => page.$eval(sel, (e) => e.state());
const cards = (page, sel = el) => page.$$eval(`${sel} svg[data-role="record"] [data-message-index]`, (g) => g.length);
async function lineOf(page, fn, needle) {
  return page.$$eval(`${el} .alp-row[data-function="${fn}"]`, (rows, needle) => {
    const row = rows.find((r) => r.querySelector("code").textContent.includes(needle));
    return row ? Number(row.dataset.line) : null;
  }, needle);
}
async function current(page) {
  return page.$eval(`${el} [aria-current="step"]`, (r) => ({ fn: r.dataset.function, line: Number(r.dataset.line) }));
}

async function walkTheLesson(page, lang) {
  await open(page, `?function=run_loop&scenario=report&lang=${lang}`);
  const ask = await lineOf(page, "run_loop", "ask(&messages)");
  const save = await lineOf(page, "run_loop", 'messages.push(json!({"role": "user"');
  assert.ok(ask && save, "both lines are in the listing");
  await page.click(`${el} .alp-bp[data-function="run_loop"][data-line="${ask}"]`);
  await page.click(`${el} .alp-bp[data-function="run_loop"][data-line="${save}"]`);
  assert.equal(await page.getAttribute(`${el} .alp-bp[data-line="${ask}"]`, "aria-pressed"), "true");
  await page.click(`${el} [data-command="debug"]`);
  assert.deepEqual(await current(page), { fn: "run_loop", line: ask });
  await page.click(`${el} [data-command="continue"]`);
  assert.deepEqual(await current(page), { fn: "run_loop", line: save });
  assert.equal(await cards(page), 2, "two message cards before the save");
  await page.click(`${el} [data-command="step"]`);
  assert.equal(await cards(page), 3, "three after it");
  await page.click(`${el} [data-command="continue"]`);
  assert.deepEqual(await current(page), { fn: "run_loop", line: ask });
  assert.equal((await state(page)).recordLength, 3);
  await page.click(`${el} [data-command="continue"]`);
  const s = await state(page);
  assert.equal(s.status, "answered");
  assert.equal(s.step, s.steps - 1);
  assert.equal(await cards(page), 4);
  const caption = await page.textContent(`${el} .alp-caption-title`);
  assert.equal(caption, lang === "zh" ? "run_loop 返回" : "run_loop returns");
  const live = await page.textContent(`${el} .alp-live`);
  assert.ok(live.includes(caption), "the live region announces the caption");
}

await test("lesson walk-through in zh", (page) => walkTheLesson(page, "zh"));
await test("lesson walk-through in en", (page) => walkTheLesson(page, "en"));

await test("keyboard: F10/F11/Shift+F11/F8 and arrows while focused", async (page) => {
  await open(page, "?scenario=report&lang=en");
  await page.focus(`${el} .alp-code`);
  await page.keyboard.press("F10");
  assert.equal((await state(page)).step, 0);
  await page.keyboard.press("ArrowRight");
  assert.equal((await state(page)).label, "loop.check_budget");
  await page.keyboard.press("ArrowLeft");
  assert.equal((await state(page)).step, 0);
  await page.$eval(el, (e) => e.toggleBreakpoint("run_loop", "loop.ask"));
  await page.keyboard.press("F8");
  assert.equal((await state(page)).label, "loop.ask");
  await page.keyboard.press("F11");
  assert.equal((await state(page)).currentFunction, "ask_claude");
  await page.keyboard.press("Shift+F11");
  assert.equal((await state(page)).currentFunction, "run_loop");
  // Breakpoint buttons work from the keyboard too.
  await page.focus(`${el} .alp-bp[data-line="3"]`);
  await page.keyboard.press("Enter");
  assert.equal(await page.getAttribute(`${el} .alp-bp[data-line="3"]`, "aria-pressed"), "true");
  // Outside the playground the arrows are left alone.
  const before = (await state(page)).step;
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press("ArrowRight");
  assert.equal((await state(page)).step, before);
});

await test("every scenario loads, runs to its end, and emits one step event per move", async (page) => {
  await open(page, "?lang=en");
  const ids = await page.$$eval(`${el} .alp-select option:not([disabled])`, (o) => o.length);
  assert.ok(ids >= 20, `scenarios listed: ${ids}`);
  const events = await page.$eval(el, (e) => {
    let n = 0;
    e.addEventListener("playground-step", () => n++);
    const select = e.querySelector(".alp-select");
    const statuses = [];
    for (const opt of [...select.options].filter((o) => !o.disabled)) {
      select.value = opt.value;
      select.dispatchEvent(new Event("change", { bubbles: true }));
      e.command("run");
      statuses.push(e.state().status);
    }
    return { n, statuses };
  });
  assert.ok(events.statuses.every((s) => s && s !== "paused" && s !== "ready"), JSON.stringify(events.statuses));
  assert.equal(events.n, ids * 2, "one event per load and one per run");
});

await test("instrumentation toggle reveals the tracing lines", async (page) => {
  await open(page, "?scenario=report&lang=en");
  const hidden = await page.$$eval(`${el} .alp-instr`, (r) => r.filter((x) => x.offsetParent !== null).length);
  assert.equal(hidden, 0);
  await page.check(`${el} .alp-reveal-box`);
  const shown = await page.$$eval(`${el} .alp-instr`, (r) => r.filter((x) => x.offsetParent !== null).length);
  assert.ok(shown > 20, `tracing lines visible: ${shown}`);
});

await test("course page under a sub-path: three independent playgrounds and an iframe", async (page, { requests }) => {
  await page.addInitScript(() => {
    if (window.top !== window) return;
    window.__alp = [];
    window.addEventListener("message", (e) => {
      if (e.data && e.data.source === "agent-loop-playground") window.__alp.push(e.data);
    });
  });
  await page.goto(`${server.origin}/course/lesson/`);
  await page.waitForFunction(() => [...document.querySelectorAll("agent-loop-playground")].every((e) => e.ready), null, { timeout: 15000 });
  const ids = ["#demo-ask", "#demo-main", "#demo-loop"];
  const before = await Promise.all(ids.map((id) => state(page, id)));
  assert.deepEqual(before.map((s) => s.function), ["ask_claude", "run_main", "run_loop"]);
  assert.deepEqual(before.map((s) => s.breakpoints.length), [0, 1, 2], "breakpoints from attributes");
  await page.click(`#demo-loop [data-command="debug"]`);
  await page.click(`#demo-loop [data-command="continue"]`);
  const loop = await state(page, "#demo-loop");
  assert.equal(loop.label, "loop.save_results");
  assert.equal(await cards(page, "#demo-loop"), 2);
  const after = await Promise.all(ids.slice(0, 2).map((id) => state(page, id)));
  assert.deepEqual(after, before.slice(0, 2), "the other playgrounds did not move");
  await page.click(`#demo-main [data-command="debug"]`);
  assert.equal((await state(page, "#demo-main")).label, "main.validate");
  assert.equal((await state(page, "#demo-loop")).label, "loop.save_results");
  // The iframe: ready, resize, step.
  const frame = page.frameLocator("#demo-frame");
  await frame.locator('[data-command="run"]').click();
  await page.waitForFunction(() => ["ready", "resize", "step"].every((t) => window.__alp.some((m) => m.type === t)), null, { timeout: 10000 });
  const messages = await page.evaluate(() => window.__alp);
  const last = messages.filter((m) => m.type === "step").at(-1);
  assert.equal(last.state.status, "call_limit");
  const height = Number(await page.getAttribute("#demo-frame", "height"));
  assert.ok(height > 300, `iframe resized to its content (${height})`);
  // Ill-formed messages are ignored; a well-formed command is obeyed.
  await page.evaluate(() => {
    const w = document.querySelector("#demo-frame").contentWindow;
    w.postMessage("reset", "*");
    w.postMessage({ source: "someone-else", type: "command", name: "reset" }, "*");
    w.postMessage({ source: "agent-loop-playground", type: "command", name: "explode" }, "*");
  });
  await page.waitForTimeout(200);
  const frameEl = await page.$("#demo-frame");
  const inner = await frameEl.contentFrame();
  assert.equal(await inner.$eval("agent-loop-playground", (e) => e.state().status), "call_limit");
  await page.evaluate(() => document.querySelector("#demo-frame").contentWindow.postMessage({ source: "agent-loop-playground", type: "command", name: "reset" }, "*"));
  await inner.waitForFunction(() => document.querySelector("agent-loop-playground").state().status === "ready");
  // Sub-path: the assets came from /course/assets/alp/.
  assert.ok(requests.some((u) => u.includes("/course/assets/alp/agent-loop-playground_bg.wasm")), "wasm from the sub-path");
  assert.ok(!requests.some((u) => new URL(u).pathname.startsWith("/agent-loop-playground")), "nothing from the site root");
});

await test("author callbacks: custom, throwing and garbage models", async (page) => {
  await open(page, "?scenario=report&lang=en");
  const statuses = await page.$eval(el, (e) => {
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
  assert.deepEqual(statuses.handlerSawState, [[1, 1], [2, 2]], "step handlers can call state()");
  assert.deepEqual(statuses.custom, ["answered", "custom double saw 3"]);
  assert.deepEqual(statuses.throws, ["model_error", "model request failed: TypeError"]);
  assert.deepEqual(statuses.garbage, ["protocol_error", 1]);
  assert.equal(statuses.process, "cannot start: sandbox says no");
});

await test("removing an element releases it; adding it back works", async (page) => {
  await open(page, "?scenario=report&lang=en");
  const result = await page.evaluate(async () => {
    const e = document.querySelector("agent-loop-playground");
    const parent = e.parentNode;
    e.remove();
    const gone = { state: e.state(), children: e.childElementCount };
    parent.appendChild(e);
    await new Promise((r) => e.addEventListener("playground-ready", r, { once: true }));
    e.command("run");
    return { gone, status: e.state().status };
  });
  assert.deepEqual(result.gone, { state: null, children: 0 });
  assert.equal(result.status, "answered");
});

await test("attributes: controls, height, compact, breakpoints by label and line", async (page) => {
  await open(page, "?scenario=report&lang=en");
  const r = await page.evaluate(async () => {
    const e = document.createElement("agent-loop-playground");
    e.setAttribute("function", "run_main");
    e.setAttribute("scenario", "timeout");
    e.setAttribute("controls", "debug,step,continue");
    e.setAttribute("height", "240");
    e.setAttribute("breakpoints", "main.spawn, run_main:5");
    e.setAttribute("compact", "");
    e.id = "extra";
    document.querySelector("main").appendChild(e);
    await new Promise((ok) => e.addEventListener("playground-ready", ok, { once: true }));
    const code = e.querySelector(".alp-code");
    return {
      buttons: [...e.querySelectorAll("[data-command]")].map((b) => b.dataset.command),
      maxHeight: getComputedStyle(code).maxHeight,
      lowerHidden: getComputedStyle(e.querySelector(".alp-lower")).display,
      breakpoints: e.state().breakpoints,
      options: [...e.querySelectorAll(".alp-select optgroup")].map((g) => g.label),
      otherState: document.querySelector("agent-loop-playground").state().scenario,
    };
  });
  assert.deepEqual(r.buttons, ["debug", "step", "continue"]);
  assert.equal(r.maxHeight, "240px");
  assert.equal(r.lowerHidden, "none");
  assert.equal(r.breakpoints.length, 2);
  assert.ok(r.breakpoints.every((b) => b.function === "run_main"));
  assert.deepEqual(r.options, ["run_main"], "function= limits the picker");
  assert.equal(r.otherState, "report");
  await page.click('#extra [data-command="debug"]');
  assert.equal((await state(page, "#extra")).label, "main.envelope");
  await page.click('#extra [data-command="continue"]');
  assert.equal((await state(page, "#extra")).label, "main.spawn");
});

// ---- Hostile input ----------------------------------------------------
await test("hostile input is inert text and the layout holds", async (page) => {
  await open(page, "?scenario=report&lang=en");
  const result = await page.$eval(el, (e) => {
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
  assert.equal(result.pwned, null, "no injected script ran");
  assert.deepEqual(result.statuses, ["answered", "answered", "unsupported tool or arguments", "protocol_error"]);
  assert.equal(await page.$$eval(`${el} script, ${el} img, ${el} b, ${el} i`, (x) => x.length), 0, "no element was created from data");
  // Layout: nothing pokes out of the page horizontally.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px too wide`);
  const select = await page.$eval(`${el} .alp-select`, (s) => s.selectedOptions[0].textContent);
  assert.ok(select.includes("<i>hostile</i>"), "a title with markup is shown as text");
});

await test("a fixture that is not JSON, or has wrong types, is reported in the page", async (page) => {
  await open(page, "?scenario=report&lang=en");
  const messages = await page.$eval(el, (e) => {
    const out = [];
    for (const bad of ["{not json", JSON.stringify({ id: "w", function: "run_loop", title: { zh: "x", en: "x" }, max_calls: "4", model: "no" }), JSON.stringify([1, 2])]) {
      try { e.addScenario(bad); out.push("accepted"); } catch (error) { out.push(error.message); }
    }
    e.command("run");
    out.push(e.state().status);
    return out;
  });
  assert.match(messages[0], /\(file\): not valid JSON/);
  assert.match(messages[1], /max_calls: must be an integer/);
  assert.match(messages[1], /model: must be a list of replies/);
  assert.match(messages[2], /must be a JSON object/);
  assert.equal(messages[3], "answered", "the current scenario still works");
  const shown = await page.textContent(`${el} .alp-problems`);
  assert.ok(shown.includes("max_calls: must be an integer"), shown);
});

// ---- Accessibility ------------------------------------------------------
const axeSource = fs.readFileSync(path.join(root, "node_modules/axe-core/axe.min.js"), "utf8");
async function axe(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
}
for (const lang of ["zh", "en"]) {
  await test(`axe-core: page in ${lang}, before and while debugging`, async (page) => {
    await open(page, `?scenario=report&lang=${lang}`);
    assert.deepEqual(await axe(page), []);
    await page.$eval(el, (e) => { e.toggleBreakpoint("run_loop", "loop.save_results"); e.command("debug"); });
    assert.deepEqual(await axe(page), []);
    await page.$eval(el, (e) => { e.command("stepInto"); for (let i = 0; i < 15; i++) e.command("stepInto"); });
    assert.deepEqual(await axe(page), []);
  }, { bypassCSP: true });
  await test(`axe-core: course example in ${lang}`, async (page) => {
    await page.goto(`${server.origin}/course/lesson/`);
    await page.waitForFunction(() => [...document.querySelectorAll("agent-loop-playground")].every((e) => e.ready), null, { timeout: 15000 });
    if (lang === "en") await page.$$eval("agent-loop-playground", (els) => els.forEach((e) => (e.lang = "en")));
    await page.$$eval("agent-loop-playground", (els) => els.forEach((e) => e.command("debug")));
    assert.deepEqual(await axe(page), []);
  }, { bypassCSP: true });
}

await test("keyboard only: tab to the controls, set a breakpoint, debug, step, continue", async (page) => {
  await open(page, "?scenario=report&lang=en");
  const focusOn = async (selector, max = 80) => {
    for (let i = 0; i < max; i++) {
      await page.keyboard.press("Tab");
      if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return;
    }
    throw new Error(`never reached ${selector} with Tab`);
  };
  await focusOn(`${el} [data-command="debug"]`);
  await page.keyboard.press("Enter");
  assert.equal((await state(page)).label, "loop.check_budget");
  await page.keyboard.press("F10");
  await page.keyboard.press("F10");
  assert.equal((await state(page)).label, "loop.rule");
  const ask = await lineOf(page, "run_loop", "ask(&messages)");
  await focusOn(`${el} .alp-bp[data-line="${ask}"]`, 200);
  await page.keyboard.press("Space");
  assert.equal(await page.getAttribute(`${el} .alp-bp[data-line="${ask}"]`, "aria-pressed"), "true");
  await page.keyboard.press("F8");
  assert.equal((await state(page)).label, "loop.ask");
  await page.keyboard.press("F8");
  assert.equal((await state(page)).label, "loop.ask");
  assert.equal((await state(page)).recordLength, 3);
  await page.keyboard.press("F8");
  assert.equal((await state(page)).status, "answered");
  // The language buttons and the scenario picker are reachable too.
  await focusOn(`${el} [data-lang="zh"]`, 400);
  await page.keyboard.press("Enter");
  assert.equal((await state(page)).lang, "zh");
});

if (shots) {
  for (const [w, h, name] of [[1440, 900, "desktop"], [390, 844, "narrow"]]) {
    for (const lang of ["zh", "en"]) {
      const context = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1, reducedMotion: "reduce" });
      const page = await context.newPage();
      await open(page, `?scenario=report&lang=${lang}`);
      await page.$eval(el, (e) => {
        e.toggleBreakpoint("run_loop", "loop.ask");
        e.toggleBreakpoint("run_loop", "loop.save_results");
        e.command("debug");
        e.command("continue");
      });
      await page.waitForTimeout(100);
      await page.screenshot({ path: path.join(root, `docs/screenshot-${name}-${lang}.png`), fullPage: name === "desktop" });
      await context.close();
    }
  }
  console.log("screenshots written to docs/");
}

await browser.close();
server.close();
console.log(`\nE2E: ${passed} passed, ${failures.length} failed`);
if (failures.length || passed === 0) process.exit(1);

// Predict, then step; what if the model had answered otherwise; a link to
// this exact step. In zh and en, in real Chromium.
import { readFileSync } from "node:fs";
import path from "node:path";
import { test, expect, EL, open, command, state, root } from "./helpers.mjs";

/** The right choice of a scenario's authored question, as the file says it. */
function rightChoice(id, index, lang) {
  const q = JSON.parse(readFileSync(path.join(root, `fixtures/scenarios/${id}.json`), "utf8")).questions[index];
  const c = q.choices[q.answer];
  return typeof c === "string" ? c : c[lang];
}

const WORDS = {
  en: { wrong: "Not quite", right: "Right.", score: (r, a) => `Right ${r} of ${a}`, run: "Run this version" },
  zh: { wrong: "不对", right: "答对了。", score: (r, a) => `答对 ${r} / ${a}`, run: "运行这个版本" },
};
const panel = `${EL} [data-role="predict"]`;

/** Steps until a question is on screen; returns its state().question. */
async function stepToQuestion(page) {
  for (let i = 0; i < 80; i++) {
    const q = (await state(page)).question;
    if (q) return q;
    await page.locator(command("step")).click();
  }
  throw new Error("no question was asked");
}

/** The choice buttons of the question on screen, with their text. */
const choices = (page) => page.$$eval(`${panel} .alp-q-open [data-choice]`, (bs) => bs.map((b) => b.textContent));

for (const lang of ["en", "zh"]) {
  test(`predict in ${lang}: a wrong answer, then a right one, feedback, events and score`, async ({ page }) => {
    await open(page, `?scenario=report&lang=${lang}&predict=1`);
    const w = WORDS[lang];
    await page.$eval(EL, (e) => {
      window.answers = [];
      e.addEventListener("playground-answer", (ev) => window.answers.push(ev.detail));
    });
    expect((await state(page)).predict).toBe(true);
    await expect(page.locator(`${EL} .alp-predict-box`)).toBeChecked();

    // 1. The run's ending, asked before the loop's first line runs: answer wrong.
    const first = await stepToQuestion(page);
    expect(first.key).toBe("status");
    const before = await state(page);
    await page.locator(command("step")).click();
    expect((await state(page)).step, "no stepping past an open question").toBe(before.step);
    const texts = await choices(page);
    const wrong = texts.findIndex((t) => !t.includes("answered"));
    await expect(page.locator(`${panel} [data-choice="0"]`), "the keyboard lands on the choices").toBeFocused();
    await page.locator(`${panel} [data-choice="${wrong}"]`).click();
    await expect(page.locator(`${panel} .alp-q-result`)).toContainText(w.wrong);
    await expect(page.locator(`${panel} .alp-q-result`)).toContainText("answered");
    await expect(page.locator(`${panel} .alp-q-result`), "the verdict gets the focus (and is announced)").toBeFocused();
    await expect(page.locator(`${panel} .alp-score`)).toContainText(w.score(0, 1));

    // 2. The record after `messages = [question]`: answer right, by keyboard.
    const second = await stepToQuestion(page);
    expect(second.key).toMatch(/^record-/);
    const right = (await choices(page)).indexOf("1");
    await page.locator(`${panel} [data-choice="${right}"]`).focus();
    await page.keyboard.press("Enter");
    await expect(page.locator(`${panel} .alp-q-result`)).toContainText(w.right);
    await expect(page.locator(`${panel} .alp-score`)).toContainText(w.score(1, 2));
    // The question opened on arrival at its line: the line runs on the next step.
    expect((await state(page)).recordLength, "answered before the line runs").toBe(0);
    await page.locator(command("step")).click();
    expect((await state(page)).recordLength, "the next step runs it").toBe(1);

    // 3. The authored question on saving the reply (its choices are in an
    // order of their own: the right one is found by its text).
    const third = await stepToQuestion(page);
    expect(third.key).toBe("q0");
    expect(third.label).toBe("loop.save_response");
    const authored = (await choices(page)).indexOf(rightChoice("report", 0, lang));
    expect(authored, "the right choice is on screen").toBeGreaterThanOrEqual(0);
    await page.locator(`${panel} [data-choice="${authored}"]`).click();
    await expect(page.locator(`${panel} .alp-score`)).toContainText(w.score(2, 3));

    const answers = await page.evaluate(() => window.answers);
    expect(answers.map((a) => [a.question, a.correct, a.scenario])).toEqual([
      ["status", false, "report"], [second.key, true, "report"], ["q0", true, "report"],
    ]);
    expect(answers[0]).toMatchObject({ choice: wrong, label: first.label });

    // Try again forgets the answers and starts the scenario again.
    await page.locator(`${panel} [data-action="try-again"]`).click();
    const after = await state(page);
    expect([after.score, after.started]).toEqual([{ right: 0, answered: 0 }, false]);
    expect((await stepToQuestion(page)).key, "the same questions are asked again").toBe("status");
  });

  test(`what if in ${lang}: the second reply stops at max_tokens, the runs compared`, async ({ page }) => {
    await open(page, `?scenario=report&lang=${lang}`);
    const editor = page.locator(`${EL} textarea[data-edit="model"]`);
    const replies = JSON.parse(await editor.inputValue());
    expect(replies).toHaveLength(2);
    replies[1] = { stop_reason: "max_tokens", content: [] };
    await editor.fill(JSON.stringify(replies, null, 2));
    await page.locator(`${EL} [data-action="what-if"]`).click();
    expect((await state(page)).whatIf).toBe(true);
    await page.locator(command("run")).click();
    expect((await state(page)).status).toBe("model_stopped");
    const compare = page.locator(`${EL} [data-role="compare"]`);
    await expect(compare).toBeVisible();
    await expect(compare).toContainText("answered");
    await expect(compare).toContainText("model_stopped");
    // The values differ from where the second model call returns its
    // reply; the runs part where their lines do, at two different places.
    const parting = await page.$eval(EL, (e) => e.shadowRoot.querySelector(".alp-parting").textContent);
    // (each place said by its stage's title, never by a trace label)
    expect(parting).toContain(lang === "zh" ? "原样交回响应" : "Hand the answer back untouched");
    expect(parting).not.toMatch(/\b(ask|loop|main)\.[a-z_]+/);
    expect(parting).toContain("response");
    const places = [...parting.matchAll(/ ([^ （(]+)(?: \(line |（第 )(\d+)/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(places.length, parting).toBeGreaterThanOrEqual(2);
    expect(places[0], "the lesson's place and the version's are not the same").not.toBe(places[1]);
    await compare.locator('[data-action="to-parting"]').click();
    const at = await state(page);
    expect(parting, "the step is named (1-based)").toContain(String(at.step + 1));
    // Lockstep: one step back, both runs are on the same line; at the
    // parting, the lesson's run is elsewhere.
    await page.locator(command("back")).click();
    await expect(compare.locator(".alp-lockstep")).not.toHaveClass(/alp-lockstep-apart/);
    await page.locator(command("step")).click();
    await expect(compare.locator(".alp-lockstep")).toHaveClass(/alp-lockstep-apart/);
    await compare.locator('[data-action="back-to-lesson"]').click();
    expect((await state(page)).whatIf).toBe(false);
    await expect(compare).toBeHidden();
    // The same through the API.
    const api = await page.$eval(EL, (e, second) => {
      const first = JSON.parse(e.shadowRoot.querySelector('textarea[data-edit="model"]').value)[0];
      const changed = e.whatIf({ model: [first, second] });
      e.command("run");
      const ended = e.state().status;
      const back = e.whatIf(null);
      return { changed: changed.whatIf, ended, back: back.whatIf };
    }, { stop_reason: "max_tokens", content: [] });
    expect(api).toEqual({ changed: true, ended: "model_stopped", back: false });
  });
}

test("a bad edit is named inline and the run on screen stays as it was", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  for (let i = 0; i < 5; i++) await page.locator(command("step")).click();
  const before = await state(page);
  const editor = page.locator(`${EL} textarea[data-edit="model"]`);
  const error = page.locator(`${EL} [data-role="edit-error"]`);
  for (const [text, field] of [["[{", "model: line 1: not valid JSON, it ends before it is complete"], ['[{"stop_reason": 5, "content": []}]', "line 1, model[0].stop_reason"], ["[]", "model: must hold at least one reply"]]) {
    await editor.fill(text);
    await page.locator(`${EL} [data-action="what-if"]`).click();
    await expect(error).toBeVisible();
    await expect(error).toContainText(field);
    expect(await state(page), `${text}: nothing changed`).toEqual(before);
    expect(await editor.inputValue(), "the learner's text is kept").toBe(text);
  }
  const thrown = await page.$eval(EL, (e) => {
    try { e.whatIf({ process: { returncode: "one" } }); return "accepted"; } catch (err) { return err.message; }
  });
  expect(thrown).toContain("process");
  expect(await state(page)).toEqual(before);
});

test("an edit the scenario format refuses is said in Chinese at its line and field", async ({ page }) => {
  await open(page, "?scenario=report&lang=zh");
  const editor = page.locator(`${EL} textarea[data-edit="process"]`);
  const error = page.locator(`${EL} [data-role="edit-error"]`);
  await editor.fill('[\n  {"returncode": 0},\n  {\n    "returncode": "one"\n  }\n]');
  await page.locator(`${EL} [data-action="what-if"]`).click();
  await expect(error).toHaveText("第 4 行，process[1].returncode：必须是整数");
});

test("a copied link restores step, breakpoints, listing and language in a fresh page", async ({ page, context, baseURL }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  await open(page, "?scenario=report&lang=en");
  await page.locator(`${EL} [data-listing="rust"]`).click();
  await page.$eval(EL, (e) => {
    e.toggleBreakpoint("run_loop", "loop.save_results");
    e.toggleBreakpoint("run_main", "main.flag");
  });
  await page.locator(`${EL} [data-lang="zh"]`).click();
  await page.locator(command("debug")).click();
  await page.locator(command("continue")).click();
  await page.locator(command("step")).click();
  const wanted = await state(page);
  await page.locator("#copy-link").click();
  await expect(page.locator("#copy-link-done")).toBeVisible();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toContain("#scenario=report");
  expect(new URL(link).hash, "the address bar follows the learner").toBe(new URL(page.url()).hash);

  const fresh = await context.newPage();
  await fresh.goto(link);
  await fresh.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
  expect(await state(fresh)).toEqual(wanted);
  await fresh.reload();
  await fresh.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
  expect(await state(fresh), "a reload keeps it too").toEqual(wanted);
  await fresh.close();
});

test("a stale link opens the nearest valid state and says so", async ({ page, problems }) => {
  await page.goto("/index.html#scenario=nope&lang=en&step=99999&breakpoints=run_loop:9999");
  await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
  const s = await state(page);
  expect([s.scenario, s.started, s.step]).toEqual(["report", true, s.steps - 1]);
  const notice = page.locator(`${EL} [data-role="notice"]`);
  await expect(notice).toBeVisible();
  await expect(notice).toContainText("There is no scenario nope");
  await expect(notice).toContainText("step 99999 is past the end");
  await expect(notice).toContainText("run_loop:9999");
  problems.splice(0, problems.length, ...problems.filter((p) => !p.startsWith("console.warning: agent-loop-playground:")));
});

test("the element starts at a step given by number or label", async ({ page }) => {
  await open(page, "?scenario=report&lang=en&step=loop.save_results");
  const s = await state(page);
  expect([s.label, s.started]).toEqual(["loop.save_results", true]);
});

test("in iframe mode every answer is posted to the parent", async ({ page, baseURL }) => {
  const host = `<!doctype html><html lang="en"><title>Course</title><body>
<iframe id="f" src="/index.html?embed=1&scenario=report&lang=en&predict=1" style="width:1000px;height:900px"></iframe>
<script type="module" src="/host-listen.js"></script>`;
  await page.route(`${baseURL}/host.html`, (r) => r.fulfill({ contentType: "text/html", body: host }));
  await page.route(`${baseURL}/host-listen.js`, (r) => r.fulfill({ contentType: "text/javascript",
    body: 'window.messages = []; addEventListener("message", (e) => window.messages.push(e.data));' }));
  await page.goto("/host.html");
  const frame = page.frameLocator("#f");
  await expect.poll(() => page.evaluate(() => window.messages.some((m) => m.type === "ready"))).toBe(true);
  for (let i = 0; i < 5 && !(await frame.locator(`${EL} [data-choice]`).count()); i++) {
    await frame.locator(`${EL} [data-command="step"]`).click();
  }
  await frame.locator(`${EL} [data-choice="0"]`).click();
  await expect.poll(() => page.evaluate(() => window.messages.filter((m) => m.type === "answer").length)).toBe(1);
  const posted = await page.evaluate(() => window.messages.find((m) => m.type === "answer"));
  expect(posted).toMatchObject({ source: "agent-loop-playground", answer: { question: "status", scenario: "report", choice: 0 } });
});

test("while a question waits the caption does not give the answer away, and the keys keep working after it", async ({ page }) => {
  await open(page, "?scenario=report&lang=en&predict=1");
  await page.locator(`${EL} .alp-code`).focus();
  for (let i = 0; i < 10 && !(await state(page)).question; i++) await page.keyboard.press("F10");
  const q = (await state(page)).question;
  expect(q.key).toBe("status");
  await expect(page.locator(`${EL} [data-role="caption"]`)).toContainText("Your prediction first");
  await expect(page.locator(`${panel} .alp-q-line code`), "the line is quoted beside the question").not.toBeEmpty();
  await page.keyboard.press("Enter"); // the first choice has the focus
  await expect(page.locator(`${EL} [data-role="caption"]`)).not.toContainText("Your prediction first");
  const before = (await state(page)).step;
  await page.keyboard.press("F10"); // the verdict had the focus and goes away
  await page.keyboard.press("F10");
  const after = await state(page);
  expect(after.step > before || after.question !== null, "F10 still moves (or asks)").toBe(true);
});

test("the link of a page opened in another language follows the fragment, and a what-if run is in the link", async ({ page }) => {
  await page.goto("/index.html?lang=zh#scenario=report&lang=en");
  await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
  expect(await page.evaluate(() => document.documentElement.lang)).toBe("en");
  await page.$eval(EL, (e) => {
    const first = JSON.parse(e.shadowRoot.querySelector('textarea[data-edit="model"]').value)[0];
    e.whatIf({ model: [first, { stop_reason: "max_tokens", content: [] }] });
    e.command("run");
  });
  await expect.poll(() => page.evaluate(() => location.hash)).toContain("edit=");
  const hash = await page.evaluate(() => location.hash);
  const before = await state(page);
  // Shared, the link shows the changed run (where both runs have the step).
  await page.goto(`/index.html${hash}`);
  await page.waitForFunction((el) => document.querySelector(el)?.ready === true && document.querySelector(el).state().whatIf, EL);
  const after = await state(page);
  expect([after.whatIf, after.finalStatus, after.scenario]).toEqual([true, "model_stopped", before.scenario]);
});

test("Run this version answers where the learner looks: the comparison in view with the focus, the place kept", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await open(page, "?scenario=report&lang=zh");
  for (let i = 0; i < 4; i++) await page.locator(command("step")).click();
  const was = await state(page);
  const editor = page.locator(`${EL} textarea[data-edit="model"]`);
  const replies = JSON.parse(await editor.inputValue());
  replies[1] = { stop_reason: "max_tokens", content: [{ type: "text", text: "被截断" }] };
  await editor.fill(JSON.stringify(replies, null, 2));
  await page.locator(`${EL} [data-action="what-if"]`).click();
  const r = await page.$eval(EL, (e) => {
    const panel = e.shadowRoot.querySelector('[data-role="compare"]').getBoundingClientRect();
    return {
      focused: e.shadowRoot.activeElement?.dataset.role ?? null,
      inView: panel.top >= -1 && panel.top < innerHeight && panel.height > 0,
      state: e.state(),
      parting: e.shadowRoot.querySelector(".alp-parting").textContent,
    };
  });
  expect(r.focused).toBe("compare");
  expect(r.inView, "the comparison is in the window").toBe(true);
  // Before the runs part, the learner stays on the step they were on.
  expect([r.state.whatIf, r.state.step, r.state.started]).toEqual([true, was.step, true]);
  // Two places are named, each by its stage's title and its line.
  expect(r.parting).toMatch(/课上的运行在 [^（]+（第 \d+ 行），你的版本在 [^（]+（第 \d+ 行）/);
  // A bad edit is said in the reader's language, with its line.
  await editor.fill('[\n  {"stop_reason": 5, "content": []}\n]');
  await page.locator(`${EL} [data-action="what-if"]`).click();
  await expect(page.locator(`${EL} [data-role="edit-error"]`)).toContainText("第 2 行，model[0].stop_reason：");
});

test("a breakpoint question quotes the breakpoint's line, asked as Debug arrives", async ({ page }) => {
  await open(page, "?scenario=report&lang=en&predict=1&breakpoints=ask_claude:4");
  await page.locator(command("debug")).click();
  const q = (await state(page)).question;
  expect(q.key).toBe("breakpoint-ask_claude-4");
  await expect(page.locator(`${panel} .alp-q-line`)).toContainText("Line 4 of ask_claude");
});

test("a fragment changed in the same tab opens that state", async ({ page }) => {
  await open(page, "?scenario=report&lang=en");
  await page.evaluate(() => { location.hash = "#scenario=error&lang=zh&step=3"; });
  await page.waitForFunction((el) => document.querySelector(el)?.ready === true && document.querySelector(el).state().scenario === "error", EL);
  const s = await state(page);
  expect([s.scenario, s.lang, s.step]).toEqual(["error", "zh", 3]);
});

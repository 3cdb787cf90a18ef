// listing-src="lesson.py": a course author's own wording of the lesson's
// functions, fetched from their site, shown as written and stepped with
// the recorded run; a listing with a mistake is named in a notice (file,
// line, mark) and the built-in listing stays (docs/listing-format.md). A
// listing is shown only with the stamp check --listing --stamp writes once
// CPython ran it as the lesson ran: one that departs from the run, or has
// no stamp, is refused and never shown.
import fs from "node:fs";
import path from "node:path";
import { test, expect, EL, root, placeOnHost } from "./helpers.mjs";

const listing = (name) => fs.readFileSync(path.join(root, "fixtures/listings", name), "utf8");
// The mistakes: lesson.zh.py with one text replaced each (fixtures/listings/mistakes.json).
const MISTAKES = JSON.parse(listing("mistakes.json")).cases;
// (unstamped.py: lesson.zh.py without the stamp line check --listing --stamp wrote)
const SERVED = Object.fromEntries([["lesson.zh.py", listing("lesson.zh.py")],
  ["unstamped.py", listing("lesson.zh.py").replace(/^#\| stamp .*\n/m, "")],
  ...MISTAKES.map((c) => [c.file, listing("lesson.zh.py").replace(c.replace[0], c.replace[1])])]);

/** Serves fixtures/listings/ under /lessons/ and opens one element made from `attributes`. */
async function place(page, baseURL, attributes) {
  await page.route(`${baseURL}/lessons/**`, (route) => {
    const body = SERVED[new URL(route.request().url()).pathname.split("/").pop()];
    return body === undefined
      ? route.fulfill({ status: 404, body: "not found" })
      : route.fulfill({ contentType: "text/x-python; charset=utf-8", body });
  });
  await placeOnHost(page, baseURL, attributes, "zh");
}

const notice = (page) => page.$eval(EL, (e) => { const n = e.shadowRoot.querySelector('[data-role="notice"]'); return n.hidden ? "" : n.textContent; });
const rows = (page, fn) => page.$$eval(`${EL} .alp-row[data-function="${fn}"] code`, (c) => c.map((x) => x.textContent));

test("an author's listing is shown as written, with its comments and strings, and stepped", async ({ page, baseURL, problems }) => {
  await place(page, baseURL, { "listing-src-zh": "lessons/lesson.zh.py", scenario: "report", lang: "zh" });
  const text = listing("lesson.zh.py");
  await test.step("verbatim: every line of ask_claude as in the file, marks taken off", async () => {
    await page.$eval(EL, (e) => {
      e.command("reset");
      for (let i = 0; i < 40 && e.state().currentFunction !== "ask_claude"; i++) e.command("stepInto");
    });
    expect(await page.$eval(EL, (e) => e.state().currentFunction)).toBe("ask_claude");
    const shown = await rows(page, "ask_claude");
    const file = text.split("\n");
    const start = file.findIndex((l) => l.startsWith("def ask_claude("));
    // (a blank line is drawn as one space, to keep its height)
    expect(shown.map((l) => l.trimEnd())).toEqual(file.slice(start, start + shown.length).map((l) => l.split("  #| ")[0].trimEnd()));
    expect(shown.join("\n")).toContain("工作约定、完整记录和工具说明放进同一次请求");
  });
  await test.step("a breakpoint on the author's line stops there", async () => {
    await page.$eval(EL, (e) => e.command("reset"));
    const target = await page.$eval(EL, (e) => {
      // The author's run_loop line that saves the results.
      e.command("step");
      const rows = [...e.shadowRoot.querySelectorAll('.alp-row[data-function="run_loop"]')];
      const row = rows.find((r) => r.textContent.includes('messages.append({"role": "user", "content": results})'));
      return Number(row.dataset.line);
    });
    await page.$eval(EL, (e, n) => { e.toggleBreakpoint("run_loop", n); e.command("reset"); e.command("debug"); }, target);
    const state = await page.$eval(EL, (e) => e.state());
    expect([state.label, state.line, state.listing]).toEqual(["loop.save_results", target, "python"]);
    const current = await page.$eval(`${EL} [aria-current="step"] code`, (c) => c.textContent);
    expect(current).toContain('messages.append({"role": "user", "content": results})');
  });
  await test.step("its own sentences are said to the author once, in the console; the learner sees no notice", async () => {
    expect(await notice(page)).toBe("");
    const said = problems.filter((p) => p.startsWith("console.warning: agent-loop-playground:"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("lesson.zh.py 用了自己的句子");
    problems.splice(0, problems.length, ...problems.filter((p) => !said.includes(p)));
  });
  await test.step("a listing for zh gives way to the built-in English listing in English", async () => {
    await page.$eval(EL, (e) => { e.lang = "en"; });
    // (once English's table has arrived: data/en.json)
    await page.waitForFunction((el) => document.querySelector(el).state().lang === "en", EL);
    const shown = (await rows(page, "run_loop")).join("\n");
    expect(shown).toContain("A failed request hands control back");
    await page.$eval(EL, (e) => { e.lang = "zh"; });
    expect((await rows(page, "run_loop")).join("\n")).toContain("失败了就停下，把情况交给调用方");
  });
});

for (const { file, line, mark } of MISTAKES.filter((c) => c.finding)) {
  test(`a listing with a mistake is named and the built-in listing stays: ${file}`, async ({ page, baseURL, problems }) => {
    await place(page, baseURL, { "listing-src": `lessons/${file}`, scenario: "report", lang: "zh" });
    const said = await notice(page);
    expect(said).toContain(`lessons/${file}`);
    expect(said).toContain(mark);
    if (line) expect(said).toContain(`第 ${line} 行`);
    expect(said).toContain(`没有显示 lessons/${file}，显示的是内置的代码清单。`);
    await page.$eval(EL, (e) => { for (let i = 0; i < 3; i++) e.command("step"); });
    expect((await rows(page, "run_loop")).join("\n"), "the built-in listing").toContain("请求失败就把控制权交回");
    const warned = problems.filter((p) => p.startsWith("console.warning: agent-loop-playground:"));
    expect(warned.length).toBe(2);
    problems.splice(0, problems.length, ...problems.filter((p) => !warned.includes(p)));
  });
}

const DEPARTS = MISTAKES.find((c) => c.file === "departs.py");
for (const { file, says, hidden } of [
  { file: "departs.py", says: "departs.py 第 ", hidden: DEPARTS.replace[1].split("  #| ")[0].trim() },
  { file: "unstamped.py", says: "unstamped.py 没有戳记" },
]) {
  test(`a listing CPython has not run as the lesson ran is never shown: ${file}`, async ({ page, baseURL, problems }) => {
    await place(page, baseURL, { "listing-src": `lessons/${file}`, scenario: "report", lang: "zh" });
    const said = await notice(page);
    expect(said).toContain(says);
    expect(said).toContain(file === "departs.py" ? "戳记不属于这份代码清单" : "check --listing");
    expect(said).toContain(`没有显示 lessons/${file}，显示的是内置的代码清单。`);
    // Stepped to the end, the built-in listing is on screen and the departing line never is.
    const seen = await page.$eval(EL, (e, hidden) => {
      e.command("debug");
      const shown = [];
      for (let i = 0; i < 400 && e.state().status === "paused"; i++) {
        shown.push(e.shadowRoot.querySelector('[aria-current="step"] code')?.textContent ?? "");
        e.command("stepInto");
      }
      return { listing: e.state().listing, hit: hidden ? shown.some((l) => l.includes(hidden)) : false, steps: shown.length };
    }, hidden ?? null);
    expect(seen.steps).toBeGreaterThan(20);
    expect([seen.listing, seen.hit]).toEqual(["python", false]);
    expect((await rows(page, "run_loop")).join("\n"), "the built-in listing").toContain("请求失败就把控制权交回");
    const warned = problems.filter((p) => p.startsWith("console.warning: agent-loop-playground:"));
    expect(warned.length).toBe(2);
    problems.splice(0, problems.length, ...problems.filter((p) => !warned.includes(p)));
  });
}

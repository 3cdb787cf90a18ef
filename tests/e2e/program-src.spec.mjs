// program-src="lesson-three.pack.json": an author's own Python, recorded by
// CPython (agent-loop-cli record), replayed by the element with what the
// built-in lessons have — in zh and en, wide and on a phone: every
// scenario from its first line to its end, a breakpoint on the line that
// appends the results, the output ending with what CPython printed, the
// note that says who ran it. A pack changed after it was recorded is
// refused with a notice, and a listing that departs from its run is never
// shown (docs/element-api.md, "Your own program").
import fs from "node:fs";
import path from "node:path";
import { test, expect, EL, root, placeOnHost } from "./helpers.mjs";

const TEXT = fs.readFileSync(path.join(root, "examples/lesson-three/lesson-three.pack.json"), "utf8");
const PACK = JSON.parse(TEXT);
const FILE = "lessons/lesson-three.pack.json";

/** The core's one hash (preview::Fnv) of a text, as the pack writes it. */
function fnv(text) {
  const M = (1n << 64n) - 1n;
  const P = 0x100000001b3n;
  const rotl = (x, n) => ((x << BigInt(n)) | (x >> BigInt(64 - n))) & M;
  const bytes = Buffer.from(text, "utf8");
  let h = 0xcbf29ce484222325n;
  const whole = bytes.length - (bytes.length % 8);
  for (let i = 0; i < whole; i += 8) h = rotl(((h ^ bytes.readBigUInt64LE(i)) * P) & M, 29);
  for (let i = whole; i < bytes.length; i++) h = ((h ^ BigInt(bytes[i])) * P) & M;
  return h.toString(16).padStart(16, "0");
}

/** Serves `served` (path under /lessons/ → text) and opens one element made from `attributes`. */
async function place(page, baseURL, attributes, lang, served = { "lesson-three.pack.json": TEXT }) {
  await page.route(`${baseURL}/lessons/**`, (route) => {
    const body = served[new URL(route.request().url()).pathname.split("/").pop()];
    return body === undefined
      ? route.fulfill({ status: 404, body: "not found" })
      : route.fulfill({ contentType: "application/json; charset=utf-8", body });
  });
  await placeOnHost(page, baseURL, { lang, ...attributes }, lang);
}

const inShadow = (page, sel) => page.$eval(EL, (e, sel) => e.shadowRoot.querySelector(sel)?.textContent ?? null, sel);
const notice = (page) => page.$eval(EL, (e) => { const n = e.shadowRoot.querySelector('[data-role="notice"]'); return n.hidden ? "" : n.textContent; });

/** Walks the scenario on screen with Step into from its first line to its
 *  end; at every stop the row marked current is the state's line, and its
 *  code is that line of the pack's listing. Returns the stops and problems. */
function walk(page, listing) {
  return page.$eval(EL, (e, listing) => {
    const lines = listing.split("\n");
    const problems = [];
    let stops = 0;
    e.command("debug");
    for (; e.state().status === "paused" && stops < 5000; stops++) {
      const s = e.state();
      const row = e.shadowRoot.querySelector('[aria-current="step"]');
      const code = row?.querySelector("code")?.textContent ?? "";
      if (Number(row?.dataset.line) !== s.line || code.trimEnd() !== lines[s.line - 1].trimEnd()) {
        problems.push(`step ${s.step}: line ${s.line} of ${s.currentFunction}, shown ${row?.dataset.line}: ${code}`);
      }
      e.command("stepInto");
    }
    return { stops, problems, end: e.state() };
  }, listing);
}

for (const lang of ["zh", "en"]) {
  for (const width of [1440, 390]) {
    test.describe(`${lang}, ${width} px`, () => {
      test.use({ viewport: { width, height: 900 } });

      test("lesson three's pack steps from the first line to the end of every scenario", async ({ page, baseURL }) => {
        await place(page, baseURL, { "program-src": FILE }, lang);
        const listing = PACK.listings[lang].text;
        expect(await notice(page)).toBe("");
        // The picker offers the pack's scenarios, and only them, in its order.
        const offered = await page.$eval(EL, (e) => [...e.shadowRoot.querySelectorAll(".alp-select option")].map((o) => o.value));
        expect(offered).toEqual(PACK.scenarios.map((s) => s.id));
        for (const scenario of PACK.scenarios) {
          const run = scenario.runs[lang];
          await test.step(scenario.id, async () => {
            await page.$eval(EL, (e, id) => {
              const select = e.shadowRoot.querySelector(".alp-select");
              select.value = id;
              select.dispatchEvent(new Event("change", { bubbles: true }));
            }, scenario.id);
            const { stops, problems, end } = await walk(page, listing);
            expect(problems).toEqual([]);
            expect(stops).toBeGreaterThan(5);
            const returned = run.values[run.end.returned];
            expect([end.scenario, end.program, end.status, end.recordLength, end.step + 1])
              .toEqual([scenario.id, FILE, returned.status, run.record.length, run.steps.length]);
            // The output panel ends with what CPython printed.
            const output = (await inShadow(page, ".alp-output")).trimEnd().split("\n");
            expect(output.slice(-run.printed.length)).toEqual(run.printed);
            // Who ran it: CPython, with its version; the model and the process were stand-ins.
            const note = await inShadow(page, ".alp-provenance");
            expect(note).toContain(`CPython ${run.python}`);
            expect(note).toContain(lang === "zh" ? "替身" : "was a stand-in");
          });
        }
        // One listing, the Python that ran: no Python / Rust switch.
        await expect(page.locator(`${EL} .alp-listings`)).toBeHidden();
        await expect(page.locator(`${EL} .alp-langs`)).toBeVisible();
      });

      test("a breakpoint on the line that appends the results stops there, the record one shorter than after the next step", async ({ page, baseURL }) => {
        await place(page, baseURL, { "program-src": FILE, scenario: "refund-under" }, lang);
        const line = PACK.listings[lang].text.split("\n").findIndex((l) => l.includes('messages.append({"role": "user", "content": results})')) + 1;
        expect(line).toBeGreaterThan(0);
        // A click on its line number (the listing shows agent_loop first).
        await page.$eval(EL, (e) => e.command("step"));
        await page.locator(`${EL} .alp-bp[data-line="${line}"]`).click();
        await page.locator(`${EL} [data-command="debug"]`).click();
        const results = PACK.scenarios.find((s) => s.id === "refund-under").runs[lang].steps.filter((s) => s.line === line && s.event === "line");
        for (const hit of results) {
          const at = await page.$eval(EL, (e) => e.state());
          expect([at.line, at.status, at.recordLength]).toEqual([line, "paused", hit.record_len]);
          const current = await page.$eval(EL, (e) => e.shadowRoot.querySelector('[aria-current="step"] code').textContent);
          expect(current).toContain("messages.append(");
          await page.locator(`${EL} [data-command="step"]`).click();
          expect(await page.$eval(EL, (e) => e.state().recordLength)).toBe(hit.record_len + 1);
          await page.locator(`${EL} [data-command="back"]`).click();
          await page.locator(`${EL} [data-command="continue"]`).click();
        }
        // The same by its label, from the attribute.
        await page.$eval(EL, (e) => e.remove());
        await page.evaluate(async ([file, lang]) => {
          const el = document.createElement("agent-loop-playground");
          for (const [k, v] of Object.entries({ "program-src": file, scenario: "refund-under", breakpoints: "loop.save_results", lang })) el.setAttribute(k, v);
          document.querySelector("#slot").append(el);
          await new Promise((ok) => el.addEventListener("playground-ready", ok, { once: true }));
        }, [FILE, lang]);
        const byLabel = await page.$eval(EL, (e) => { e.command("debug"); const a = e.state(); e.command("step"); return [a.line, a.label, a.recordLength, e.state().recordLength]; });
        expect(byLabel).toEqual([line, "loop.save_results", results[0].record_len, results[0].record_len + 1]);
      });
    });
  }
}

test("a recorded run cannot be changed in the page: the setup panel says so and names record", async ({ page, baseURL }) => {
  await place(page, baseURL, { "program-src": FILE }, "en");
  const said = await page.$eval(EL, (e) => e.shadowRoot.querySelector('[data-role="no-edit"]').textContent);
  expect(said).toContain("agent-loop-cli record");
  expect(await page.$eval(EL, (e) => e.shadowRoot.querySelectorAll("[data-edit]").length)).toBe(0);
  expect(await inShadow(page, ".alp-setup-code")).toContain(PACK.setup.en.text.split("\n").find((l) => l.trim()).trim());
  await expect(page.$eval(EL, (e) => e.whatIf({ model: [] }))).rejects.toThrow(/agent-loop-cli record/);
});

/** A copy of the pack with its English listing's text replaced (and its hash made again when `rehash`). */
function changed(text, rehash) {
  const pack = JSON.parse(TEXT);
  pack.listings.en.text = text;
  if (rehash) pack.listings.en.hash = fnv(text);
  return JSON.stringify(pack);
}

const listing = PACK.listings.en.text;
const appendLine = listing.split("\n").find((l) => l.includes('messages.append({"role": "user", "content": results})'));
const CASES = [
  { name: "one listing line changed: its hash no longer matches", file: "tampered.pack.json", body: changed(listing.replace(appendLine, "        messages.append({'role': 'user', 'content': 'nothing ran'})"), false), says: /hash/, hidden: "nothing ran" },
  { name: "a line added and the hash made again: the listing departs from its run", file: "departs.pack.json", body: changed(`# a line the run never saw\n${listing}`, true), says: /not the listing that ran/, hidden: "a line the run never saw" },
  { name: "not JSON", file: "broken.pack.json", body: TEXT.slice(0, 5000), says: /not JSON/ },
  { name: "another version", file: "v2.pack.json", body: TEXT.replace('"version": 1', '"version": 2'), says: /version 2/ },
];
if (fnv(listing) !== PACK.listings.en.hash) throw new Error("the spec's hash is not the core's");

for (const { name, file, body, says, hidden } of CASES) {
  test(`a pack that cannot be used is refused with a notice naming it, and nothing of it is shown: ${name}`, async ({ page, baseURL, problems }) => {
    await place(page, baseURL, { "program-src": `lessons/${file}` }, "en", { [file]: body });
    const text = await notice(page);
    expect(text).toContain(`program-src lessons/${file} cannot be used`);
    expect(text).toMatch(says);
    const state = await page.$eval(EL, (e) => e.state());
    expect(state.program).not.toBe(`lessons/${file}`);
    if (hidden) {
      // Stepped from start to end, the refused listing's text never appears.
      const seen = await page.$eval(EL, (e, hidden) => {
        e.command("debug");
        for (let i = 0; i < 400 && e.state().status === "paused"; i++) {
          if (e.shadowRoot.textContent.includes(hidden)) return true;
          e.command("stepInto");
        }
        return e.shadowRoot.textContent.includes(hidden);
      }, hidden);
      expect(seen).toBe(false);
    }
    // (said once in the console, for the author)
    const warned = problems.filter((p) => p.includes(`program-src lessons/${file}`));
    expect(warned).toHaveLength(1);
    problems.splice(0, problems.length, ...problems.filter((p) => !warned.includes(p)));
  });
}

test("a pack that cannot be fetched is said in the reader's language", async ({ page, baseURL, problems }) => {
  await place(page, baseURL, { "program-src": "lessons/missing.pack.json" }, "zh");
  expect(await notice(page)).toContain("program-src 的值 lessons/missing.pack.json 不能用：服务器的回答是 404");
  // (the console's own line for the 404, and the element's notice, said once)
  const expected = (p) => p.includes("missing.pack.json") || p.includes("status of 404");
  expect(problems.filter(expected)).toHaveLength(2);
  problems.splice(0, problems.length, ...problems.filter((p) => !expected(p)));
});

test("keep-place: an element of a pack that leaves the page and comes back is where the learner was", async ({ page, baseURL }) => {
  await place(page, baseURL, { "program-src": FILE, scenario: "refund-over", id: "lesson-three" }, "en");
  const was = await page.$eval(EL, (e) => { e.command("debug"); e.command("step"); e.command("step"); return e.state(); });
  await page.evaluate(async () => {
    const el = document.querySelector("agent-loop-playground");
    const attributes = [...el.attributes].map((a) => [a.name, a.value]);
    el.remove();
    await new Promise((ok) => setTimeout(ok, 50));
    const back = document.createElement("agent-loop-playground");
    for (const [k, v] of attributes) back.setAttribute(k, v);
    document.querySelector("#slot").append(back);
    await new Promise((ok) => back.addEventListener("playground-ready", ok, { once: true }));
  });
  const now = await page.$eval(EL, (e) => e.state());
  expect([now.program, now.scenario, now.step, now.line, now.started]).toEqual([FILE, "refund-over", was.step, was.line, true]);
});

const RIGHT = { en: "Right.", zh: "答对了。" };
const predictPanel = `${EL} [data-role="predict"]`;

for (const lang of ["zh", "en"]) {
  test(`predict first in ${lang}: how the run ends is asked before its first line, then the author's question on its line, answered with its explanation`, async ({ page, baseURL }) => {
    await place(page, baseURL, { "program-src": FILE, scenario: "refund-over", predict: "" }, lang);
    const scenario = PACK.scenarios.find((s) => s.id === "refund-over");
    const q = scenario.questions[0];
    await page.$eval(EL, (e) => {
      window.answers = [];
      e.addEventListener("playground-answer", (ev) => window.answers.push(ev.detail));
    });
    const asked = [];
    let authored = null;
    for (let i = 0; i < 200 && !authored; i++) {
      const s = await page.$eval(EL, (e) => e.state());
      if (!s.question) {
        await page.locator(`${EL} [data-command="step"]`).click();
        continue;
      }
      asked.push(s.question.key);
      if (s.question.key === "q0") authored = s;
      else if (s.question.key === "status") {
        // The run's ending, in the reader's words: it returns status "answered".
        const texts = await page.$$eval(`${predictPanel} .alp-q-open [data-choice]`, (bs) => bs.map((b) => b.textContent));
        const right = texts.findIndex((t) => t.includes('"answered"'));
        expect(right, texts.join(" | ")).toBeGreaterThanOrEqual(0);
        await page.locator(`${predictPanel} [data-choice="${right}"]`).click();
        await expect(page.locator(`${predictPanel} .alp-q-result`)).toContainText(RIGHT[lang]);
      } else await page.$eval(EL, (e) => e.answer(0));
    }
    expect(asked[0]).toBe("status");
    expect(authored, `asked: ${asked}`).not.toBeNull();
    // On the line its label marks, before it runs; the author's words in the reader's language.
    expect(authored.line).toBe(PACK.labels["limit.check"]);
    await expect(page.locator(`${predictPanel} .alp-q-open`)).toContainText(q.text[lang]);
    const texts = await page.$$eval(`${predictPanel} .alp-q-open [data-choice]`, (bs) => bs.map((b) => b.textContent));
    const right = texts.findIndex((t) => t.includes(q.choices[q.answer][lang]));
    await page.locator(`${predictPanel} [data-choice="${right}"]`).click();
    await expect(page.locator(`${predictPanel} .alp-q-result`)).toContainText(RIGHT[lang]);
    await expect(page.locator(`${predictPanel} .alp-q-result`)).toContainText(q.explain[lang]);
    const answers = await page.evaluate(() => window.answers);
    expect(answers.at(-1)).toMatchObject({ question: "q0", correct: true, scenario: "refund-over", label: "limit.check" });
  });
}

test("the figure draws the request at the step it is sent from and the staged results until they are appended", async ({ page, baseURL }) => {
  await place(page, baseURL, { "program-src": FILE, scenario: "refund-under", breakpoints: "loop.ask,loop.save_results" }, "en");
  const run = PACK.scenarios.find((s) => s.id === "refund-under").runs.en;
  const figure = (sel) => page.$eval(EL, (e, sel) => e.shadowRoot.querySelector(sel)?.textContent ?? null, sel);
  await page.$eval(EL, (e) => e.command("debug"));
  for (const [k, request] of run.requests.entries()) {
    // At the ask: the request in flight, with the tools and max_tokens the program sent.
    const at = await page.$eval(EL, (e) => e.state());
    expect([at.label, at.recordLength], `request ${k}`).toEqual(["loop.ask", request.messages]);
    const flight = await figure(".alp-flight-ask");
    expect(flight).toContain(`tools: [${request.tools.join(", ")}]`);
    expect(flight).toContain(`max_tokens: ${request.max_tokens}`);
    expect(flight).toContain(`messages: ${request.messages}`);
    await page.$eval(EL, (e) => e.command("continue"));
    if (k === run.requests.length - 1) break;
    // At the line that appends the results: drawn below the record, then the record's.
    const saving = await page.$eval(EL, (e) => e.state());
    expect(saving.label).toBe("loop.save_results");
    const staged = await figure('[data-role="staged"]');
    for (const r of run.record[saving.recordLength].content) expect(staged).toContain(r.tool_use_id);
    expect(await figure(".alp-flight-ask"), "nothing in flight while results are saved").toBeNull();
    await page.$eval(EL, (e) => e.command("step"));
    expect(await figure('[data-role="staged"]')).toBeNull();
    await page.$eval(EL, (e) => e.command("continue"));
  }
});

test("a link to a step of lesson three restores the pack, its scenario, step and breakpoints", async ({ page, context, baseURL }) => {
  await context.route(`${baseURL}/lessons/**`, (route) => route.fulfill({ contentType: "application/json; charset=utf-8", body: TEXT }));
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  await page.goto(`/index.html?program-src=${FILE}&scenario=refund-twice&lang=zh`);
  await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
  expect(await page.$eval(EL, (e) => [e.state().program, e.state().scenario])).toEqual([FILE, "refund-twice"]);
  await page.$eval(EL, (e) => {
    e.toggleBreakpoint(e.state().function, "limit.check");
    e.command("debug");
    e.command("continue");
    e.command("step");
  });
  const wanted = await page.$eval(EL, (e) => e.state());
  expect(wanted.breakpoints).toHaveLength(1);
  await page.locator("#copy-link").click();
  await expect(page.locator("#copy-link-done")).toBeVisible();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(new URL(link).hash).toContain(`program-src=${FILE}&scenario=refund-twice`);
  const fresh = await context.newPage();
  await fresh.goto(link);
  await fresh.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
  expect(await fresh.$eval(EL, (e) => e.state())).toEqual(wanted);
  await fresh.reload();
  await fresh.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
  expect(await fresh.$eval(EL, (e) => e.state()), "a reload keeps it too").toEqual(wanted);
  await fresh.close();
});

// The stand-alone page's own words about where the steps come from follow
// what it shows: a recorded program was run by CPython, not by the Rust core.
for (const [lang, recorded, builtIn] of [["zh", "CPython 录下", "Rust 核心"], ["en", "CPython recorded", "Rust core"]]) {
  test(`the stand-alone page says a recorded program's steps are CPython's (${lang})`, async ({ page, context, baseURL }) => {
    await context.route(`${baseURL}/lessons/**`, (route) => route.fulfill({ contentType: "application/json; charset=utf-8", body: TEXT }));
    const said = async () => page.evaluate(() => [...document.querySelectorAll(".page-head p, .page-foot p")].filter((p) => p.checkVisibility()).map((p) => p.textContent).join("\n"));
    await page.goto(`/index.html?program-src=${FILE}&lang=${lang}`);
    await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
    const text = await said();
    expect(text).toContain(recorded);
    expect(text).not.toContain(builtIn);
    await page.goto(`/index.html?scenario=report&lang=${lang}`);
    await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL);
    expect(await said()).toContain(builtIn);
  });
}

// A program-src that is no http(s) address (javascript:, data:) is said to
// be no address to fetch from, not "another site (null)" (review finding).
for (const bad of ["javascript:alert(1)", "data:application/json,{}"]) {
  test(`program-src="${bad}" is said to be no address a file can be fetched from`, async ({ page, baseURL, problems }) => {
    await place(page, baseURL, { "program-src": bad }, "en");
    const text = await notice(page);
    expect(text).toContain(`program-src ${bad} cannot be used: it is not an address a file can be fetched from`);
    const said = problems.filter((p) => p.includes(bad));
    problems.splice(0, problems.length, ...problems.filter((p) => !said.includes(p)));
  });
}

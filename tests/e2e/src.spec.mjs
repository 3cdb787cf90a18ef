// src="…": scenario files fetched from the course site at run time, checked
// with the same rules as `agent-loop-cli check`; a bad or missing
// file is named in the element, and the shipped scenarios stay.
import fs from "node:fs";
import path from "node:path";
import { test, expect, EL, root, placeOnHost, state } from "./helpers.mjs";
import { serve } from "./server.mjs";

const report = JSON.parse(fs.readFileSync(path.join(root, "fixtures/scenarios/report.json"), "utf8"));
const FILES = {
  "/lessons/my-case.json": JSON.stringify({ ...report, id: "my-case", title: { zh: "我的案例", en: "My case" }, expect: undefined }),
  "/lessons/broken.json": JSON.stringify({ id: "broken", function: "run_loop", title: { zh: "坏", en: "Broken" }, max_calls: "4", model: [] }),
  "/lessons/near.json": '{\n  "id": "near",\n  "function": "run_loop",\n  "title": {"zh": "近", "en": "Near"},\n  "model": [\n    {"stop_reason": "tool-use", "content": []}\n  ],\n  "process": {"returncode": 0}\n}\n',
  "/lessons/broken-lines.json": '{\n  "id": "lines",\n  "function": "run_loop",\n  "title": {"zh": "行", "en": "Lines"},\n  "max_calls": "4",\n  "model": [],\n  "process": {"returncode": "one"}\n}\n',
  "/lessons/not-json.json": "{ this is not json",
  // (the file agent-loop-cli check's one-pass test reads, and what it says of it)
  "/lessons/once.json": fs.readFileSync(path.join(root, "cli/tests/bad-fixtures/once/lesson-one.json"), "utf8"),
};
const ONCE = fs.readFileSync(path.join(root, "cli/tests/bad-fixtures/once/lesson-one.txt"), "utf8").trim().split("\n");

/** Serves FILES under /lessons/ (others 404). */
const routeLessons = (page, baseURL) =>
  page.route(`${baseURL}/lessons/**`, (route) => {
    const body = FILES[new URL(route.request().url()).pathname];
    return body === undefined ? route.fulfill({ status: 404, body: "not found" }) : route.fulfill({ contentType: "application/json", body });
  });

/** Serves FILES (others 404) and opens a page with one element made from `attributes`. */
async function place(page, baseURL, attributes) {
  await routeLessons(page, baseURL);
  await placeOnHost(page, baseURL, attributes);
  // (a file that comes after the playground was built joins it then: on a
  // busy machine that is after ready; every named file has come, read or not)
  // (at most 50 are fetched)
  const named = Math.min((attributes.src ?? "").split(/\s+/).filter(Boolean).length, 50);
  await page.waitForFunction(([sel, n]) => document.querySelector(sel)._files.length >= n, [EL, named]);
  return page.$eval(EL, (el) => {
    const notice = el.shadowRoot.querySelector('[data-role="notice"]');
    const options = [...el.shadowRoot.querySelectorAll(".alp-select option")].map((o) => o.value || o.textContent);
    return { state: el.state(), notice: notice.hidden ? "" : notice.textContent, options };
  });
}

test("a scenario file named in src is fetched, checked and shown", async ({ page, baseURL, requests }) => {
  const r = await place(page, baseURL, { src: "lessons/my-case.json", scenario: "my-case", lang: "en" });
  expect(r.state.scenario).toBe("my-case");
  expect(r.notice).toBe("");
  expect(r.options, "the shipped scenarios are still offered").toEqual(expect.arrayContaining(["my-case", "report", "success"]));
  expect(requests.some((u) => u.endsWith("/lessons/my-case.json")), "resolved against the page").toBe(true);
  const ended = await page.$eval(EL, (e) => (e.command("run"), e.state().status));
  expect(ended).toBe("answered");
});

test("bad, missing and foreign files are named in the element; the rest still works", async ({ page, baseURL, problems }) => {
  const r = await place(page, baseURL, {
    src: "lessons/broken.json lessons/missing.json lessons/not-json.json https://elsewhere.example/x.json lessons/my-case.json",
    scenario: "my-case",
    lang: "en",
  });
  expect(r.state.scenario, "the good file among bad ones is still used").toBe("my-case");
  expect(r.notice).toContain("lessons/broken.json");
  expect(r.notice, "the field is named").toContain("max_calls");
  expect(r.notice).toContain("src lessons/missing.json could not be fetched: the server answered 404");
  expect(r.notice).toContain("lessons/not-json.json");
  expect(r.notice).toContain("only files from this page's own site are fetched");
  const role = await page.$eval(EL, (e) => e.shadowRoot.querySelector('[data-role="notice"]').getAttribute("role"));
  expect(role).toBe("status");
  // (on a busy machine the element opens before my-case.json has come, says
  // so, and shows it when it comes: that notice is the timing's, not a file's)
  const early = (p) => p.includes("There is no scenario my-case");
  const warned = problems.filter((p) => p.startsWith("console.warning: agent-loop-playground:") && !early(p));
  expect(warned.length, "each bad file said once in the console").toBe(4);
  // (and the browser's own line for the 404)
  const said = (p) => warned.includes(p) || early(p) || /status of 404/.test(p);
  problems.splice(0, problems.length, ...problems.filter((p) => !said(p)));
});

test("a broken file is said in the element's language, at the line of each field", async ({ page, baseURL, problems }) => {
  const r = await place(page, baseURL, { src: "lessons/broken-lines.json lessons/near.json", lang: "zh" });
  expect(r.notice, "a valid file's near miss, at its line").toContain("第 6 行，model[0].stop_reason：\"tool-use\" 不是 API 会返回的 stop_reason");
  expect(r.options, "the valid file is still offered").toContain("near");
  expect(r.notice).toContain("第 5 行，max_calls：必须是整数");
  expect(r.notice).toContain("第 7 行，process.returncode：必须是整数");
  expect(r.notice, "no English in a zh element").not.toMatch(/must be|missing|line \d/);
  // The console says it to the author in English, with the same places.
  const warned = problems.filter((p) => p.startsWith("console.warning: agent-loop-playground: lessons/broken-lines.json"));
  expect(warned).toHaveLength(1);
  expect(warned[0]).toContain("max_calls: must be an integer");
  const near = problems.filter((p) => p.startsWith("console.warning: agent-loop-playground: lessons/near.json: warning: model[0].stop_reason"));
  expect(near).toHaveLength(1);
  problems.splice(0, problems.length, ...problems.filter((p) => !warned.includes(p) && !near.includes(p)));
});

// Issue 44: the element says every problem and warning of a file at once,
// each at its line, as `check` does (a question's problem and the
// warnings too).
test("a file's every problem and warning is said at its line, as check says them", async ({ page, baseURL, problems }) => {
  const r = await place(page, baseURL, { src: "lessons/once.json", lang: "en" });
  expect(ONCE.length, "check says several things of the file").toBeGreaterThan(3);
  for (const said of ONCE) {
    const [, , field, why, line] = said.match(/^(warning: )?([^:]+): (.*) \(line (\d+)\)$/);
    expect(r.notice, said).toContain(`line ${line}, ${field}: ${why}`);
  }
  expect(ONCE.some((l) => l.startsWith("questions[")), "a question's problem is among them").toBe(true);
  expect(ONCE.some((l) => l.startsWith("warning: ")), "a warning is among them").toBe(true);
  const said = (p) => p.startsWith("console.warning: agent-loop-playground: lessons/once.json");
  expect(problems.filter(said).length).toBeGreaterThan(0);
  problems.splice(0, problems.length, ...problems.filter((p) => !said(p)));
});

test("changing src adds the new files to a running playground", async ({ page, baseURL, problems }) => {
  await place(page, baseURL, { lang: "en" });
  await page.$eval(EL, (e) => e.setAttribute("src", "lessons/my-case.json lessons/broken.json"));
  await expect.poll(() => problems.filter((p) => p.includes("lessons/broken.json")).length, { message: "a broken file is said once" }).toBe(1);
  await page.waitForTimeout(100);
  expect(problems.filter((p) => p.includes("lessons/broken.json"))).toHaveLength(1);
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes("lessons/broken.json")));
  await expect.poll(() => page.$eval(EL, (e) => [...e.shadowRoot.querySelectorAll(".alp-select option")].some((o) => o.value === "my-case"))).toBe(true);
  const shown = await page.$eval(EL, (e) => (e.load("my-case"), e.state().scenario));
  expect(shown).toBe("my-case");
});

// ---- src= stays on its site and never waits forever ----------------------

/** Places an element made from `attributes` (`then`: the src= value set
 *  20 ms after placing, if given); resolves once it is ready with how long
 *  that took (ms) and its height. */
async function placeTimed(page, baseURL, attributes, then) {
  await routeLessons(page, baseURL);
  await page.route(`${baseURL}/host.html`, (route) =>
    route.fulfill({ contentType: "text/html", body: '<!doctype html><html lang="en"><title>Course</title><body><main id="slot"></main>' }));
  await page.goto("/host.html");
  return page.evaluate(async ([attributes, then]) => {
    await import("./element.js");
    const el = document.createElement("agent-loop-playground");
    for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v);
    document.querySelector("#slot").append(el);
    const ready = new Promise((ok) => el.addEventListener("playground-ready", ok, { once: true }));
    if (then) setTimeout(() => el.setAttribute("src", then), 20);
    await ready;
    // (what the notice said when the playground was ready: a file it waited for would be named by then)
    const notice = el.shadowRoot?.querySelector('[data-role="notice"]')?.textContent ?? "";
    return { height: el.getBoundingClientRect().height, notice };
  }, [attributes, then]);
}
const noticeOf = (page) => page.$eval(EL, (el) => el.shadowRoot.querySelector('[data-role="notice"]').textContent);
const optionsOf = (page) => page.$$eval(`${EL} .alp-select option`, (o) => o.map((x) => x.value));

test("a redirect is not followed, not even to a site that allows it", async ({ page, baseURL, problems }) => {
  const elsewhere = await serve([], {
    "/x.json": (req, res) => {
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" });
      res.end(FILES["/lessons/my-case.json"]);
    },
  });
  try {
    await page.route(`${baseURL}/moved/**`, (route) => route.fulfill({ status: 302, headers: { location: `${elsewhere.origin}/x.json` } }));
    await placeTimed(page, baseURL, { src: "moved/my-case.json", lang: "en" });
    await expect.poll(() => noticeOf(page)).toContain("src moved/my-case.json answered with a redirect, which is not followed");
    expect(elsewhere.seen, "the other site is never asked").toEqual([]);
    expect(await optionsOf(page)).not.toContain("my-case");
  } finally {
    elsewhere.close();
  }
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes("moved/my-case.json")));
});

test("a stalled file times out and is named; the playground is built at once with the good one", async ({ page, baseURL, problems }) => {
  const r = await placeTimed(page, baseURL, { src: "lessons/my-case.json __stall/hang.json", "fetch-timeout": "4", scenario: "my-case", lang: "en" });
  expect(r.height, "not 0 px tall while a file hangs").toBeGreaterThan(100);
  // (built without waiting for the hanging file: at ready, its timeout has not been said)
  expect(r.notice, "ready before the hanging file timed out").not.toContain("hang.json");
  expect((await state(page)).scenario, "the good file is shown").toBe("my-case");
  expect(await noticeOf(page)).not.toContain("hang.json");
  // (4 s: long enough that a busy machine checks before it runs out)
  await expect.poll(() => noticeOf(page), { timeout: 8000 }).toContain("src __stall/hang.json did not arrive within 4 s (fetch-timeout)");
  expect((await state(page)).scenario).toBe("my-case");
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes("hang.json")));
});

test("a file that arrives after the playground was built opens when the element asks for it", async ({ page, baseURL, problems }) => {
  // (the file is held until the playground is ready: it is built without it)
  let release = () => {};
  const held = new Promise((ok) => (release = ok));
  await page.route(`${baseURL}/slow/**`, async (route) => {
    await held;
    await route.fulfill({ contentType: "application/json", body: FILES["/lessons/my-case.json"] });
  });
  const r = await placeTimed(page, baseURL, { src: "slow/my-case.json", scenario: "my-case", lang: "en" });
  expect(r.height, "built while the file is held").toBeGreaterThan(100);
  release();
  await expect.poll(() => state(page).then((s) => s.scenario)).toBe("my-case");
  expect(await noticeOf(page), "the notice that it was missing is gone").not.toContain("my-case");
  problems.splice(0, problems.length, ...problems.filter((p) => !/There is no scenario my-case/.test(p)));
});

test("the 4 MB limit counts bytes, and an endless file is cut at the limit", async ({ page, baseURL, problems }) => {
  // 1.5 million CJK characters: 4.5 MB in UTF-8.
  const cjk = JSON.stringify({ ...JSON.parse(FILES["/lessons/my-case.json"]), id: "cjk", note: "中".repeat(1500000) });
  await page.route(`${baseURL}/big/**`, (route) => route.fulfill({ contentType: "application/json", body: cjk }));
  await placeTimed(page, baseURL, { src: "big/cjk.json __endless/forever.json", lang: "en" });
  await expect.poll(() => noticeOf(page), { timeout: 10000 }).toContain("src big/cjk.json is larger than 4 MB");
  await expect.poll(() => noticeOf(page), { timeout: 10000 }).toContain("src __endless/forever.json is larger than 4 MB");
  expect(await optionsOf(page)).not.toContain("cjk");
  problems.splice(0, problems.length, ...problems.filter((p) => !/cjk\.json|forever\.json/.test(p)));
});

test("the last value of src wins, even while the first files are on their way", async ({ page, baseURL, requests, problems }) => {
  const FIRST = JSON.stringify({ ...JSON.parse(FILES["/lessons/my-case.json"]), id: "first" });
  const SECOND = JSON.stringify({ ...JSON.parse(FILES["/lessons/my-case.json"]), id: "second" });
  await page.route(`${baseURL}/race/**`, async (route) => {
    const name = new URL(route.request().url()).pathname;
    if (name.endsWith("first.json")) await new Promise((ok) => setTimeout(ok, 800));
    await route.fulfill({ contentType: "application/json", body: name.endsWith("first.json") ? FIRST : SECOND });
  });
  await placeTimed(page, baseURL, { src: "race/first.json" }, "race/second.json");
  await expect.poll(() => optionsOf(page)).toContain("second");
  await page.waitForTimeout(1200);
  expect(requests.some((u) => u.endsWith("/race/second.json")), "the new value is fetched").toBe(true);
  expect(await optionsOf(page), "the file of the value replaced is not added").not.toContain("first");
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes("race/")));
});

test("a fetch-timeout that is not a time is said once, and the default is used", async ({ page, baseURL, problems }) => {
  await placeTimed(page, baseURL, { src: "lessons/my-case.json", "listing-src": "lessons/none.py", "fetch-timeout": "soon", lang: "en" });
  expect(await optionsOf(page)).toContain("my-case");
  const said = problems.filter((p) => p.includes('fetch-timeout="soon"'));
  expect(said, "once, though it bounds the scenario file and the listing").toHaveLength(1);
  expect(said[0]).toContain("using 10 s");
  problems.splice(0, problems.length, ...problems.filter((p) => !said.includes(p) && !/none\.py|status of 404/.test(p)));
});

// Issue 46, break 6: src with thousands of names. At most 50 files are
// fetched; the names after are said once, and the good file among the
// first is taken.
test("src with 2,000 names fetches the first 50 and says the rest once", async ({ page, baseURL, problems }) => {
  const asked = [];
  page.on("request", (r) => { if (new URL(r.url()).pathname.startsWith("/lessons/")) asked.push(r.url()); });
  const names = ["lessons/my-case.json", ...Array.from({ length: 1999 }, (_, i) => `lessons/missing-${i}.json`)];
  const r = await place(page, baseURL, { src: names.join(" "), lang: "en" });
  expect(r.options).toContain("my-case");
  await expect.poll(() => page.$eval(EL, (e) => e.shadowRoot.querySelector('[data-role="notice"]').textContent))
    .toContain("src names more than 50 files: lessons/missing-49.json and the names after it are not fetched.");
  await expect.poll(() => page.$eval(EL, (e) => e.shadowRoot.querySelectorAll('[data-role="notice"] p').length)).toBe(50);
  expect(asked).toHaveLength(50);
  const said = problems.filter((p) => p.includes("lessons/missing-") || p.includes("status of 404"));
  expect(said.length, "one warning per fetched file that failed, its 404, and the cap").toBeLessThanOrEqual(49 * 2 + 1);
  problems.splice(0, problems.length, ...problems.filter((p) => !said.includes(p)));
});

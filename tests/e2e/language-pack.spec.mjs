// Languages on demand (core/src/i18n.rs, core/src/pack.rs): the module holds
// the default language's table (Chinese) and, of English, only what its
// button says; English's table is data/en.json, fetched once, the first time
// it is shown — beside the module when the element opens in it.
import { test, expect, EL, SEL, inside, open, langButton, placeOnHost } from "./helpers.mjs";

const PACK = "/data/en.json";
const fetched = (requests) => requests.filter((u) => new URL(u).pathname.endsWith(PACK));
const caption = (page) => page.$eval(EL, (e, sel) => e.shadowRoot.querySelector(sel).textContent, SEL.captionTitle);
const HAN = /[\u4e00-\u9fff]/;
/** English's table answered only when the returned function is called. */
async function holdTable(page, baseURL) {
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route(`${baseURL}${PACK}`, async (route) => { await held; await route.continue(); });
  return release;
}

test("a Chinese page never asks for English's table, and still offers English", async ({ page, requests }) => {
  await open(page, "?scenario=report&lang=zh");
  await page.$eval(EL, (e) => { e.command("run"); e.command("reset"); e.command("stepInto"); });
  expect(await caption(page)).toMatch(HAN);
  await expect(page.locator(langButton("en"))).toHaveText("English");
  expect(fetched(requests)).toEqual([]);
});

test("a page that opens in English fetches its table beside the module, once, before its first snapshot", async ({ page, requests }) => {
  await open(page, "?scenario=report&lang=en");
  const r = await page.$eval(EL, (e, sel) => {
    e.command("stepInto");
    const started = performance.getEntriesByType("resource").find((x) => x.name.endsWith("/data/en.json"));
    const ready = performance.getEntriesByName("alp:wasm-ready")[0];
    return { lang: e.state().lang, title: e.shadowRoot.querySelector(sel).textContent, started: started?.startTime, ready: ready?.startTime };
  }, SEL.captionTitle);
  expect(r.lang).toBe("en");
  expect(r.title).not.toMatch(HAN);
  expect(r.title.length).toBeGreaterThan(3);
  // (asked for before the module was ready, not after a first try failed)
  expect(r.started).toBeLessThan(r.ready);
  expect(fetched(requests)).toHaveLength(1);
});

test("a course page in English opens in English from its own lang", async ({ page, baseURL, requests }) => {
  await placeOnHost(page, baseURL, { scenario: "report" }, "en-GB");
  expect(await page.$eval(EL, (e) => e.state().lang)).toBe("en");
  expect(fetched(requests)).toHaveLength(1);
});

test("the English button on a Chinese page fetches the table once, switches, and tells the host page", async ({ page, requests }) => {
  await open(page, "?scenario=report&lang=zh");
  await page.$eval(EL, (e) => {
    e.command("stepInto");
    e.command("stepInto");
    window.__steps = [];
    e.addEventListener("playground-step", (ev) => window.__steps.push(ev.detail.lang));
  });
  await page.click(langButton("en"));
  await page.waitForFunction((el) => document.querySelector(el).state().lang === "en", EL);
  const after = await page.$eval(EL, (e) => ({ step: e.state().step, steps: window.__steps }));
  expect(after).toEqual({ step: 1, steps: ["en"] });
  expect(await caption(page)).not.toMatch(HAN);
  // Back and forth: no second request.
  await page.click(langButton("zh"));
  await page.click(langButton("en"));
  expect(await page.$eval(EL, (e) => e.state().lang)).toBe("en");
  expect(fetched(requests)).toHaveLength(1);
});

test("el.lang = 'en' switches once the table is in; the latest of two quick changes wins", async ({ page, requests }) => {
  await open(page, "?scenario=report&lang=zh");
  // Two changes in one script are one change, to the last value: Chinese,
  // which is shown already, so English's table is not even asked for.
  const lang = await page.$eval(EL, async (e) => { e.lang = "en"; e.lang = "zh"; await new Promise((ok) => setTimeout(ok, 0)); return e.state().lang; });
  expect(lang).toBe("zh");
  expect(fetched(requests)).toHaveLength(0);
  await page.$eval(EL, (e) => { e.lang = "en"; });
  await page.waitForFunction((el) => document.querySelector(el).state().lang === "en", EL);
  expect(fetched(requests)).toHaveLength(1);
});

test("pressing 中文 while English's table loads wins: the playground stays in Chinese", async ({ page, baseURL, requests }) => {
  const release = await holdTable(page, baseURL);
  await open(page, "?scenario=report&lang=zh");
  await page.click(langButton("en"));
  await page.click(langButton("zh"));
  release();
  await page.waitForFunction(() => performance.getEntriesByType("resource").some((x) => x.name.endsWith("/data/en.json")));
  await page.waitForTimeout(150);
  expect(await page.$eval(EL, (e) => e.state().lang)).toBe("zh");
  // Then English, pressed on its own: at once (the table is in).
  await page.click(langButton("en"));
  expect(await page.$eval(EL, (e) => e.state().lang)).toBe("en");
  expect(fetched(requests)).toHaveLength(1);
});

test("a page in English whose table is slow opens in Chinese a second after the module and switches when it comes", async ({ page, baseURL, requests }) => {
  const release = await holdTable(page, baseURL);
  await open(page, "?scenario=report&lang=en", { settled: false });
  // (built without it once the module was ready: usable, in Chinese)
  expect(await page.$eval(EL, (e) => { e.command("stepInto"); return e.state().lang; })).toBe("zh");
  release();
  await page.waitForFunction((el) => document.querySelector(el).state().lang === "en", EL);
  expect(await page.$eval(EL, (e) => e.state().step)).toBe(0);
  expect(await caption(page)).not.toMatch(HAN);
  expect(fetched(requests)).toHaveLength(1);
});

for (const lang of ["zh", "en"]) {
  test(`English's table that cannot be fetched is said, and the playground stays in Chinese (asked for by ${lang === "en" ? "the page" : "the button"})`, async ({ page, baseURL, problems }) => {
    let asked = 0;
    await page.route(`${baseURL}${PACK}`, (route) => { asked++; return route.fulfill({ status: 404, body: "gone" }); });
    await open(page, `?scenario=limit&lang=${lang}`);
    if (lang === "zh") await page.click(langButton("en"));
    const notice = page.locator(inside(SEL.problems));
    await expect(notice).toContainText("没能从 en.json 载入 English 的界面文字（404");
    await expect(notice).toContainText("仍以中文显示；再按一次 English 即可重试。");
    // Everything else asked for stays: the scenario, and a working playground.
    const r = await page.$eval(EL, (e) => { e.command("run"); return { lang: e.state().lang, scenario: e.state().scenario, status: e.state().status }; });
    expect(r).toEqual({ lang: "zh", scenario: "limit", status: expect.any(String) });
    expect(asked).toBe(1);
    // Pressed again, twice: asked again each time, said once.
    await page.click(langButton("en"));
    await expect.poll(() => asked).toBe(2);
    await page.click(langButton("en"));
    await expect.poll(() => asked).toBe(3);
    await page.waitForTimeout(100);
    expect((await page.locator(inside(`${SEL.problems} p`)).allTextContents()).filter((x) => x.includes("en.json"))).toHaveLength(1);
    // el.lang = "en" again (the attribute already says so) tries again too.
    await page.$eval(EL, (e) => { e.lang = "en"; });
    await expect.poll(() => asked).toBe(4);
    // (only the expected: the element's warnings naming en.json, the browser's 404s)
    const expected = (p) => (p.startsWith("console.warning: agent-loop-playground:") && p.includes("en.json")) || p.includes("status of 404");
    problems.splice(0, problems.length, ...problems.filter((p) => !expected(p)));
  });
}

// The first view (issue 45): the built pages carry each playground's first
// snapshot as markup (scripts/first-view, agent-loop-cli first-view), so
// the browser paints it with the page, before any module has loaded: its
// wide box on a desktop, its narrow one on a phone or a tablet. The element
// takes it over with the very same markup and no layout shift; one made for
// other attributes goes before it is shown; an element of a width neither
// box is drawn for shows none; a module that fails puts its reason in its
// place. The module is held back by the test, never waited for by a clock.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { test, expect, EL, command, state, root } from "./helpers.mjs";

/** Hold every request for the module until the returned function is called. */
async function holdModule(page) {
  let release = () => {};
  const held = new Promise((ok) => (release = ok));
  await page.route("**/agent-loop-playground_bg.wasm", async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/** Count the layout shifts of the page from its first frame. */
const countShifts = (page) =>
  page.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__shifts.push(entry.value);
    }).observe({ type: "layout-shift", buffered: true });
  });

/** The markup of each panel of the element `sel`'s box on screen (a
 *  checkbox's checked state as its property: the renderer sets that, the
 *  first view the attribute; and without the `inert` a waiting view puts
 *  on what it may not be used for yet). */
const panels = (page, sel) =>
  page.$eval(sel, (el) => {
    const root = [...el.shadowRoot.querySelectorAll(".alp-root")].find((box) => box.checkVisibility());
    const parts = [".alp-bar", ".alp-controls", ".alp-timeline", ".alp-views", ".alp-code-panel", ".alp-figure-panel", ".alp-lower", ".alp-setup"];
    const out = Object.fromEntries(parts.map((s) => [s, root.querySelector(s)?.outerHTML.replaceAll(' checked=""', "").replaceAll(' inert=""', "") ?? null]));
    out.checked = [...root.querySelectorAll("input[type=checkbox]")].map((b) => b.checked);
    out.slider = root.querySelector(".alp-slider")?.value;
    return out;
  });

/** The stand-alone page's first view is there but not shown; the element, once ready, is. */
async function hiddenUntilReady(page, release) {
  await page.goto("/index.html");
  // (the build gives it a desktop's box and a phone's: scripts/first-view)
  await expect(page.locator(`${EL} .alp-root[data-first]`)).toHaveCount(2);
  for (const box of await page.locator(`${EL} .alp-root[data-first]`).all()) await expect(box).toBeHidden();
  release();
  await ready(page, EL);
  await expect(page.locator(`${EL} .alp-root`)).toBeVisible();
}

const ready = (page, sel) => page.waitForFunction((s) => document.querySelector(s)?.ready === true, sel);

// (each page's playgrounds at 1440 px, the wide box; the stand-alone page's
// on a phone and on a tablet, and a compact one on a phone: the narrow box)
const FIRST_VIEWS = [["/index.html", EL, 1440], ["/course-example.html", "#demo-ask", 1440], ["/course-example.html", "#demo-main", 1440],
  ["/course-example.html", "#demo-loop", 1440], ["/course-example.html", "#demo-core", 1440],
  ["/index.html", EL, 390], ["/index.html", EL, 840], ["/course-example.html", "#demo-ask", 390]];
for (const [path, sel, width] of FIRST_VIEWS) {
  test(`${path} ${sel} at ${width} px: the first snapshot is painted before the module, and taken over unchanged`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    const release = await holdModule(page);
    await countShifts(page);
    await page.goto(path);
    const first = page.locator(`${sel} .alp-root[data-first]`).filter({ visible: true });
    await expect(first).toHaveCount(1);
    const box = { 390: "narrow", 840: "narrow", 1440: "wide" }[width];
    await expect(first).toHaveAttribute("data-first", box);
    await expect(first.locator(".alp-row").first()).toBeVisible();
    // (a phone shows the code or the record, the code first, the caption under either)
    await expect(first.locator('svg[data-role="record"]')).toBeVisible({ visible: width > 700 });
    await expect(first.locator(".alp-caption")).toBeVisible();
    expect(await page.$eval(sel, (el) => el.state()), "no playground yet: the page's own markup").toBe(null);
    const before = await panels(page, sel);
    // Every frame from here to ready shows a listing: the view is never blank in between
    // (lesson two's build waits for its pack first: the view stays meanwhile).
    await page.$eval(sel, (el) => {
      window.__blank = 0;
      const look = () => {
        const shown = [...el.shadowRoot.querySelectorAll(".alp-root")].find((box) => box.checkVisibility());
        if (!shown?.querySelector(".alp-row")?.checkVisibility()) window.__blank++;
        if (!el.ready) requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    release();
    await ready(page, sel);
    expect(await page.evaluate(() => window.__blank), "frames without a listing").toBe(0);
    await expect(page.locator(`${sel} [data-first]`)).toHaveCount(0);
    await expect(page.locator(`${sel} link`), "its stylesheet gave way to the element's").toHaveCount(0);
    expect(await panels(page, sel), "the element's first draw is the first view").toEqual(before);
    // (the course page's compact playgrounds above have their first views too: nothing grows)
    expect(await page.evaluate(() => window.__shifts), "no layout shift").toEqual([]);
    // And it is the playground now.
    await page.click(command("debug", sel));
    expect((await state(page, sel)).started).toBe(true);
  });
}

/** The stand-alone page with its module held, once element.js has run (the view takes clicks). */
async function waiting(page) {
  const release = await holdModule(page);
  await page.goto("/index.html");
  await page.waitForFunction((s) => document.querySelector(s)?.shadowRoot.querySelector(".alp-root[data-first]:not([inert])"), EL);
  return release;
}

test("clicks and keys on a waiting first view are answered, in order, once the playground is ready", async ({ page, browser }) => {
  const release = await waiting(page);
  const view = page.locator(`${EL} .alp-root[data-first="wide"]`);
  await view.locator('[data-command="debug"]').click();
  await view.locator('[data-command="stepInto"]').click();
  await view.locator('.alp-bp[data-line="5"]').first().click();
  await expect(view, "it shows it heard them").toHaveAttribute("aria-busy", "true");
  // What it may not be used for yet is inert: the scenario picker, the checkboxes, the setup.
  for (const still of [".alp-select", ".alp-predict-box", ".alp-setup"]) {
    expect(await view.locator(still).first().evaluate((e) => e.closest("[inert]") !== null), still).toBe(true);
  }
  expect(await page.$eval(EL, (el) => el.state()), "no playground yet").toBe(null);
  release();
  await ready(page, EL);
  const after = await state(page);
  // The same clicks on a page that was ready give the same place.
  const other = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await other.goto("/index.html");
  await ready(other, EL);
  for (const target of [command("debug"), command("stepInto"), `${EL} .alp-bp[data-line="5"] >> nth=0`]) await other.locator(target).click();
  const same = await state(other);
  await other.close();
  expect([after.started, after.step, after.breakpoints]).toEqual([true, same.step, same.breakpoints]);
  expect(after.breakpoints.length).toBe(1);
  await expect(page.locator(`${EL} .alp-root`)).not.toHaveAttribute("aria-busy", "true");
  // The view's listeners went with it: the playground's own clicks do what they do.
  await page.locator(`${EL} .alp-predict-box`).click();
  expect((await state(page)).predict).toBe(true);
});

test("keys on a waiting first view are the playground's: answered once ready, never the host page's; the focus kept, the page not scrolled to it", async ({ page, browser }) => {
  const keys = ["Enter", "ArrowRight", "ArrowRight", "F10"];
  // The same keys on a page that was ready.
  const other = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await other.goto("/course-example.html");
  await ready(other, "#demo-ask");
  await other.locator('#demo-ask [data-command="debug"]').focus();
  for (const key of keys) await other.keyboard.press(key);
  const same = await state(other, "#demo-ask");
  await other.close();
  const release = await holdModule(page);
  await page.goto("/course-example.html");
  await page.waitForFunction(() => document.querySelector("#demo-ask")?.shadowRoot.querySelector(".alp-root[data-first]:not([inert])"));
  await page.evaluate(() => { window.__hostKeys = 0; document.addEventListener("keydown", () => window.__hostKeys++); });
  await page.locator('#demo-ask .alp-root[data-first="wide"] [data-command="debug"]').focus();
  for (const key of keys) await page.keyboard.press(key);
  expect(await page.evaluate(() => window.__hostKeys), "only Enter reached the host page").toBe(1);
  // The learner reads on, further down the page, while it loads.
  await page.evaluate(() => window.scrollTo(0, 2500));
  const readingAt = await page.evaluate(() => scrollY);
  release();
  await ready(page, "#demo-ask");
  const after = await state(page, "#demo-ask");
  expect([after.started, after.step]).toEqual([true, same.step]);
  expect(await page.$eval("#demo-ask", (el) => el.shadowRoot.activeElement?.getAttribute("data-command"))).toBe("debug");
  expect(await page.evaluate(() => scrollY), "not scrolled back to the playground").toBeGreaterThan(readingAt / 2);
});

test("a first view of lesson two waits for its pack past the usual grace, and its clicks are made on lesson two", async ({ page, baseURL }) => {
  // (the page's clock is the test's: the grace passes without waiting for it)
  await page.clock.install();
  let release = () => {};
  const held = new Promise((ok) => (release = ok));
  await page.route(`${baseURL}/data/lesson_two.json`, async (route) => {
    await held;
    await route.continue();
  });
  const asked = page.waitForRequest(`${baseURL}/data/lesson_two.json`);
  await page.goto("/course-example.html");
  await page.waitForFunction(() => document.querySelector("#demo-core")?.shadowRoot.querySelector(".alp-root[data-first]:not([inert])"));
  await page.locator('#demo-core .alp-root[data-first="wide"] [data-command="debug"]').click();
  await asked;
  // Past the 1 s grace a pack gets without a first view (not the fetch's 10 s).
  await page.clock.runFor(5000);
  expect(await page.$eval("#demo-core", (el) => el.state()), "still the view, not lesson one").toBe(null);
  await expect(page.locator("#demo-core .alp-root[data-first]")).toHaveCount(1);
  release();
  await page.waitForFunction(() => document.querySelector("#demo-core")?.ready === true);
  const now = await state(page, "#demo-core");
  expect([now.scenario, now.started]).toEqual(["core-says-done", true]);
});

test("a link that asks for more than the bare page never shows its first view, even before any script file runs", async ({ page }) => {
  // element.js and the module held: only the page's own line after the element can drop it
  let release = () => {};
  const held = new Promise((ok) => (release = ok));
  await page.route(/\/(element\.js|agent-loop-playground_bg\.wasm)$/, async (route) => {
    await held;
    await route.continue();
  });
  // (and in no frame: the parser may paint before the line after the element runs)
  await page.addInitScript(() => {
    window.__viewShown = 0;
    const look = () => {
      const boxes = document.querySelector("agent-loop-playground")?.shadowRoot?.querySelectorAll(".alp-root[data-first]") ?? [];
      if ([...boxes].some((box) => box.checkVisibility())) window.__viewShown++;
      requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
  for (const link of ["?lang=en", "?theme=dark#scenario=report&lang=zh&listing=python"]) {
    // (the modules held, the document never finishes loading: the footer, parsed after the element, says it got that far)
    await page.goto(`/index.html${link}`, { waitUntil: "commit" });
    await expect(page.locator(".page-foot")).toHaveCount(1);
    await expect(page.locator(EL)).toHaveCount(1);
    expect(await page.$eval(EL, (el) => el.shadowRoot?.childElementCount), link).toBe(0);
    expect(await page.evaluate(() => window.__viewShown), `${link}: frames that showed the view`).toBe(0);
  }
  release();
  await ready(page, EL);
  await expect(page.locator(`${EL} .alp-root`)).toBeVisible();
  await expect(page.locator(`${EL} .alp-row`).first(), "drawn with its stylesheet").toHaveCSS("display", /grid|flex|block/);
});

test("an author's view for a course site's column (--boxes column,narrow) is shown there and taken over unchanged", async ({ page, baseURL }) => {
  // (the release CLI, as an author runs it: scripts/test builds it for the fixture check)
  const cli = path.join(root, "target/release/agent-loop-cli");
  const view = execFileSync(cli, ["first-view", "scenario=error", "lang=en", "--boxes", "column,narrow"], { encoding: "utf8" });
  await page.route(`${baseURL}/column.html`, (route) => route.fulfill({ contentType: "text/html",
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A lesson</title><script type="module" src="element.js"></script></head>
<body><main style="max-width: 700px; margin: 0 auto"><h1>A lesson</h1><agent-loop-playground scenario="error" lang="en">${view}</agent-loop-playground><p>After it.</p></main></body></html>` }));
  const release = await holdModule(page);
  await countShifts(page);
  await page.goto("/column.html");
  const shown = page.locator(`${EL} .alp-root[data-first]`).filter({ visible: true });
  await expect(shown).toHaveCount(1);
  await expect(shown).toHaveAttribute("data-first", "column");
  await expect(shown.locator('svg[data-role="record"]')).toBeVisible();
  const before = await panels(page, EL);
  release();
  await ready(page, EL);
  await expect(page.locator(`${EL} .alp-root`)).toHaveCount(1);
  expect(await panels(page, EL), "the element's first draw is the column box").toEqual(before);
  expect(await page.evaluate(() => window.__shifts), "no layout shift").toEqual([]);
});

/** Where the element `sel`'s code panel is scrolled, and whether its current row is inside it. */
const codeScroll = (page, sel = EL) =>
  page.$eval(sel, (el) => {
    const box = [...el.shadowRoot.querySelectorAll(".alp-root")].find((b) => b.checkVisibility());
    const code = box.querySelector(".alp-code"), row = box.querySelector('.alp-row[aria-current="step"]');
    const [c, r] = [code.getBoundingClientRect(), row.getBoundingClientRect()];
    return { top: Math.round(code.scrollTop), rowInside: r.top >= c.top && r.bottom <= c.bottom };
  });

for (const width of [390, 840, 1440]) {
  test(`an author's view of a step deep in the run (${width} px): its line is in the code panel, as the element scrolls it`, async ({ page, baseURL }) => {
    await page.setViewportSize({ width, height: 900 });
    const attributes = ["function=run_loop", "scenario=report", "step=40", "lang=en"];
    const view = execFileSync(path.join(root, "target/release/agent-loop-cli"), ["first-view", ...attributes], { encoding: "utf8" });
    const tag = `<agent-loop-playground ${attributes.map((a) => a.replace("=", '="') + '"').join(" ")}>`;
    const host = (inner) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A</title><script type="module" src="element.js"></script></head><body>${tag}${inner}</agent-loop-playground></body></html>`;
    await page.route(`${baseURL}/deep.html`, (route) => route.fulfill({ contentType: "text/html", body: host(view) }));
    await page.route(`${baseURL}/bare.html`, (route) => route.fulfill({ contentType: "text/html", body: host("") }));
    // Without a view: where the element scrolls its code panel.
    await page.goto("/bare.html");
    await ready(page, EL);
    const own = await codeScroll(page);
    expect(own.rowInside && own.top > 0, "the line is far down: the panel scrolls to it").toBe(true);
    // With the view: the same before the module (the view opens there) and
    // once ready (drawn into the box on screen).
    const release = await holdModule(page);
    await page.goto("/deep.html");
    await expect(page.locator(`${EL} .alp-root[data-first]`).filter({ visible: true })).toHaveCount(1);
    const before = await codeScroll(page);
    release();
    await ready(page, EL);
    const after = await codeScroll(page);
    expect(after.rowInside, "the line in the code panel once ready").toBe(true);
    expect(Math.abs(after.top - own.top), "where the element scrolls it (a pixel's rounding)").toBeLessThanOrEqual(1);
    expect(before.rowInside, "the view shows the line").toBe(true);
    expect(Math.abs(before.top - own.top), "and does not move when taken over (a pixel's rounding)").toBeLessThanOrEqual(1);
  });
}

test("a host with padding and a border: the box its content width shows is the one the element draws", async ({ page, baseURL }) => {
  // (920 px wide: the element's border box is 904 px, its content 870: the narrow box's widths)
  await page.setViewportSize({ width: 920, height: 900 });
  const view = execFileSync(path.join(root, "target/release/agent-loop-cli"), ["first-view", "scenario=report", "lang=en"], { encoding: "utf8" });
  await page.route(`${baseURL}/padded.html`, (route) => route.fulfill({ contentType: "text/html",
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A</title><script type="module" src="element.js"></script></head>
<body><agent-loop-playground scenario="report" lang="en" style="padding: 16px; border: 1px solid gray">${view}</agent-loop-playground><p>After it.</p></body></html>` }));
  const release = await holdModule(page);
  await countShifts(page);
  await page.goto("/padded.html");
  const shown = page.locator(`${EL} .alp-root[data-first]`).filter({ visible: true });
  await expect(shown).toHaveAttribute("data-first", "narrow");
  const before = await panels(page, EL);
  release();
  await ready(page, EL);
  expect(await panels(page, EL), "drawn as the narrow box: its setup closed").toEqual(before);
  expect(await page.evaluate(() => window.__shifts), "no layout shift").toEqual([]);
});

test("an author's first view made for other attributes is dropped when element.js runs, and the console says why", async ({ page, baseURL, problems }) => {
  const release = await holdModule(page);
  // (made for step 0 of its scenario; the element asks for another scenario)
  const index = await (await page.request.get(`${baseURL}/index.html`)).text();
  const view = index.match(/<template shadowrootmode="open">[\s\S]*?<\/template>/)[0];
  await page.route(`${baseURL}/author.html`, (route) => route.fulfill({ contentType: "text/html",
    body: `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>A</title><script type="module" src="element.js"></script></head>
<body><agent-loop-playground scenario="error" heading-level="2">${view}</agent-loop-playground></body></html>` }));
  await page.goto("/author.html");
  await expect(page.locator(`${EL} .alp-root`)).toHaveCount(0);
  release();
  await ready(page, EL);
  expect((await state(page)).scenario).toBe("error");
  await expect(page.locator(`${EL} .alp-caption`)).toBeVisible();
  // (the author is told, with the attributes it was made for and those it has)
  const said = problems.filter((p) => p.includes("its first view was made for"));
  expect(said).toEqual([`console.warning: agent-loop-playground: its first view was made for [["heading-level","2"],["scenario","report"]] in zh, ` +
    `not for [["heading-level","2"],["scenario","error"]] in zh: it is not shown (agent-loop-cli first-view writes one for these attributes)`]);
  problems.splice(0, problems.length, ...problems.filter((p) => !said.includes(p)));
});

test("a first view whose stylesheet does not come stays hidden, never unstyled", async ({ page, baseURL, problems }) => {
  const release = await holdModule(page);
  await page.route(`${baseURL}/first-view.css`, (route) => route.fulfill({ status: 404, body: "" }));
  await hiddenUntilReady(page, release);
  // (the 404 the test served: expected here)
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes("404")));
});

for (const width of [640, 1000]) {
  test(`an element of a width none of its boxes is drawn for (${width} px, wide and narrow) shows none, and draws its own`, async ({ page, baseURL }) => {
    await page.setViewportSize({ width, height: 900 });
    const view = execFileSync(path.join(root, "target/release/agent-loop-cli"), ["first-view", "scenario=report", "lang=en"], { encoding: "utf8" });
    await page.route(`${baseURL}/two.html`, (route) => route.fulfill({ contentType: "text/html",
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A</title><script type="module" src="element.js"></script></head>
<body><agent-loop-playground scenario="report" lang="en">${view}</agent-loop-playground></body></html>` }));
    const release = await holdModule(page);
    await page.goto("/two.html");
    await expect(page.locator(`${EL} .alp-root[data-first]`)).toHaveCount(2);
    for (const box of await page.locator(`${EL} .alp-root[data-first]`).all()) await expect(box).toBeHidden();
    release();
    await ready(page, EL);
    await expect(page.locator(`${EL} [data-first]`)).toHaveCount(0);
    await expect(page.locator(`${EL} .alp-root`)).toBeVisible();
  });
}

test("a module that cannot load puts its reason where the first view was", async ({ page, baseURL, problems }) => {
  await page.route(`${baseURL}/agent-loop-playground_bg.wasm`, (route) =>
    route.fulfill({ contentType: "text/html", body: "<!DOCTYPE html><html><body>app</body></html>" }));
  await page.goto("/index.html");
  await expect(page.locator(`${EL} .alp-crash[role="alert"]`)).toBeVisible();
  await expect(page.locator(`${EL} [data-first]`)).toHaveCount(0);
  await expect(page.locator(`${EL} .alp-row`), "no listing beside a run that will not run").toHaveCount(0);
  // (the module's glue warns that the type was not application/wasm: expected here)
  problems.splice(0, problems.length, ...problems.filter((p) => !p.includes("application/wasm")));
});

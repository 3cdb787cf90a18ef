// The first view (issue 45): the built pages carry each playground's first
// snapshot as markup (scripts/first-view, agent-loop-cli first-view), so
// the browser paints it with the page, before any module has loaded. The
// element takes it over with the very same markup and no layout shift; one
// made for other attributes goes before it is shown; a narrow element does
// not show it; a module that fails puts its reason in its place. The module
// is held back by the test, never waited for by a clock.
import { test, expect, EL, command, state } from "./helpers.mjs";

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

/** The markup of each panel of the element `sel` (a checkbox's checked
 *  state as its property: the renderer sets that, the first view the attribute). */
const panels = (page, sel) =>
  page.$eval(sel, (el) => {
    const root = el.shadowRoot;
    const parts = [".alp-bar", ".alp-controls", ".alp-timeline", ".alp-views", ".alp-code-panel", ".alp-figure-panel", ".alp-lower", ".alp-setup"];
    const out = Object.fromEntries(parts.map((s) => [s, root.querySelector(s)?.outerHTML.replaceAll(' checked=""', "") ?? null]));
    out.checked = [...root.querySelectorAll("input[type=checkbox]")].map((b) => b.checked);
    out.slider = root.querySelector(".alp-slider")?.value;
    return out;
  });

const ready = (page, sel) => page.waitForFunction((s) => document.querySelector(s)?.ready === true, sel);

for (const [path, sel] of [["/index.html", EL], ["/course-example.html", "#demo-loop"], ["/course-example.html", "#demo-core"]]) {
  test(`${path} ${sel}: the first snapshot is painted before the module, and taken over unchanged`, async ({ page }) => {
    const release = await holdModule(page);
    await countShifts(page);
    await page.goto(path);
    const first = page.locator(`${sel} .alp-root[data-first]`);
    await expect(first).toBeVisible();
    await expect(page.locator(`${sel} .alp-row`).first()).toBeVisible();
    await expect(page.locator(`${sel} svg[data-role="record"]`)).toBeVisible();
    expect(await page.$eval(sel, (el) => el.state()), "no playground yet: the page's own markup").toBe(null);
    const before = await panels(page, sel);
    release();
    await ready(page, sel);
    await expect(page.locator(`${sel} [data-first]`)).toHaveCount(0);
    await expect(page.locator(`${sel} link`), "its stylesheet gave way to the element's").toHaveCount(0);
    expect(await panels(page, sel), "the element's first draw is the first view").toEqual(before);
    const shifts = await page.evaluate(() => window.__shifts);
    // (the course page's compact playgrounds above have no first view: they grow when ready)
    if (path === "/index.html") expect(shifts, "no layout shift").toEqual([]);
    // And it is the playground now.
    await page.click(command("debug", sel));
    expect((await state(page, sel)).started).toBe(true);
  });
}

test("a first view made for other attributes is dropped before the module arrives", async ({ page }) => {
  const release = await holdModule(page);
  // (page.js sets lang="en" from the link: the first view is Chinese)
  await page.goto("/index.html?lang=en");
  await expect(page.locator(`${EL} .alp-root`)).toHaveCount(0);
  release();
  await ready(page, EL);
  expect((await state(page)).lang).toBe("en");
});

test("a narrow element does not show the first view, and draws its own", async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 900 });
  const release = await holdModule(page);
  await page.goto("/index.html");
  await expect(page.locator(`${EL} .alp-root[data-first]`)).toHaveCount(1);
  await expect(page.locator(`${EL} .alp-root[data-first]`)).toBeHidden();
  release();
  await ready(page, EL);
  await expect(page.locator(`${EL} .alp-root`)).toBeVisible();
  await expect(page.locator(`${EL} [data-first]`)).toHaveCount(0);
});

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

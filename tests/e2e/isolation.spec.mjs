// The element renders into a shadow root with its own stylesheet: loading it
// changes no computed style of the host page, and the host's rules do not
// change the playground.
import { test, expect, EL } from "./helpers.mjs";

const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course page</title>
<style>
  body { margin: 40px; font-family: Georgia, serif; background: rgb(250, 240, 220); color: rgb(20, 20, 20); }
  main { max-width: 760px; }
  h2 { font-family: Georgia, serif; }
  * { color: rgb(200, 0, 0); }
  button { background: rgb(255, 0, 255); border-radius: 0; }
</style></head>
<body><main><h2>Lesson 1</h2><p>Some text.</p><button>A host button</button>
<div id="slot"></div></main></body></html>`;

const styles = (page) => page.evaluate(() => {
  const pick = (el) => { const c = getComputedStyle(el); return [c.margin, c.fontFamily, c.backgroundColor, c.color, c.maxWidth, c.fontSize]; };
  return ["body", "main", "h2", "p", "button"].map((s) => pick(document.querySelector(s)));
});

/** In the page: the element with `report` in English, placed in #slot once ready. */
async function placeReport() {
  await import("./element.js");
  const el = document.createElement("agent-loop-playground");
  el.setAttribute("scenario", "report");
  el.setAttribute("lang", "en");
  document.querySelector("#slot").append(el);
  await new Promise((ok) => el.addEventListener("playground-ready", ok, { once: true }));
}

test("the host page keeps its styles and does not restyle the playground", async ({ page, baseURL }) => {
  await page.route(`${baseURL}/host.html`, (route) => route.fulfill({ contentType: "text/html", body: HOST }));
  await page.goto("/host.html");
  const before = await styles(page);
  await page.evaluate(placeReport);
  expect(await styles(page), "no computed style of the host changed").toEqual(before);
  const inside = await page.$eval(EL, (e) => {
    const root = e.shadowRoot;
    const c = (sel) => getComputedStyle(root.querySelector(sel));
    return {
      heading: c(".alp-caption-title").fontFamily,
      button: c('[data-command="debug"]').backgroundColor,
      text: c(".alp-caption-body").color,
      hostStylesheets: [...document.querySelectorAll('link[rel="stylesheet"]')].length,
    };
  });
  expect(inside.heading).not.toContain("Georgia");
  expect(inside.button).not.toBe("rgb(255, 0, 255)");
  expect(inside.text).not.toBe("rgb(200, 0, 0)");
  expect(inside.hostStylesheets, "no stylesheet was added to the host page").toBe(0);
  // Events still reach the host page's listeners.
  const events = await page.$eval(EL, (e) => {
    let n = 0;
    document.addEventListener("playground-step", () => n++);
    e.command("step");
    return n;
  });
  expect(events).toBe(1);
});

test("an embedded playground adds no heading to the host's outline unless asked", async ({ page, baseURL }) => {
  await page.route(`${baseURL}/host.html`, (route) => route.fulfill({ contentType: "text/html", body: HOST }));
  await page.goto("/host.html");
  const outline = await page.evaluate(async () => {
    await import("./element.js");
    const make = (level) => {
      const el = document.createElement("agent-loop-playground");
      el.setAttribute("lang", "en");
      if (level) el.setAttribute("heading-level", level);
      document.querySelector("#slot").append(el);
      return new Promise((ok) => el.addEventListener("playground-ready", () => ok(el), { once: true }));
    };
    const headings = (el) =>
      [...el.shadowRoot.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]')].map((h) => h.getAttribute("aria-level") || h.tagName);
    const plain = await make("");
    const leveled = await make("3");
    return { plain: headings(plain), leveled: headings(leveled), titles: leveled.shadowRoot.querySelector(".alp-caption-title").textContent };
  });
  expect(outline.plain, "no headings by default").toEqual([]);
  expect(outline.leveled.length, "heading-level=3: the panel titles are headings").toBeGreaterThanOrEqual(5);
  expect(new Set(outline.leveled)).toEqual(new Set(["3"]));
  expect(outline.titles.length).toBeGreaterThan(0);
});

test("the playground follows the host page's color-scheme unless theme says otherwise", async ({ page, baseURL }) => {
  const host = HOST.replace("<style>", "<style>html.dark { color-scheme: dark; } html.light { color-scheme: light; }");
  await page.emulateMedia({ colorScheme: "light" });
  await page.route(`${baseURL}/host.html`, (route) => route.fulfill({ contentType: "text/html", body: host }));
  await page.goto("/host.html");
  await page.evaluate(async () => {
    await import("./element.js");
    for (const theme of ["", "light"]) {
      const el = document.createElement("agent-loop-playground");
      if (theme) el.setAttribute("theme", theme);
      document.querySelector("#slot").append(el);
      await new Promise((ok) => el.addEventListener("playground-ready", ok, { once: true }));
    }
  });
  // Luminance of the background inside each element (0 black … 255 white).
  const light = () => page.$$eval(EL, (els) => els.map((e) => {
    const [r, g, b] = getComputedStyle(e.shadowRoot.querySelector(".alp-code")).backgroundColor.match(/\d+/g).map(Number);
    return Math.round(0.2126 * r + 0.7152 * g + 0.0722 * b);
  }));
  const [auto0, fixed0] = await light();
  expect(auto0, "a page that declares nothing, a light system: light").toBeGreaterThan(200);
  await page.evaluate(() => document.documentElement.classList.add("dark"));
  await expect.poll(async () => (await light())[0], { message: "the page turned dark: so does the playground" }).toBeLessThan(60);
  expect((await light())[1], "theme=light stays light").toBe(fixed0);
  await page.evaluate(() => { document.documentElement.classList.remove("dark"); document.documentElement.classList.add("light"); });
  await page.emulateMedia({ colorScheme: "dark" });
  await expect.poll(async () => (await light())[0], { message: "the page declares light on a dark system: light" }).toBeGreaterThan(200);
});

test("the host's root font size does not resize the playground's text (mdBook sets html { font-size: 62.5% })", async ({ page, baseURL }) => {
  const sizes = async (rootSize) => {
    const body = `<!doctype html><html lang="en" style="font-size: ${rootSize}"><head><meta charset="utf-8"><title>Host</title></head><body><main id="slot"></main></body></html>`;
    await page.route(`${baseURL}/host.html`, (route) => route.fulfill({ contentType: "text/html", body }));
    await page.goto("/host.html");
    await page.evaluate(placeReport);
    return page.$eval(EL, (el) => {
      // Every element of the shadow root: its font size and max height.
      return [...el.shadowRoot.querySelectorAll("*")].map((n) => {
        const c = getComputedStyle(n);
        return `${n.tagName}.${n.getAttribute("class") || ""}: ${c.fontSize} ${c.maxHeight}`;
      });
    });
  };
  const normal = await sizes("16px");
  await page.unrouteAll();
  const mdbook = await sizes("10px");
  expect(mdbook.length).toBeGreaterThan(100);
  expect(mdbook.filter((s, i) => s !== normal[i]), "sizes that follow the host's root").toEqual([]);
});

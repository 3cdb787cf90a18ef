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

test("the host page keeps its styles and does not restyle the playground", async ({ page, baseURL }) => {
  await page.route(`${baseURL}/host.html`, (route) => route.fulfill({ contentType: "text/html", body: HOST }));
  await page.goto("/host.html");
  const before = await styles(page);
  await page.evaluate(async () => {
    await import("./element.js");
    const el = document.createElement("agent-loop-playground");
    el.setAttribute("scenario", "report");
    el.setAttribute("lang", "en");
    document.querySelector("#slot").append(el);
    await new Promise((ok) => el.addEventListener("playground-ready", ok, { once: true }));
  });
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

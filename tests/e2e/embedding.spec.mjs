// The course example hosted under a sub-path: three independent playgrounds
// (custom elements) and the iframe embed with its postMessage bridge.
import fs from "node:fs";
import path from "node:path";
import { test, expect, EL, COURSE, openCourse, state, cards, command, root } from "./helpers.mjs";
import { serve } from "./server.mjs";

/** Every `<script …iframe-resize.js…>` tag the docs and the example show, by file. */
function resizeTags() {
  const files = ["README.md", "docs/element-api.md", "docs/course-sites.md", "scripts/pack", "www/course-example.html"];
  return files.flatMap((f) =>
    [...fs.readFileSync(path.join(root, f), "utf8").matchAll(/<script\b[^>]*iframe-resize\.js"[^>]*><\/script>/g)]
      .map((m) => ({ file: f, tag: m[0].replace(/\s+/g, " ") })));
}

// Issue 44: the docs load iframe-resize.js one way, and that way works from
// the playground's own origin into a course page on another one.
test("iframe-resize.js loads as every doc says, from another origin", async ({ page, baseURL, requests }) => {
  const tags = resizeTags();
  expect(tags.length, "the docs show the tag").toBeGreaterThan(3);
  const forms = new Set(tags.map((t) => t.tag.replace(/src="[^"]*"/, 'src="…"')));
  expect([...forms], `one form in ${tags.map((t) => t.file).join(", ")}`).toEqual(['<script src="…"></script>']);
  // The README's tag on a course page of another origin (its own server: no
  // CORS header anywhere), the playground from this spec's one.
  const readme = tags.find((t) => t.file === "README.md").tag.replace(/src="[^"]*"/, `src="${baseURL}/iframe-resize.js"`);
  const lms = await serve([], {
    "/lesson.html": (req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><title>LMS</title><link rel="icon" href="data:,">${readme}
<iframe id="frame" title="agent loop" width="100%" height="123"
  src="${baseURL}/index.html?scenario=report&lang=en&embed=1&origin=${encodeURIComponent(lms.origin)}"></iframe>`);
    },
  });
  try {
    await page.goto(`${lms.origin}/lesson.html`);
    await page.waitForFunction(() => document.querySelector("#frame").getAttribute("height") !== "123", null, { timeout: 15000 });
    expect(Number(await page.getAttribute("#frame", "height")), "sized to the frame's content").toBeGreaterThan(300);
  } finally {
    lms.close();
  }
  // (the course page is on the other origin on purpose)
  requests.splice(0, requests.length, ...requests.filter((u) => !u.startsWith(lms.origin)));
});

// Issue 44: the iframe's URL sets every attribute the docs' table of URL
// parameters names, compact among them (a flag: =1), as the element's own.
test("the page's URL sets compact (and predict) as the element's attributes", async ({ page }) => {
  const seen = async (query) => {
    await page.goto(`/index.html${query}`);
    await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL, { timeout: 15000 });
    return page.$eval(EL, (e) => ({
      compact: e.hasAttribute("compact"),
      predict: e.hasAttribute("predict"),
      layout: e.shadowRoot.querySelector(".alp-root").classList.contains("alp-compact"),
    }));
  };
  expect(await seen("?scenario=report&lang=en&embed=1&compact=1&predict=1")).toEqual({ compact: true, predict: true, layout: true });
  expect(await seen("?scenario=report&lang=en&compact=1")).toEqual({ compact: true, predict: false, layout: true });
  expect(await seen("?scenario=report&lang=en&embed=1&compact=0")).toEqual({ compact: false, predict: false, layout: false });
});

// Issue 44: the URL can hide the what-if editors (editors=off), as the
// attribute does; the setup itself stays, and the attribute works live.
test("editors=off hides the what-if editors, in the URL and as an attribute", async ({ page }) => {
  const editors = () => page.$eval(EL, (e) => {
    const box = e.shadowRoot.querySelector(".alp-what-if");
    const setup = e.shadowRoot.querySelector("[data-role=setup]");
    return { editors: !!box && box.getClientRects().length > 0, setup: !!setup && setup.getClientRects().length > 0 };
  });
  const open = async (query) => {
    await page.goto(`/index.html${query}`);
    await page.waitForFunction((el) => document.querySelector(el)?.ready === true, EL, { timeout: 15000 });
  };
  await open("?scenario=report&lang=en&embed=1&editors=off");
  expect(await page.$eval(EL, (e) => e.getAttribute("editors"))).toBe("off");
  expect(await editors()).toEqual({ editors: false, setup: true });
  await page.$eval(EL, (e) => e.removeAttribute("editors"));
  expect(await editors()).toEqual({ editors: true, setup: true });
  await open("?scenario=report&lang=en&embed=1");
  expect(await editors()).toEqual({ editors: true, setup: true });
});

// Issue 44: under a dark system setting, a light course page that includes
// iframe-resize.js gets a light iframe (the parent says its scheme with a
// theme message), and a dark one when it turns dark; theme= in the URL wins.
test("iframe-resize.js tells the iframe the parent's colour scheme", async ({ page, baseURL }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  const frame = (id, query) => `<iframe id="${id}" title="agent loop" width="100%" height="500"
    src="index.html?scenario=report&lang=en&embed=1${query}"></iframe>`;
  await page.route(`${baseURL}/light-lms.html`, (route) => route.fulfill({
    contentType: "text/html",
    body: `<!doctype html><html lang="en"><title>A light LMS</title><link rel="icon" href="data:,">
<script src="iframe-resize.js"></script><body>${frame("auto", "")}${frame("fixed", "&theme=dark")}`,
  }));
  await page.goto("/light-lms.html");
  const luminance = async (id) => {
    const inner = page.frameLocator(`#${id}`).locator(EL);
    if (!(await inner.evaluate((e) => e.ready === true).catch(() => false))) return NaN;
    const rgb = await inner.evaluate((e) => getComputedStyle(e.shadowRoot.querySelector(".alp-root")).backgroundColor);
    const [r, g, b] = rgb.match(/\d+(\.\d+)?/g).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  await expect.poll(() => luminance("auto"), { message: "light, as the page around it", timeout: 15000 }).toBeGreaterThan(0.5);
  await expect.poll(() => luminance("fixed"), { message: "theme=dark in its URL wins", timeout: 15000 }).toBeLessThan(0.3);
  // The course page turns dark: so does the iframe.
  await page.evaluate(() => { document.documentElement.style.colorScheme = "dark"; });
  await expect.poll(() => luminance("auto"), { message: "dark with the page", timeout: 15000 }).toBeLessThan(0.3);
});

// A sandboxed iframe without allow-same-origin speaks from the origin
// "null", which no message can be addressed to: iframe-resize.js still
// sizes it and passes its messages on (telling it the scheme threw first).
for (const width of [390, 1440]) {
  test(`an embedded playground's height does not follow its frame's (${width} px): the frame cannot grow for ever`, async ({ page }) => {
    // (iframe-resize.js makes the frame as tall as its content: a content as
    // tall as the frame, as the phone's layout is on a page, grew without end)
    await page.setViewportSize({ width, height: 844 });
    await page.goto("/course-example.html");
    const frame = await (await page.$("#demo-frame")).contentFrame();
    await page.locator("#demo-frame").scrollIntoViewIfNeeded();
    await frame.waitForFunction(() => document.querySelector("agent-loop-playground")?.ready === true);
    const tall = async (px) => {
      await page.$eval("#demo-frame", (f, h) => { f.style.height = `${h}px`; }, px);
      // (the frame's new height laid out inside it: two frames of its own)
      await frame.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
      return frame.$eval("agent-loop-playground", (el) => Math.round(el.getBoundingClientRect().height));
    };
    const at700 = await tall(700);
    expect(await tall(4000), "the playground's height in a 4000 px frame").toBe(at700);
  });
}

test("iframe-resize.js sizes a sandboxed iframe it cannot tell anything", async ({ page, baseURL }) => {
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // (the frame says what the playground's page says: its height)
  const inner = `<script>parent.postMessage({source: "agent-loop-playground", type: "resize", height: 480}, "*")</script>`;
  await page.route(`${baseURL}/sandboxed-lms.html`, (route) => route.fulfill({
    contentType: "text/html",
    body: `<!doctype html><html lang="en"><title>A strict LMS</title><link rel="icon" href="data:,">
<script src="iframe-resize.js"></script><body><iframe id="box" sandbox="allow-scripts" title="agent loop" width="100%" height="150"
    srcdoc='${inner}'></iframe>`,
  }));
  await page.goto("/sandboxed-lms.html");
  await expect.poll(() => page.$eval("#box", (f) => Number(f.height)), { timeout: 15000 }).toBe(480);
  expect(errors).toEqual([]);
});

test("course page under a sub-path: three independent playgrounds and an iframe", async ({ page, requests }) => {
  await page.addInitScript(() => {
    if (window.top !== window) return;
    window.__alp = [];
    window.addEventListener("message", (e) => {
      if (e.data && e.data.source === "agent-loop-playground") window.__alp.push(e.data);
    });
  });
  await openCourse(page);
  const ids = [COURSE.ask, COURSE.main, COURSE.loop];
  let before;
  await test.step("functions and breakpoints come from the attributes", async () => {
    before = await Promise.all(ids.map((id) => state(page, id)));
    expect(before.map((s) => s.function)).toEqual(["ask_claude", "run_main", "run_loop"]);
    expect(before.map((s) => s.breakpoints.length), "breakpoints from attributes").toEqual([0, 1, 2]);
  });
  await test.step("debugging one playground leaves the others alone", async () => {
    await page.locator(command("debug", COURSE.loop)).click();
    await page.locator(command("continue", COURSE.loop)).click();
    const loop = await state(page, COURSE.loop);
    expect(loop.label).toBe("loop.save_results");
    expect(await cards(page, COURSE.loop)).toBe(2);
    const after = await Promise.all(ids.slice(0, 2).map((id) => state(page, id)));
    expect(after, "the other playgrounds did not move").toEqual(before.slice(0, 2));
    await page.locator(command("debug", COURSE.main)).click();
    expect((await state(page, COURSE.main)).label).toBe("main.validate");
    expect((await state(page, COURSE.loop)).label).toBe("loop.save_results");
  });
  let inner;
  await test.step("the iframe posts ready, resize and step, and is resized", async () => {
    // (the learner scrolls down to it: the frame loads lazily, and the
    // playgrounds above it are their full height from the first paint)
    await page.locator(COURSE.frame).scrollIntoViewIfNeeded();
    const frame = page.frameLocator(COURSE.frame);
    await frame.locator(command("run", "")).click();
    await page.waitForFunction(() => ["ready", "resize", "step"].every((t) => window.__alp.some((m) => m.type === t)), null, { timeout: 10000 });
    const messages = await page.evaluate(() => window.__alp);
    const last = messages.filter((m) => m.type === "step").at(-1);
    expect(last.state.status).toBe("call_limit");
    const height = Number(await page.getAttribute(COURSE.frame, "height"));
    expect(height, `iframe resized to its content (${height})`).toBeGreaterThan(300);
    inner = await (await page.$(COURSE.frame)).contentFrame();
  });
  await test.step("ill-formed messages are ignored; a well-formed command is obeyed", async () => {
    await page.evaluate((frameSel) => {
      const w = document.querySelector(frameSel).contentWindow;
      w.postMessage("reset", "*");
      w.postMessage({ source: "someone-else", type: "command", name: "reset" }, "*");
      w.postMessage({ source: "agent-loop-playground", type: "command", name: "explode" }, "*");
    }, COURSE.frame);
    await page.waitForTimeout(200);
    expect(await inner.$eval(EL, (e) => e.state().status)).toBe("call_limit");
    await page.evaluate((frameSel) => document.querySelector(frameSel).contentWindow.postMessage({ source: "agent-loop-playground", type: "command", name: "reset" }, "*"), COURSE.frame);
    await inner.waitForFunction((el) => document.querySelector(el).state().status === "ready", EL);
  });
  await test.step("the assets came from the sub-path, nothing from the site root", async () => {
    expect(requests.some((u) => u.includes(COURSE.wasm)), "wasm from the sub-path").toBe(true);
    expect(requests.some((u) => new URL(u).pathname.startsWith("/agent-loop-playground")), "nothing from the site root").toBe(false);
  });
});

// Issue 44, point 7: the course page shows lesson two too, with the
// lesson's quick check asked where the run shows why (at the break on
// end_turn, after a reply that said "done" while it asked for a tool).
test("the course page's lesson-two demo asks the lesson's quick check at the break", async ({ page }) => {
  await openCourse(page);
  const seen = await page.$eval("#demo-core", (e) => {
    const asked = [];
    e.command("debug");
    for (let i = 0; i < 200 && e.state().status !== "answered"; i++) {
      const q = e.state().question;
      if (q) {
        asked.push({ at: q.label, text: q.text });
        e.answer(0);
        continue;
      }
      if (e.state().status !== "paused") break;
      e.command("step");
    }
    return { program: e.state().program, scenario: e.state().scenario, asked };
  });
  expect([seen.program, seen.scenario]).toEqual(["lesson_two", "core-says-done"]);
  const quick = seen.asked.find((q) => q.text.includes("task complete"));
  expect(quick, JSON.stringify(seen.asked)).toBeTruthy();
  expect(quick.at).toBe("core.stop");
});

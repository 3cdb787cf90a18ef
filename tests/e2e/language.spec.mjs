// The code on screen is the learner's lesson: in zh no English sentence in
// what the run shows (the record, the output, the captions) and in en no
// Chinese, over every step of the lesson's eight scenarios; and no listing
// row is ever cut or scrolled sideways, at 1440 and at 390 px.
import { test, expect, EL, open, langButton } from "./helpers.mjs";

const LESSON = ["request", "error", "success", "timeout", "reject", "report", "limit", "truncated"];

/** Step through the scenario on screen; at every step collect the texts the run shows. */
async function collect(page) {
  return page.$eval(EL, (e) => {
    const root = e.shadowRoot;
    const text = (sel) => [...root.querySelectorAll(sel)].map((n) => n.textContent).join("\n");
    const seen = [];
    e.command("reset");
    for (let i = 0; i < 400; i++) {
      e.command("step");
      seen.push({
        step: e.state().step,
        record: text('svg[data-role="record"]'),
        figure: text(".alp-figure svg"),
        output: text('[data-role="output"]'),
        caption: text(".alp-caption-title") + "\n" + text(".alp-caption-body"),
      });
      if (e.state().step + 1 >= e.state().steps) break;
    }
    // What main.py itself printed (Python's own words) is data, in any language.
    const printed = [];
    const result = e.outcome().result;
    const messages = result?.type === "tool_result" ? [{ content: [result] }] : result?.messages ?? [];
    for (const m of messages) {
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if (b.type === "tool_result" && typeof b.content === "string") printed.push(...b.content.split("\n").slice(1));
      }
    }
    return { seen, printed };
  });
}

const CJK = /[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]/;
// Four words or more in a row: a sentence, not an identifier or a value.
const SENTENCE = /[A-Za-z]{2,}(?:[ ,;:]+[A-Za-z]{2,}){3,}/g;

for (const width of [1440, 390]) {
  for (const lang of ["zh", "en"]) {
    test(`the run speaks ${lang} in every panel of the eight scenarios (${width} px)`, async ({ page }) => {
      await page.setViewportSize({ width, height: width > 400 ? 900 : 844 });
      await open(page, `?scenario=report&lang=${lang}`);
      const found = [];
      for (const id of LESSON) {
        await page.$eval(EL, (e, id) => e.load(id), id);
        const { seen, printed } = await collect(page);
        expect(seen.length, `${id} has steps`).toBeGreaterThan(3);
        for (const s of seen) {
          for (const part of ["record", "figure", "output", "caption"]) {
            const text = s[part];
            if (lang === "en") {
              const hit = text.match(CJK);
              if (hit) found.push(`${id} step ${s.step} ${part}: Chinese "${text.slice(Math.max(0, hit.index - 20), hit.index + 20)}"`);
            } else {
              for (const m of text.match(SENTENCE) ?? []) {
                if (!printed.some((p) => p.includes(m))) found.push(`${id} step ${s.step} ${part}: English "${m}"`);
              }
            }
          }
        }
      }
      expect([...new Set(found)].slice(0, 30)).toEqual([]);
    });
  }

  test(`no listing row is cut at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: width > 400 ? 900 : 844 });
    const cut = [];
    for (const lang of ["zh", "en"]) {
      for (const [id, listing] of [["request", "python"], ["error", "python"], ["report", "python"], ["report", "rust"], ["error", "rust"], ["request", "rust"]]) {
        await open(page, `?scenario=${id}&lang=${lang}&listing=${listing}`);
        // Every function of the run: step until each has been on screen.
        expect((await page.$eval(EL, (e) => e.state())).listing).toBe(listing);
        const rows = await page.$eval(EL, (e) => {
          const root = e.shadowRoot;
          const out = [];
          const panel = root.querySelector(".alp-code");
          e.command("reset");
          for (let i = 0; i < 200; i++) {
            e.command("step");
            if (panel.scrollWidth > panel.clientWidth + 1) out.push(`panel scrolls sideways (${panel.scrollWidth} > ${panel.clientWidth})`);
            for (const code of root.querySelectorAll(".alp-row code")) {
              if (code.scrollWidth > code.clientWidth + 1) out.push(`${code.closest(".alp-row").dataset.function}:${code.closest(".alp-row").dataset.line} ${code.textContent.slice(0, 40)}`);
            }
            if (e.state().step + 1 >= e.state().steps) break;
          }
          return out;
        });
        cut.push(...rows.map((r) => `${lang} ${id} ${listing}: ${r}`));
      }
    }
    expect([...new Set(cut)]).toEqual([]);
  });
}

// The stand-alone page's own header and footer follow the language the
// playground shows: in each group of parts, exactly the one written in that
// language is shown, and <html lang> is that language's tag.
test("the page's header and footer show one part per group, in the playground's language, both ways", async ({ page }) => {
  const shown = () => page.evaluate(() => {
    const parts = [...document.querySelectorAll(".page-head [lang], .page-foot [lang]")];
    const groups = new Map();
    for (const p of parts) {
      const key = p.parentElement;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(p);
    }
    return {
      html: document.documentElement.lang,
      groups: [...groups.values()].map((g) => g.filter((p) => !p.hidden).map((p) => p.lang)),
    };
  });
  await open(page, "?scenario=report&lang=zh");
  let seen = await shown();
  expect(seen.html).toBe("zh-CN");
  expect(seen.groups.length, "the page has its groups").toBeGreaterThan(2);
  for (const g of seen.groups) expect(g).toEqual(["zh-CN"]);
  await page.click(langButton("en"));
  await page.waitForFunction(() => document.documentElement.lang === "en");
  seen = await shown();
  for (const g of seen.groups) expect(g).toEqual(["en"]);
  await page.click(langButton("zh"));
  await page.waitForFunction(() => document.documentElement.lang === "zh-CN");
  seen = await shown();
  for (const g of seen.groups) expect(g).toEqual(["zh-CN"]);
});

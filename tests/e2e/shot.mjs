// Dev helper: screenshot a URL. node tests/e2e/shot.mjs <url> <out.png> [w] [h]
import { chromium } from "playwright-core";
const [url, out, w = "1440", h = "900", action = ""] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
const page = await browser.newPage({ viewport: { width: +w, height: +h } });
page.on("console", (m) => console.log("console:", m.type(), m.text()));
page.on("pageerror", (e) => console.log("pageerror:", e.message));
await page.goto(url);
await page.waitForSelector(".alp-row", { timeout: 10000 });
if (action) await page.evaluate(action);
await page.waitForTimeout(200);
await page.screenshot({ path: out, fullPage: true });
await browser.close();

// Dev helper: screenshot a page of dist/. node tests/e2e/shot.mjs <path?query> <out.png> [width] [height]
import { chromium } from "playwright-core";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./server.mjs";
const [target, out, w = "1440", h = "900"] = process.argv.slice(2);
const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist");
const server = await serve([["/", dist]]);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
const page = await browser.newPage({ viewport: { width: +w, height: +h } });
page.on("console", (m) => console.log("console:", m.type(), m.text()));
page.on("pageerror", (e) => console.log("pageerror:", e.message));
await page.goto(`${server.origin}/${target}`);
await page.waitForFunction(() => [...document.querySelectorAll("agent-loop-playground")].every((e) => e.ready), null, { timeout: 15000 });
await page.waitForTimeout(500);
await page.screenshot({ path: out, fullPage: true });
await browser.close();
server.close();

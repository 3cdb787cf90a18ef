import { chromium } from "playwright-core";
import { serve } from "./server.mjs";
const s = await serve([["/", "/work/main/dist"]]);
const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const p = await b.newPage({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
await p.goto(s.origin + "/index.html?scenario=report&at=" + (process.argv[2] || 100000));
await p.waitForFunction(() => document.querySelector("agent-loop-playground")?.ready);
if (process.argv[3]) await p.addStyleTag({ content: process.argv[3] + "{display:none !important}" });
console.log(await p.evaluate(() => {
  const el = document.querySelector("agent-loop-playground");
  let n = 0;
  el.model = () => ({ stop_reason: "tool_use", content: [{ type: "tool_use", id: `call_${++n}`, name: "run_main", input: {} }] });
  const id = el.addScenario({ id: "b", function: "run_loop", title: { zh: "b", en: "b" }, max_calls: 3000, model: [], process: { returncode: 1, stderr: "x" } });
  el.load(id);
  el.command("stepInto");
el._need().seek(Number(new URLSearchParams(location.search).get("at") || 100000));
  const cmd = [], lay = [];
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    el.command(i % 2 ? "back" : "stepInto");
    const t1 = performance.now();
    void el.querySelector('svg').getBoundingClientRect().height;
    cmd.push(t1 - t0); lay.push(performance.now() - t1);
  }
  const med = (x) => x.sort((a, b) => a - b)[50];
  return { cmd: med(cmd), layout: med(lay), steps: el.state().steps, at: el.state().step };
}));
await b.close(); s.close();

// The npm package: scripts/pack builds target/agent-loop-playground-<v>.tgz
// from dist/; a fresh project installs it offline (it has no dependencies)
// and a page loads the element straight from node_modules/.
import { expect } from "@playwright/test";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { root, strictTest } from "./helpers.mjs";
import { serve } from "./server.mjs";

const ELEMENT = { types: "./element.d.ts", default: "./element.js" };
const EXPORTS = {
  ".": ELEMENT,
  "./element.js": ELEMENT,
  "./doubles.js": "./doubles.js",
  "./recorder.js": "./recorder.js",
  "./iframe-resize.js": "./iframe-resize.js",
  "./agent-loop-playground_bg.wasm": "./agent-loop-playground_bg.wasm",
  "./package.json": "./package.json",
};

const INDEX = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>npm install agent-loop-playground</title>
<link rel="icon" href="data:,">
<script type="module" src="./node_modules/agent-loop-playground/element.js"></script>
</head><body>
<h1>Installed from npm</h1>
<agent-loop-playground function="run_loop" scenario="report" lang="en" breakpoints="loop.ask"></agent-loop-playground>
</body></html>
`;

let project; // the temp project that installed the tarball
let server;
let tarball;

// Any console error or warning, page error, failed request or request that
// leaves this spec's own server fails the test.
const test = strictTest(() => server.origin);

test.describe.configure({ mode: "default" }); // one worker: one pack, one install

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const out = execFileSync(path.join(root, "scripts/pack"), { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const m = out.match(/tarball: (\S+\.tgz)/);
  expect(m, `scripts/pack printed the tarball path:\n${out}`).not.toBeNull();
  tarball = path.resolve(root, m[1]);
  project = fs.mkdtempSync(path.join(os.tmpdir(), "alp-npm-"));
  const npm = (...args) => execFileSync("npm", args, { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  npm("init", "-y");
  npm("install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball);
  fs.writeFileSync(path.join(project, "index.html"), INDEX);
  server = await serve([["/", project]]);
});

test.afterAll(async () => {
  server?.close();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

test("the tarball installs offline with the declared exports and no dependencies", async () => {
  const dir = path.join(project, "node_modules/agent-loop-playground");
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const cargo = fs.readFileSync(path.join(root, "Cargo.toml"), "utf8").match(/^version = "([^"]+)"/m)[1];
  expect(pkg.name).toBe("agent-loop-playground");
  expect(pkg.version, "the version is the crate's").toBe(cargo);
  expect(pkg.type).toBe("module");
  expect(pkg.exports).toEqual(EXPORTS);
  expect(pkg.sideEffects).toEqual(["./element.js"]);
  expect(pkg.dependencies ?? {}, "no dependencies").toEqual({});
  expect(pkg.types, "the element's API is typed").toBe("./element.d.ts");
  expect(pkg.license).toBe("MIT");
  expect(pkg.bin, "the author CLI is a command").toEqual({ "agent-loop-playground": "cli/agent-loop-playground.js" });
  for (const f of ["agent-loop-playground.js", "agent_loop_node.js", "agent_loop_node_bg.wasm"]) {
    expect(fs.existsSync(path.join(dir, "cli", f)), `cli/${f} is in the package`).toBe(true);
  }
  expect(fs.readFileSync(path.join(dir, "LICENSE"), "utf8"), "the license ships with it").toContain("MIT License");
  for (const target of new Set(Object.values(EXPORTS).flatMap((t) => (typeof t === "string" ? [t] : Object.values(t))))) {
    expect(fs.existsSync(path.join(dir, target)), `${target} is in the package`).toBe(true);
  }
  expect(fs.existsSync(path.join(dir, "agent-loop-playground.js")), "the wasm-bindgen glue element.js imports").toBe(true);
  expect(fs.existsSync(path.join(dir, "README.md"))).toBe(true);
  for (const f of ["element.js", "agent-loop-playground_bg.wasm"]) {
    expect(fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(path.join(root, "dist", f))), `${f} is dist/'s`).toBe(true);
  }
  // The installing project's own manifest records it, and nothing else came along.
  const own = JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8"));
  expect(Object.keys(own.dependencies)).toEqual(["agent-loop-playground"]);
  expect(fs.readdirSync(path.join(project, "node_modules")).filter((d) => !d.startsWith("."))).toEqual(["agent-loop-playground"]);
});

test("npm publish --dry-run of the tarball is clean", () => {
  const run = spawnSync("npm", ["publish", "--dry-run", "--offline", tarball], { cwd: project, encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  const said = run.stdout + run.stderr;
  expect(said).toContain("agent-loop-playground@");
  // (but the one that says a dry run was not logged in: publishing needs an account)
  const warned = said.split("\n").filter((l) => /\bwarn|\bERR/i.test(l) && !/requires you to be logged in/.test(l));
  expect(warned, "no warning").toEqual([]);
});

test("a page loads the element from node_modules/ and steps it", async ({ page }) => {
  const wasm = [];
  page.on("response", (r) => { if (r.url().endsWith(".wasm")) wasm.push([new URL(r.url()).pathname, r.status()]); });
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => document.querySelector("agent-loop-playground")?.ready === true, null, { timeout: 15000 });
  expect(wasm).toEqual([["/node_modules/agent-loop-playground/agent-loop-playground_bg.wasm", 200]]);
  const el = page.locator("agent-loop-playground");
  const start = await el.evaluate((e) => e.state());
  expect(start.status).toBe("ready");
  await el.locator('[data-command="debug"]').click();
  const atAsk = await el.evaluate((e) => e.state());
  expect(atAsk.label, "the breakpoint attribute was read").toBe("loop.ask");
  await el.locator('[data-command="step"]').click();
  const after = await el.evaluate((e) => e.state());
  expect(after.step).toBeGreaterThan(atAsk.step);
  // Its stylesheet is adopted by the shadow root only (a module of the package).
  const sheets = await el.evaluate((e) => [e.shadowRoot.adoptedStyleSheets.length, e.shadowRoot.adoptedStyleSheets[0].cssRules.length]);
  expect(sheets[0]).toBe(1);
  expect(sheets[1], "the element's rules").toBeGreaterThan(50);
  expect(await page.evaluate(() => document.styleSheets.length), "no stylesheet in the document").toBe(0);
});

// The iframe route (issue 44): the stand-alone page and what it loads ship
// in the package, so an LMS page can frame it straight from node_modules/.
const FRAME_PAGE = ["index.html", "page.js", "page.css", "first-view.css"];
const PARENT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A course page with the iframe</title>
<link rel="icon" href="data:,">
<script src="./node_modules/agent-loop-playground/iframe-resize.js"></script>
</head><body>
<h1>The iframe from the package</h1>
<iframe id="frame" title="agent loop" width="100%" height="400"
  src="./node_modules/agent-loop-playground/index.html?function=run_loop&scenario=report&lang=en&embed=1"></iframe>
</body></html>
`;

test("the tarball holds the stand-alone page, and an iframe of it from node_modules/ steps", async ({ page }) => {
  const listed = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" }).split("\n");
  for (const f of FRAME_PAGE) expect(listed, `${f} is in the tarball`).toContain(`package/${f}`);
  fs.writeFileSync(path.join(project, "course.html"), PARENT);
  await page.addInitScript(() => {
    if (window.top !== window) return;
    window.__alp = [];
    window.addEventListener("message", (e) => { if (e.data?.source === "agent-loop-playground") window.__alp.push(e.data); });
  });
  await page.goto(`${server.origin}/course.html`);
  await page.waitForFunction(() => window.__alp.some((m) => m.type === "ready"), null, { timeout: 15000 });
  await page.evaluate(() => document.querySelector("#frame").contentWindow.postMessage({ source: "agent-loop-playground", type: "command", name: "debug" }, "*"));
  await page.waitForFunction(() => window.__alp.some((m) => m.type === "step" && m.state.started), null, { timeout: 10000 });
  const frame = page.frameLocator("#frame");
  await expect(frame.locator("agent-loop-playground .alp-row").first()).toBeVisible();
  await expect(frame.locator("header.page-head"), "embed mode hides the page's header").toBeHidden();
  const height = Number(await page.getAttribute("#frame", "height"));
  expect(height, "iframe-resize.js sized the frame to its content").not.toBe(400);
});

// The author CLI without Rust: `npx agent-loop-playground …` in the project
// that installed the tarball answers exactly as the native CLI (built by
// scripts/test's fixture check), on the shipped files and the broken ones.
const CASES = [
  ["check", "fixtures/scenarios"],
  ["check", "cli/tests/bad-fixtures"],
  ["check", "fixtures/scenarios/report.json"],
  ["check", "no/such/folder"],
  ["trace", "fixtures/scenarios/report.json"],
  ["trace", "cli/tests/bad-fixtures/not-json.json"],
  ["trace", "cli"],
  ["setup", "fixtures/scenarios/report.json", "zh"],
  ["setup", "fixtures/scenarios/report.json", "fr"],
  ["import", "cli/tests/import/two-rounds.json"],
  ["import", "cli/tests/import/approximations.json", "--id", "mine"],
  ["import", "cli/tests/import/two-rounds.json", "--id", "not an id"],
  ["import", "fixtures/scenarios/report.json"],
  ["check", "--listing", "fixtures/listings/lesson.zh.py"],
  ["check", "--listing", "fixtures/listings/mistakes.json"],
  ["frobnicate"],
  ["--help"],
  ["check", "--listing"],
  ["import", "--id"],
  ["check", "--listing", "fixtures/listings/lesson.zh.py", "cli/tests/bad-fixtures"],
];

// (built here, so a stale binary is never what the package is compared with;
// a second or so when scripts/test's fixture check has just built it)
let built = false;
function native() {
  const bin = path.join(root, "target/release/agent-loop-cli");
  if (!built) execFileSync("cargo", ["build", "--quiet", "--release", "-p", "agent-loop-cli"], { cwd: root, stdio: "inherit" });
  built = true;
  return bin;
}

function ran(cmd, args) {
  const out = spawnSync(cmd[0], [...cmd.slice(1), ...args], { cwd: project, encoding: "utf8", maxBuffer: 1 << 28 });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

test("npx agent-loop-playground says what the native CLI says, with its exit codes", () => {
  test.setTimeout(120_000);
  const bin = native();
  let checked = 0;
  for (const args of CASES) {
    const abs = args.map((a) => (a.includes("/") ? path.join(root, a) : a));
    const mine = ran(["npx", "--offline", "agent-loop-playground"], abs);
    const theirs = ran([bin], abs);
    // Only the usage line names the command differently (and aligns to it).
    const usage = (t) => t.replaceAll("agent-loop-cli", "agent-loop-playground").replace(/ {2,}/g, "  ");
    for (const side of [mine, theirs]) [side.stdout, side.stderr] = [usage(side.stdout), usage(side.stderr)];
    expect(mine, args.join(" ")).toEqual(theirs);
    checked += 1;
  }
  expect(checked).toBe(CASES.length);
  // And the outcomes are the ones the docs promise.
  const bad = ran(["npx", "--offline", "agent-loop-playground"], ["check", path.join(root, "cli/tests/bad-fixtures")]);
  expect(bad.status).toBe(1);
  expect(bad.stdout).toMatch(/with problems\n$/);
  const good = ran(["npx", "--offline", "agent-loop-playground"], ["check", path.join(root, "fixtures/scenarios")]);
  expect(good.status).toBe(0);
  expect(good.stdout).toMatch(/^checked \d+ fixture\(s\): \d+ ok, 0 with problems\n$/m);
});

test("npx agent-loop-playground check works from a relative path in an empty folder", () => {
  const empty = fs.mkdtempSync(path.join(project, "empty-"));
  fs.cpSync(path.join(root, "fixtures/scenarios"), path.join(empty, "scenarios"), { recursive: true });
  fs.copyFileSync(path.join(root, "cli/tests/bad-fixtures/wrong-types.json"), path.join(empty, "scenarios/wrong-types.json"));
  const cli = path.join(project, "node_modules/.bin/agent-loop-playground");
  const out = spawnSync(cli, ["check", "scenarios"], { cwd: empty, encoding: "utf8" });
  const theirs = spawnSync(native(), ["check", "scenarios"], { cwd: empty, encoding: "utf8" });
  expect([out.status, out.stdout, out.stderr]).toEqual([theirs.status, theirs.stdout, theirs.stderr]);
  expect(out.status).toBe(1);
  expect(out.stdout).toContain("scenarios/wrong-types.json: max_calls: must be an integer");
  // A reader that stops early is a quiet end, as natively.
  const head = spawnSync("bash", ["-c", `"${cli}" trace scenarios/report.json | head -c 10`], { cwd: empty, encoding: "utf8" });
  expect(head.stdout).toBe("{\n  \"scena");
  expect(head.stderr).toBe("");
});

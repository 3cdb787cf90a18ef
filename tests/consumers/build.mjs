// Builds the real consumers of the packed element (tests/e2e/consumers.spec.mjs):
// the tarball from scripts/pack is unpacked into node_modules, as npm
// installs it, then each consumer is built with its own tool's API into
// target/consumers/<name>/.
//   node tests/consumers/build.mjs [vite|webpack|vitepress ...]   (all by default)
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
export const out = (name) => path.join(root, "target", "consumers", name);

/** Pack the element (scripts/pack, from dist/) and install the tarball. */
export function install() {
  const said = execFileSync(path.join(root, "scripts", "pack"), { cwd: root, encoding: "utf8" });
  const tarball = said.match(/tarball: (\S+\.tgz)/)?.[1];
  if (!tarball) throw new Error(`scripts/pack said no tarball:\n${said}`);
  const dir = path.join(here, "node_modules", "agent-loop-playground");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("tar", ["xzf", path.join(root, tarball), "-C", dir, "--strip-components=1"]);
  return path.join(root, tarball);
}

export async function buildVite() {
  const { build } = await import("vite");
  await build({ root: path.join(here, "vite"), logLevel: "warn", build: { outDir: out("vite"), emptyOutDir: true } });
}

/** The Vite dev server on a free port: `{url, close}`. */
export async function devVite() {
  const { createServer } = await import("vite");
  const server = await createServer({ root: path.join(here, "vite"), logLevel: "warn", server: { port: 0, host: "127.0.0.1" } });
  await server.listen();
  return { url: server.resolvedUrls.local[0], close: () => server.close() };
}

export async function buildWebpack() {
  const { default: webpack } = await import("webpack");
  const { default: config } = await import("./webpack/webpack.config.js");
  const stats = await new Promise((resolve, reject) =>
    webpack(config(out("webpack")), (err, s) => (err ? reject(err) : resolve(s))));
  if (stats.hasErrors()) throw new Error(stats.toString("errors-only"));
  fs.copyFileSync(path.join(here, "webpack", "index.html"), path.join(out("webpack"), "index.html"));
}

/** `vitepress dev` on the VitePress consumer: the command itself, in a
 *  process of its own (Vite takes the first free port from 5173 on);
 *  resolves with `{url, close}` once it says where it listens, rejects if
 *  it exits first. */
export function devVitePress() {
  // (vitepress build, run before in this process, set NODE_ENV=production)
  const { NODE_ENV, ...env } = process.env;
  const bin = path.join(here, "node_modules", ".bin", "vitepress");
  const child = spawn(bin, ["dev", path.join(here, "vitepress"), "--host", "127.0.0.1"], {
    cwd: here, env: { ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  };
  let said = "";
  return new Promise((resolve, reject) => {
    const hear = (chunk) => {
      said += chunk;
      const url = said.replace(/\x1b\[[0-9;]*m/g, "").match(/Local:\s+(http:\/\/\S+)/)?.[1];
      if (url) resolve({ url, close });
    };
    child.stdout.setEncoding("utf8").on("data", hear);
    child.stderr.setEncoding("utf8").on("data", hear);
    child.once("error", reject);
    exited.then((code) => reject(new Error(`vitepress dev ended (${code}) before it listened:\n${said}`)));
  });
}

export async function buildVitePress() {
  const { build } = await import("vitepress");
  await build(path.join(here, "vitepress"), { outDir: out("vitepress") });
}

/** Hugo (Debian's, scripts/setup): the site copied with the package's five
 *  files in static/alp/, as the recipe says, then `hugo` builds it. */
export function buildHugo() {
  const site = out("hugo-site");
  fs.rmSync(site, { recursive: true, force: true });
  fs.cpSync(path.join(here, "hugo"), site, { recursive: true });
  const pkg = path.join(here, "node_modules", "agent-loop-playground");
  fs.mkdirSync(path.join(site, "static", "alp"), { recursive: true });
  for (const f of ["element.js", "element-style.js", "doubles.js", "agent-loop-playground.js", "agent-loop-playground_bg.wasm"]) {
    fs.copyFileSync(path.join(pkg, f), path.join(site, "static", "alp", f));
  }
  // and the programs' packs (lesson two's texts), fetched from beside element.js
  fs.cpSync(path.join(pkg, "data"), path.join(site, "static", "alp", "data"), { recursive: true });
  execFileSync("hugo", ["--quiet", "--source", site, "--destination", out("hugo"), "--cleanDestinationDir"], { stdio: "inherit" });
}

const BUILDS = { vite: buildVite, webpack: buildWebpack, vitepress: buildVitePress, hugo: buildHugo };

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  install();
  for (const name of process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(BUILDS)) {
    const start = Date.now();
    await BUILDS[name]();
    console.log(`[consumers] ${name}: ${out(name)} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
  }
}

// The Pyodide side of the comparison in bench/bench.mjs. Everything comes
// from the bench's local server: Pyodide's own files (/compare/pyodide-dist/,
// the npm package installed by bench/pyodide/install), core/src/programs/lesson_one/runtime.py,
// cli/src/replay.py (the tracer, imported as is), driver.py next to this
// file, and the report scenario's setup and entry in English.
import { loadPyodide } from "../pyodide-dist/pyodide.mjs";

const FILES = {
  "/alp/core/src/programs/lesson_one/runtime.py": "../core/src/programs/lesson_one/runtime.py",
  "/alp/cli/src/replay.py": "../cli/src/replay.py",
  "/alp/bench/driver.py": "./driver.py",
  "/alp/fixtures/report.setup.py": "../fixture/report.setup.py",
};
const status = document.querySelector("#status");

try {
  // The small files download while Pyodide loads, as the playground's do.
  const texts = Promise.all(Object.entries(FILES).map(async ([to, from]) => {
    const response = await fetch(new URL(from, import.meta.url));
    if (!response.ok) throw new Error(`${from}: ${response.status}`);
    return [to, await response.text()];
  }));
  const py = await loadPyodide({ indexURL: new URL("../pyodide-dist/", import.meta.url).href });
  for (const [to, text] of await texts) {
    py.FS.mkdirTree(to.slice(0, to.lastIndexOf("/")));
    py.FS.writeFile(to, text);
  }
  const json = py.runPython(`
import sys
sys.path[:0] = ["/alp/bench", "/alp/cli/src"]
import driver
driver.run("/alp/core/src/programs/lesson_one/runtime.py", "/alp/fixtures/report.setup.py", "run_loop")
`);
  window.__firstSnapshot = performance.now();
  window.__trace = JSON.parse(json);
  window.__python = py.runPython("import sys; sys.version.split()[0]");
  status.textContent = `trace ready: ${window.__trace.steps.length} events`;
} catch (error) {
  window.__error = String(error && error.stack ? error.stack : error);
  status.textContent = window.__error;
}

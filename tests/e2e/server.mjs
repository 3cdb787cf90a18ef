// A tiny static server for E2E tests: serves `dir` under `prefix` (so dist/
// can be tested from a sub-path) and records every request it sees.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
  ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml", ".png": "image/png",
};

// Servers that misbehave, for the src= tests: /__stall/… sends its headers
// and one byte, then nothing; /__endless/… sends JSON-looking bytes until
// the reader goes away.
function stalls(url, req, res) {
  if (url.pathname.startsWith("/__stall/")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.write("{");
    req.on("close", () => res.destroy());
    return true;
  }
  if (url.pathname.startsWith("/__endless/")) {
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = Buffer.from(`{"id": "${"x".repeat(65500)}",`);
    const more = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once("drain", more);
    };
    req.on("close", () => res.destroy());
    more();
    return true;
  }
  return false;
}

/** Serves each mount's directory under its prefix; `virtual` maps a path to
 *  an HTML page (a string) or to a handler `(req, res)`. Requests are in `seen`. */
export function serve(mounts, virtual = {}) {
  const seen = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    seen.push(url.pathname);
    if (stalls(url, req, res)) return;
    if (typeof virtual[url.pathname] === "function") {
      virtual[url.pathname](req, res);
      return;
    }
    if (virtual[url.pathname] !== undefined) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(virtual[url.pathname]);
      return;
    }
    for (const [prefix, dir] of mounts) {
      if (!url.pathname.startsWith(prefix)) continue;
      let rel = decodeURIComponent(url.pathname.slice(prefix.length));
      if (rel === "" || rel.endsWith("/")) rel += "index.html";
      const file = path.resolve(dir, rel);
      if (!file.startsWith(path.resolve(dir))) break;
      fs.readFile(file, (err, data) => {
        if (err) {
          res.writeHead(404, { "content-type": "text/plain" });
          res.end("not found");
          return;
        }
        res.writeHead(200, { "content-type": TYPES[path.extname(file)] || "application/octet-stream" });
        res.end(data);
      });
      return;
    }
    res.writeHead(404);
    res.end("not found");
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({ origin: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() });
    });
  });
}

// The course example as an author would host it: dist/ copied under a
// sub-path (/course/assets/alp/), the lesson page elsewhere (/course/lesson/),
// with only the asset paths adjusted. dist/ is also served at the root.
export function serveCourse(dist) {
  const lesson = fs
    .readFileSync(path.join(dist, "course-example.html"), "utf8")
    .replaceAll('href="page.css"', 'href="../assets/alp/page.css"')
    .replaceAll('src="element.js"', 'src="../assets/alp/element.js"')
    .replaceAll('src="iframe-resize.js"', 'src="../assets/alp/iframe-resize.js"')
    .replaceAll('src="index.html?', 'src="../assets/alp/index.html?')
    .replaceAll('href="first-view.css"', 'href="../assets/alp/first-view.css"');
  return serve([["/course/assets/alp/", dist], ["/", dist]], { "/course/lesson/": lesson });
}

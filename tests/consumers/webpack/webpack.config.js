// webpack 5: `new URL("./file", import.meta.url)` is an asset of its own,
// so the module and the stylesheet are emitted with hashed names.
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

export default (outDir) => ({
  mode: "production",
  context: here,
  entry: "./main.js",
  output: { path: outDir, filename: "main.js", publicPath: "auto", clean: true },
  performance: { hints: false },
});

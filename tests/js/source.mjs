// What tests/js/check.mjs reads: the files of www/, parsed with acorn, and
// the element's own tables (www/element/attributes.js, languages.js) as the
// page has them (bundled by esbuild and imported: www/ has no package.json
// saying its .js files are modules).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "acorn";
import { buildSync } from "esbuild";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** A path relative to the repository. */
export const rel = (file) => path.relative(root, file).split(path.sep).join("/");

export const read = (file) => fs.readFileSync(path.join(root, file), "utf8");

/** Every JavaScript module of www/ (its data/ holds JSON only). */
export function wwwModules() {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".js")) out.push(rel(full));
    }
  };
  walk(path.join(root, "www"));
  return out.sort();
}

/** The module's syntax tree (locations on). */
export function syntax(file) {
  return parse(read(file), { ecmaVersion: "latest", sourceType: "module", locations: true });
}

/** Every node under `node`, each with its parent: `visit(node, parent)`. */
export function walk(node, visit, parent = null) {
  visit(node, parent);
  for (const value of Object.values(node)) {
    const children = Array.isArray(value) ? value : [value];
    for (const child of children) {
      if (child && typeof child === "object" && typeof child.type === "string" && child !== parent) walk(child, visit, node);
    }
  }
}

/** The name a function is known by, from where it stands. */
export function functionName(node, parent) {
  if (node.id) return node.id.name;
  const key = parent && (parent.type === "MethodDefinition" || parent.type === "Property" || parent.type === "PropertyDefinition") ? parent.key : null;
  if (key) return key.name ?? String(key.value);
  if (parent?.type === "VariableDeclarator") return parent.id.name;
  if (parent?.type === "AssignmentExpression") return parent.left.property?.name ?? parent.left.name ?? "(assigned)";
  return "(anonymous)";
}

/** The element's tables: attributes.js and languages.js, as the page has them. */
export async function elementTables() {
  const entry = "export * from './attributes.js'; export * from './languages.js';";
  const built = buildSync({
    stdin: { contents: entry, resolveDir: path.join(root, "www/element"), sourcefile: "tables.js" },
    bundle: true,
    format: "esm",
    write: false,
    logLevel: "silent",
  });
  const code = built.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
}

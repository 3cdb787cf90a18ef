// Serves dist/ on 127.0.0.1 (a free port) for the whole run, with the course
// sub-path mapping of server.mjs, and hands the origin to the workers through
// ALP_E2E_ORIGIN (workers start after global setup and inherit it).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serveCourse } from "./server.mjs";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist");

export default async function globalSetup() {
  if (!fs.existsSync(path.join(dist, "index.html")) || !fs.existsSync(path.join(dist, "course-example.html"))) {
    throw new Error(`no release build in ${dist}: run \`scripts/build\` first`);
  }
  const server = await serveCourse(dist);
  process.env.ALP_E2E_ORIGIN = server.origin;
  console.log(`serving ${path.relative(process.cwd(), dist) || dist}/ on ${server.origin} (course page at /course/lesson/)`);
  return async () => server.close();
}

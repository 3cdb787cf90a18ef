// A recorded conversation, end to end: `agent-loop-cli import` turns a
// logged Messages API request (with its final response) into a scenario; the
// page loads that scenario and its run gives back the conversation's
// messages exactly. The CLI is the release binary (scripts/test builds it
// for the fixture check; `cargo run --release` otherwise).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test, expect, EL, open, root } from "./helpers.mjs";

function importConversation(file) {
  const binary = path.join(root, "target/release/agent-loop-cli");
  const [command, args] = fs.existsSync(binary)
    ? [binary, ["import", file]]
    : ["cargo", ["run", "--quiet", "--release", "--", "import", file]];
  return execFileSync(command, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

for (const sample of ["zero-division", "two-rounds", "parallel-calls"]) {
  test(`the ${sample} conversation replays in the page message for message`, async ({ page }) => {
    const file = path.join("cli/tests/import", `${sample}.json`);
    const conversation = JSON.parse(fs.readFileSync(path.join(root, file), "utf8"));
    const scenario = JSON.parse(importConversation(file));
    await open(page, "?lang=en");
    const run = await page.$eval(EL, (e, scenario) => {
      const id = e.addScenario(scenario);
      e.load(id);
      e.command("run");
      return { status: e.state().status, messages: e.outcome().result.messages };
    }, scenario);
    const wanted = [...conversation.messages];
    if (conversation.response) wanted.push({ role: "assistant", content: conversation.response.content });
    expect(run.messages).toEqual(wanted);
    expect(run.status).toBe(scenario.expect.status);
  });
}

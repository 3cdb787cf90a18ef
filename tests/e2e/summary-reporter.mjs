// Line-oriented closing summary for CI logs, after the list reporter:
//   skipped: <title> (<reason>)        one line per skipped test
//   FAILED:  <file>:<line> <title>     one line per failed test
//   E2E: N passed, M failed, K skipped
// A run in which no test passed fails, even if nothing failed.
export default class SummaryReporter {
  constructor() {
    this.results = new Map();
  }
  printsToStdio() {
    return true;
  }
  onTestEnd(test, result) {
    this.results.set(test.id, { test, result });
  }
  onEnd(full) {
    if (process.argv.includes("--list")) return;
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const lines = [];
    for (const { test, result } of this.results.values()) {
      const title = test.titlePath().filter(Boolean).slice(1).join(" › ");
      const outcome = test.outcome();
      if (outcome === "skipped") {
        counts.skipped++;
        const reason = [...test.annotations, ...(result.annotations || [])].filter((a) => a.type === "skip").map((a) => a.description).filter(Boolean);
        lines.push(`skipped: ${title}${reason.length ? ` (${[...new Set(reason)].join("; ")})` : ""}`);
      } else if (outcome === "expected" || outcome === "flaky") {
        counts.passed++;
      } else {
        counts.failed++;
        lines.push(`FAILED:  ${path(test)} ${title} [${result.status}]`);
      }
    }
    console.log("");
    for (const line of lines) console.log(line);
    if (full.status === "interrupted" || full.status === "timedout") console.log(`run ${full.status}`);
    console.log(`E2E: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
    if (counts.passed === 0) {
      console.log("no E2E test passed");
      return { status: "failed" };
    }
  }
}

function path(test) {
  const file = test.location.file.split("/tests/e2e/").pop();
  return `${file}:${test.location.line}`;
}

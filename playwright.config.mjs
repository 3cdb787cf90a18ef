// E2E tests (Playwright Test) in Debian's chromium against the release build
// in dist/ (run `trunk build --release` first; never `npx playwright install`).
//   npx playwright test                      all tests
//   npx playwright test keyboard             one spec file
//   SCREENSHOTS=1 npx playwright test screenshots   refresh docs/*.png
//   ALP_QUICK=1 npx playwright test          less the specs that build other
//                                            projects (scripts/test --quick)
import { defineConfig } from "@playwright/test";

/** The specs that build other projects (Vite, webpack, VitePress, Hugo,
 *  mdBook, the npm package): left out of `scripts/test --quick`. */
const BUILDS_OTHERS = ["consumers.spec.mjs", "package.spec.mjs", "course-book.spec.mjs"];

export default defineConfig({
  testDir: "tests/e2e",
  testIgnore: process.env.ALP_QUICK === "1" ? BUILDS_OTHERS : [],
  outputDir: "target/e2e/test-results",
  globalSetup: "./tests/e2e/global-setup.mjs",
  workers: 2,
  fullyParallel: true,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  reporter: [["list"], ["./tests/e2e/summary-reporter.mjs"]],
  use: {
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync"],
    },
    viewport: { width: 1440, height: 900 },
    contextOptions: { reducedMotion: "reduce" },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});

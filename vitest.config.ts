import { defineConfig } from "vitest/config";

// Unit and Node-integration tests only; Playwright specs live in e2e/ and run in real Chromium.
// Memory soak tests (*.soak.test.ts) measure process RSS, which other test files running beside
// them would disturb: they run only with EDGE_SOAK=1, alone (`npm run test:soak`, with the Chromium soak).
const soak = process.env.EDGE_SOAK === "1";

export default defineConfig({
  test: {
    include: soak
      ? ["src/**/*.soak.test.ts"]
      : ["src/**/*.test.ts", "workers/**/*.test.ts", "bench/**/*.test.ts", "eval/**/*.test.ts", "test/**/*.test.ts"],
    exclude: soak ? [] : ["**/*.soak.test.ts", "**/node_modules/**"],
    environment: "node",
    // No runner keeper (src/runner/keeper.ts) outlives a test: the CLI's one-shot commands start
    // their own runners, as with EDGE_RUNNER_KEEPER=0; src/runner/keeper.test.ts turns it on, in
    // folders of its own, and ends the keepers it started.
    env: { EDGE_RUNNER_KEEPER: "0" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: Pyodide workers are heavy, keep file-level parallelism modest.
    maxWorkers: soak ? 1 : 2,
  },
});

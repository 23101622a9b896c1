import { defineConfig } from "vitest/config";

// Unit and Node-integration tests only; Playwright specs live in e2e/ and run in real Chromium.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "workers/**/*.test.ts", "bench/**/*.test.ts", "test/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: Pyodide workers are heavy, keep file-level parallelism modest.
    maxWorkers: 2,
  },
});

// `npm run lint`: every check that reads the code without running it, each run even when one before
// it failed, so one run lists everything to fix (docs/decisions.md, "Formatting and lint"):
//   - Biome: the formatting (biome.json) and its lint rules; a warning fails too.
//   - ESLint, type-aware: floating promises and `as unknown as` casts (eslint.config.mjs).
//   - knip: unused exports, files and dependencies (knip.json).
// `npm run format` rewrites the formatting. Exits 1 when any check failed, naming each.
import { spawnSync } from "node:child_process";

const CHECKS = [
  { label: "format and lint (Biome)", cmd: "npx", args: ["biome", "ci", "--error-on-warnings", "."] },
  { label: "floating promises and casts (ESLint)", cmd: "npx", args: ["eslint", "--max-warnings=0", "."] },
  { label: "unused exports, files and dependencies (knip)", cmd: "npx", args: ["knip", "--no-progress"] },
];

const failed = [];
for (const { label, cmd, args } of CHECKS) {
  console.log(`\n── ${label}: ${cmd} ${args.join(" ")}`);
  const started = performance.now();
  const r = spawnSync(cmd, args, { stdio: "inherit", env: process.env });
  console.log(
    `── ${label}: ${r.status === 0 ? "ok" : "FAILED"} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  if (r.status !== 0) failed.push(label);
}
if (failed.length)
  console.error(
    `\nlint failed: ${failed.join("; ")}. A formatting difference is fixed by \`npm run format\`; the rest by hand.`,
  );
process.exit(failed.length ? 1 : 0);

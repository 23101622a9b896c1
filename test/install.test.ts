// `npm install` on a supported Node prints no engine warnings: every package the lockfile installs
// accepts this Node (the README promises Node 20.20+). Checked from the lockfile alone, offline.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = new URL("../", import.meta.url).pathname;

describe("installing on this Node", () => {
  it("no package in the lockfile declares an engine this Node does not satisfy (no EBADENGINE)", {
    timeout: 120_000,
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), "edge-install-"));
    for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(REPO, f), join(dir, f));
    const r = spawnSync("npm", ["install", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, npm_config_loglevel: "warn" },
    });
    expect(r.status, r.stderr).toBe(0);
    // npm prints engine mismatches as warnings on stderr.
    expect(`${r.stdout}${r.stderr}`).not.toContain("EBADENGINE");
  });
});

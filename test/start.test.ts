// `npm start` (the README's first command) on a machine without a desktop: it serves the build, the
// URL is printed, and no stack trace from trying to open a browser that cannot be opened; it builds
// only when dist/ is missing or older than a source. Here in a small copy (scripts/start.mjs, a
// dist/ of its own, this checkout's node_modules), never this checkout's dist/ (other runs serve it);
// e2e/readme-start.spec.ts runs it in a full copy: a real build, then an offline reload.
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildIsCurrent, canOpenBrowser } from "../scripts/start.mjs";
import { freePort } from "./free-port.ts";

const REPO = new URL("../", import.meta.url).pathname;

describe("where npm start opens a browser", () => {
  const withXdgOpen = mkdtempSync(join(tmpdir(), "edge-xdg-"));
  writeFileSync(join(withXdgOpen, "xdg-open"), "#!/bin/sh\nexit 0\n");
  chmodSync(join(withXdgOpen, "xdg-open"), 0o755);
  const empty = mkdtempSync(join(tmpdir(), "edge-nopath-"));

  it("Linux needs a desktop session and xdg-open; macOS and Windows always can; BROWSER=none never", () => {
    expect(canOpenBrowser("linux", { PATH: withXdgOpen })).toBe(false);
    expect(canOpenBrowser("linux", { PATH: empty, DISPLAY: ":0" })).toBe(false);
    expect(canOpenBrowser("linux", { PATH: withXdgOpen, DISPLAY: ":0" })).toBe(true);
    expect(canOpenBrowser("linux", { PATH: withXdgOpen, WAYLAND_DISPLAY: "wayland-0" })).toBe(true);
    expect(canOpenBrowser("darwin", {})).toBe(true);
    expect(canOpenBrowser("win32", {})).toBe(true);
    expect(canOpenBrowser("darwin", { BROWSER: "none" })).toBe(false);
  });
});

/** Environment without a desktop session. */
function headlessEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  delete env.BROWSER;
  return env;
}

/** Start `command args…` in its own process group, wait until its server answers at `port` (any
 *  HTTP status; 0 = it stopped first), run `check` (with what it printed so far), then stop the group. */
async function whileServing(
  command: string,
  args: string[],
  cwd: string,
  port: number,
  check: (printed: () => string, status: number) => Promise<void>,
): Promise<void> {
  const child = spawn(command, args, { cwd, env: headlessEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  // Without colour codes: vite colours its banner whenever $CI is set (picocolors), even into a
  // pipe, and puts one around the port of the URL.
  const add = (t: string): void => void (out += t.replace(/\x1b\[[0-9;]*m/g, ""));
  child.stdout.setEncoding("utf8").on("data", add);
  child.stderr.setEncoding("utf8").on("data", add);
  try {
    let status = 0;
    for (let i = 0; i < 240 && status === 0 && child.exitCode === null; i++) {
      status = await fetch(`http://127.0.0.1:${port}/`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 0) await new Promise((r) => setTimeout(r, 500));
    }
    await check(() => out, status);
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
  }
}

/** scripts/start.mjs and package.json in `dir` (created), this checkout's node_modules, and a dist/
 *  built after every source (there is none): what start serves without building. */
function smallCopy(dir: string): string {
  mkdirSync(join(dir, "scripts"), { recursive: true });
  mkdirSync(join(dir, "dist"));
  copyFileSync(join(REPO, "scripts", "start.mjs"), join(dir, "scripts", "start.mjs"));
  copyFileSync(join(REPO, "package.json"), join(dir, "package.json"));
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "dist", "index.html"), "<!doctype html><title>Edge playground</title>");
  writeFileSync(join(dir, "dist", "sw.js"), "");
  return dir;
}

describe("when npm start builds", () => {
  it("a dist/ with its service worker, newer than every source, is current; a newer source or no sw.js is not", () => {
    const dir = mkdtempSync(join(tmpdir(), "edge-start-"));
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "a.ts"), "");
    writeFileSync(join(dir, "index.html"), "");
    mkdirSync(join(dir, "dist"));
    writeFileSync(join(dir, "dist", "index.html"), "");
    expect(buildIsCurrent(dir)).toBe(false); // no service worker: not the product
    writeFileSync(join(dir, "dist", "sw.js"), "");
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(dir, "src", "a.ts"), past, past);
    utimesSync(join(dir, "index.html"), past, past);
    expect(buildIsCurrent(dir)).toBe(true);
    writeFileSync(join(dir, "src", "a.ts"), "changed");
    expect(buildIsCurrent(dir)).toBe(false);
  });
});

describe("npm start without a desktop", () => {
  it("serves the playground and prints its URL, without a stack trace", { timeout: 120_000 }, async () => {
    const port = await freePort();
    const copy = smallCopy(mkdtempSync(join(tmpdir(), "edge-start-")));
    await whileServing(
      "npm",
      ["start", "--", "--port", String(port), "--strictPort", "--host", "127.0.0.1"],
      copy,
      port,
      async (printed, status) => {
        expect(status, printed()).toBe(200);
        // vite's banner can reach the pipe after the server answers on a loaded machine: wait for
        // the URL, then give a failed `open` (which would follow the banner) a moment to show.
        const url = `http://127.0.0.1:${port}/`;
        for (let i = 0; i < 120 && !printed().includes(url); i++) await new Promise((r) => setTimeout(r, 500));
        await new Promise((r) => setTimeout(r, 1500));
        const out = printed();
        expect(out).toContain("No desktop browser to open here: open the Local URL below in a browser.");
        expect(out).toContain(url);
        expect(out).not.toMatch(/ENOENT|xdg-open|\n\s+at [^\n]+:\d+:\d+/);
        // A current build is served as it is, not built again.
        expect(out).toContain("dist/ is up to date with the sources: serving it.");
        expect(out).not.toContain("Building the playground");
      },
    );
  });

  it("starts from a checkout whose path has a space in it (a script run, not an import)", {
    timeout: 120_000,
  }, async () => {
    // The small copy in "…/my projects/edge web/".
    const copy = smallCopy(join(mkdtempSync(join(tmpdir(), "my projects ")), "edge web"));
    const port = await freePort();
    await whileServing(
      process.execPath,
      [join(copy, "scripts", "start.mjs"), "--port", String(port), "--strictPort", "--host", "127.0.0.1"],
      copy,
      port,
      async (printed, status) => {
        expect(status, `the server never answered; it printed: ${JSON.stringify(printed())}`).toBeGreaterThan(0);
        expect(printed()).toContain("No desktop browser to open here");
      },
    );
  });
});

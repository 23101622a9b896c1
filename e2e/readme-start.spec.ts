// The README's run command, as written, gives the real product: in a fresh copy of the repository
// (the files git has or will commit, with this checkout's node_modules linked in: installing is
// CI's own first step, so `npm install && ` is the one part not run), `npm start` builds the app,
// serves it cross-origin isolated with its service worker, and after one online visit the page
// reloads offline, inspects the example in the sandboxed runner and answers through a tool call —
// with no uncaught error or unhandled rejection in the page at any point. A second `npm start`
// serves the same build without building again. The port is the one addition to the command
// (`-- --port N`): 5173 may be taken on a shared machine.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect, test } from "./fixtures.ts";
import { freePort } from "../test/free-port.ts";
import { copyRepo, REPO, repoFiles } from "../test/repo-copy.ts";

/** The command under "## Two commands" that runs the playground, without its `npm install && `. */
function readmeRunCommand(): string {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Two commands"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1]?.trim() ?? "";
  expect(block).toMatch(/^npm install && /);
  return block.replace(/^npm install && /, "");
}

/** The repository as the next commit has it (tracked and new, not ignored files), node_modules linked. */
function freshCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "edge-start-")), "edge-web");
  copyRepo(repoFiles(true) ?? [], dir);
  return dir;
}

interface Served {
  child: ChildProcess;
  printed: () => string;
}

/** `command` in `cwd` through /bin/sh (its own process group, no desktop), once it answers at `url`. */
async function serve(command: string, cwd: string, url: string): Promise<Served> {
  const env: NodeJS.ProcessEnv = { ...process.env, BROWSER: "none" };
  delete env.EDGE_E2E_PAGES; // a person's build, not the test build with e2e pages
  const child = spawn("/bin/sh", ["-c", command], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const add = (t: string): void => void (out += t.replace(/\x1b\[[0-9;]*m/g, ""));
  child.stdout!.setEncoding("utf8").on("data", add);
  child.stderr!.setEncoding("utf8").on("data", add);
  await expect
    .poll(
      async () =>
        child.exitCode === null
          ? await fetch(url).then(
              (r) => r.status,
              () => 0,
            )
          : `exited: ${out}`,
      { timeout: 240_000, intervals: [500] },
    )
    .toBe(200);
  return { child, printed: () => out };
}

function stop(s: Served | undefined): void {
  if (s && s.child.exitCode === null) process.kill(-s.child.pid!, "SIGTERM");
}

// A fresh profile (e2e/fixtures.ts): the first visit, when the service worker installs, is what it is about.
test.use({ freshProfile: true });

test("the README's run command builds and serves the offline PWA; a second start reuses the build", async ({
  page,
  context,
}) => {
  test.setTimeout(480_000);
  const command = readmeRunCommand();
  expect(command).toBe("npm start");
  const copy = freshCopy();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const run = `${command} -- --port ${port} --strictPort --host 127.0.0.1`;
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`${e.name}: ${e.message}`));
  let served: Served | undefined;
  try {
    served = await serve(run, copy, url);
    expect(served.printed()).toContain("Building the playground into dist/");
    const response = await page.goto(url);
    expect(response?.headers()).toMatchObject({
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-embedder-policy": "require-corp",
    });
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 120_000 });
    await expect(page.locator("body")).toHaveAttribute("data-offline-ready", "1", { timeout: 120_000 });

    await context.setOffline(true);
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 120_000 });
    expect(await page.evaluate(() => [navigator.serviceWorker.controller !== null, crossOriginIsolated])).toEqual([
      true,
      true,
    ]);
    await expect(page.locator("#tools-status")).toContainText("Inspected tools.py: 5 tool(s)", { timeout: 120_000 });
    // A run, offline: the scripted engine calls fee_quote in the sandboxed runner and answers.
    await page
      .locator("#script")
      .fill(
        JSON.stringify([{ tool_name: "fee_quote", arguments: { amount: 250 } }, "The fee is {{tool_result.fee}} EUR."]),
      );
    await page.locator("#prompt").fill("What is the fee for 250?");
    await page.locator("#send").click();
    await expect(page.locator(".entry.answer .text").last()).toHaveText("The fee is 0.75 EUR.", { timeout: 120_000 });
    await expect(page.locator(".entry .receipt-line").last()).toContainText(/receipt #\d+/);
    await context.setOffline(false);
    expect(errors, "uncaught errors or unhandled rejections in the page").toEqual([]);

    // Stopped and started again with nothing changed: the same build is served at once.
    stop(served);
    await expect
      .poll(() => served!.child.exitCode !== null || served!.child.signalCode !== null, { timeout: 30_000 })
      .toBe(true);
    served = await serve(run, copy, url);
    expect(served.printed()).toContain("dist/ is up to date with the sources: serving it.");
    expect(served.printed()).not.toContain("Building the playground");
  } finally {
    stop(served);
    rmSync(dirname(copy), { recursive: true, force: true });
  }
});

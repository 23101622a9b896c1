// The README's command-line block runs as written, in a fresh copy of the repository: only the files
// git tracks (what a clone has — an example file that was never committed fails here), with this
// checkout's node_modules linked in (installing is CI's own first step). Each command goes to
// /bin/sh exactly as the README prints it (comments, `\` continuations, `&&` and `>` included).
// Marked stand-ins, each checked to still match a README line: `ID`/`TOKEN` come from the command
// before; `npm link` links `edge` into a scratch npm prefix whose bin folder is on PATH (never the
// machine's own); `example.org` pages are served by a local site with the same paths; `--model ./X.gguf`
// finds the generated test model at that path, run on one thread (random weights: plumbing, never quality; needs the
// optional runtime, which CI installs); `npm run setup:llama` is npm test's own first step.
import { cpSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTestModel } from "./fixtures/gguf.ts";
import { startSite, type Site } from "./fixtures/html-site.ts";
import { nodeLlamaAvailable } from "./engines/node-llama.ts";
import { joinedCommands } from "./shell-commands.ts";
import { runShell } from "./cli.ts";
import { copyRepo, REPO, repoFiles } from "./repo-copy.ts";

const README = readFileSync(join(REPO, "README.md"), "utf8");

/** The sh block of "## The command line", one command per entry (comment-only lines dropped). */
function readmeCommands(): string[] {
  const section = README.slice(README.indexOf("## The command line"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return joinedCommands(block.split("\n"), (line) => line.trim() !== "" && !line.trim().startsWith("#"));
}

type StandIn = "runtime_setup" | "model" | "site" | "pending";
/** The lines that cannot run as printed here, and why (each must match a README line). */
const STAND_INS: Array<{ kind: StandIn; match: RegExp }> = [
  { kind: "runtime_setup", match: /^npm run setup:llama\b/ },
  { kind: "model", match: /--model \.\/[\w.-]+\.gguf/ },
  { kind: "site", match: /https:\/\/example\.org\// },
  { kind: "pending", match: /\bconfirm ID --token TOKEN\b/ },
];
const standIn = (cmd: string): StandIn | undefined => STAND_INS.find((s) => s.match.test(cmd))?.kind;

const tracked = repoFiles();
const llama = await nodeLlamaAvailable();

const root = mkdtempSync(join(tmpdir(), "edge-readme-"));
const clone = join(root, "edge-web");
/** Where the README's `npm link` puts `edge` (npm's global prefix, as a user without root sets it). */
const npmPrefix = join(root, "npm-prefix");
const env: NodeJS.ProcessEnv = {
  ...process.env,
  EDGE_DATA_DIR: join(root, "data"),
  NPM_CONFIG_PREFIX: npmPrefix,
  PATH: `${join(npmPrefix, "bin")}${delimiter}${process.env.PATH ?? ""}`,
  npm_config_offline: "true",
  npm_config_update_notifier: "false",
};
let site: Site;

beforeAll(async () => {
  site = await startSite();
  if (tracked) copyRepo(tracked, clone);
});
afterAll(() => site?.close());

const sh = (command: string, stdin = "") => runShell(command, { cwd: clone, env, stdin });

const json = (text: string): any => JSON.parse(text);

describe.skipIf(!tracked)("the README's commands, as written, from a fresh copy", () => {
  const commands = readmeCommands();
  let pending: { id: string; token: string } | undefined;
  let startPageIds: string[] | undefined;

  it("every stand-in still matches a line of the README (none goes stale)", () => {
    expect(commands.length).toBeGreaterThan(15);
    for (const s of STAND_INS)
      expect(commands.filter((c) => s.match.test(c)).length, String(s.match)).toBeGreaterThan(0);
  });

  it("`npx edge`, the slower form the README mentions, is this package's bin in the copy", {
    timeout: 120_000,
  }, async () => {
    const r = await sh("npx edge --version");
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/^edge \d+\.\d+\.\d+\n$/);
  });

  for (const [i, command] of commands.entries()) {
    const kind = standIn(command);
    const skip = kind === "runtime_setup" || (kind === "model" && !llama);
    // Commands run in order: each may use what an earlier one wrote (receipts, a pending action, facts).
    it.skipIf(skip)(`${i + 1}: ${command.replace(/\s+/g, " ").slice(0, 110)}`, { timeout: 240_000 }, async () => {
      if (kind === "model") {
        const path = /--model \.\/([\w.-]+\.gguf)/.exec(command)![1]!;
        cpSync(writeTestModel().path, join(clone, path));
      }
      // llama.cpp's threads spin-wait for each other: on a shared machine one thread is many times faster.
      let text = kind === "model" ? command.replace(/(--model \S+)/, "$1 --threads 1") : command;
      if (kind === "site") text = text.replaceAll("https://example.org", site.origin);
      if (kind === "pending") text = text.replace("ID --token TOKEN", `${pending!.id} --token ${pending!.token}`);
      // The interactive session reads its prompts from stdin: one turn, then /exit.
      const r = await sh(text, command.includes("--interactive") ? "Quote the fee for 250.\n/exit\n" : "");
      const shown = `$ ${text}\n${r.out}${r.err}`;
      expect(r.err, shown).not.toMatch(/\n\s+at [^\n]+:\d+:\d+\)?\n/); // never a stack trace
      if (kind === "model" && !command.includes("--interactive")) {
        // Random weights: any outcome within the loop's rules (answered, or failed closed with a code).
        expect([0, 1], shown).toContain(r.code);
        expect(json(r.out).receipt).toMatchObject({ engine: "llamacpp" });
        return;
      }
      // A commit tool's call does not run: it ends pending (exit 1) and prints the confirm command.
      expect(r.code, shown).toBe(command.includes("submit_order") ? 1 : 0);
      await checkOutput(command, kind, r);
    });
  }

  async function checkOutput(
    command: string,
    kind: StandIn | undefined,
    r: { out: string; err: string },
  ): Promise<void> {
    if (command.startsWith("npm link")) {
      // The `edge` of every later line is the link into the scratch prefix, to this copy's launcher.
      const which = await sh('command -v edge && readlink -f "$(command -v edge)"');
      expect(which.out.split("\n").slice(0, 2)).toEqual([
        join(npmPrefix, "bin", "edge"),
        join(clone, "bin", "edge.cjs"),
      ]);
    }
    if (command.includes("fee_quote --args")) expect(json(r.out)).toMatchObject({ ok: true, result: { fee: 0.75 } });
    if (command.includes("--script public/examples/outputs.json")) {
      expect(json(r.out)).toMatchObject({
        ok: true,
        outcome: "answered",
        answer: "The fee for 250 on the basic tier is 0.75.",
      });
      expect(json(r.out).receipt.calls).toMatchObject([{ tool_name: "fee_quote", status: "ok" }]);
    }
    if (command.includes("submit_order")) {
      const out = json(r.out);
      expect(out).toMatchObject({ outcome: "pending_confirmation", error: { code: "tool_confirmation_required" } });
      pending = { id: out.pending_action.id, token: out.pending_action.confirmation_token };
    }
    if (kind === "pending")
      expect(json(r.out)).toMatchObject({
        ok: true,
        status: "done",
        result: { status: "submitted", draft_id: "D-KB-42-3" },
      });
    if (command.includes("receipts verify"))
      expect(r.out).toMatch(/^ok: receipts\.jsonl: \d+ receipt\(s\), chain intact\n$/);
    if (command.includes("facts list --store support")) expect(json(r.out).count).toBeGreaterThan(0);
    if (kind === "site") {
      const start = json(r.out).pages.find((p: { final_url: string }) => p.final_url === `${site.origin}/docs/`);
      const list = json((await sh("npx edge facts list --store docs --json")).out);
      const ids = list.facts
        .filter((f: { provenance?: { source_url: string } }) => f.provenance?.source_url === `${site.origin}/docs/`)
        .map((f: { fact_id: string }) => f.fact_id);
      expect(ids.length).toBe(start.facts);
      // The crawl of the page import-url imported updates it in place: the same ids, no second set.
      if (startPageIds) expect(ids).toEqual(startPageIds);
      startPageIds = ids;
    }
    if (command.includes("learn sample init")) expect(existsSync(join(clone, "my_sample.json"))).toBe(true);
    if (command.includes("learn_outputs.json"))
      expect(json(r.out)).toMatchObject({ ok: true, evaluation: { scored: 5, matched_with_prefix: 5 } });
    if (command.includes("workspace export")) expect(r.out).toMatch(/data\.csv\s+\d+\s+sha256:/);
    if (command.includes("workspace_outputs.json")) {
      expect(r.out).toContain("data.csv has 4 rows");
      expect(r.err).toMatch(/outcome: answered, tool calls: 1,/);
    }
  }
});

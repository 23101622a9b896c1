// How fast the `edge` command answers, as a user runs it, against `node -e 0` and against
// `python3 -c` calling the same Python function, all measured in the same run.
//
//   npm run bench:cli -- --json     → one JSON document on stdout (progress on stderr without --json)
//
// Every row is the wall time of a whole process, spawn to exit, with its exit code and output
// checked. `edge` is bin/edge.cjs executed as the installed command is (its `#!/usr/bin/env node`
// line; `npm link` puts a symlink to it on PATH); `npx edge` goes through npm's own start-up first
// (the "npx" rows: --version and a kept call, to show what that form costs per command). "warm" = the runner's memory snapshot is
// already cached in EDGE_DATA_DIR (every later run of a user); "first run" = an empty EDGE_DATA_DIR
// (the snapshot is made during the command). The CLI's own bundle is built before the rows are
// measured (a stale or missing bundle would be rebuilt by the first row); `cli_build_ms` is the
// cost of that build, into a scratch folder. One-shot commands are measured both ways: with the
// runner keeper a user gets by default (src/runner/keeper.ts; before each run the bench waits until
// the keeper has both runners booted again, as it has when a person types the next command) and
// with EDGE_RUNNER_KEEPER=0 (each command boots its own runners). The keeper only holds booted
// runners: every command runs in its own process and takes a kept runner. The keeper is the bench's own
// (its own XDG_RUNTIME_DIR) and is ended at the end. A call usually finds its discovery kept by
// the commands before (src/runner/discovery-cache.ts); the "after an edit" row changes the tools
// file before each run, so each of its calls discovers first.
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { appendFile, cp, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const JSON_ONLY = process.argv.includes("--json");
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin", "edge.cjs");
const TOOLS = join(ROOT, "public", "examples", "tools.py");
const PYTHON = "/usr/bin/python3"; // the real binary: a pyenv shim on PATH adds ≈ 270 ms
const ARGS = '{"amount": 250}';
const EXPECTED = { amount: 250, tier: "basic", rate: 0.003, fee: 0.75 };
/** The same function, called the way a Python user would from a one-liner. */
const PY_CALL = [
  "import sys, json",
  `sys.path[:0] = [${JSON.stringify(join(ROOT, "runner-pyodide"))}, ${JSON.stringify(join(ROOT, "public", "examples"))}]`,
  "import tools",
  `print(json.dumps(tools.calculate_fee(**json.loads(${JSON.stringify(ARGS)}))))`,
].join("\n");

const KEEPER_OFF = { EDGE_RUNNER_KEEPER: "0" };

/** The bench's keeper, once its two runners are booted (it starts after the first call). */
async function keeperReady(runtime: string): Promise<{ pid: number; served: number }> {
  const { keeperStatus } = await import("../src/runner/keeper-client.ts");
  const { keeperPathsOf } = await import("../src/runner/keeper-wire.ts");
  const dir = join(runtime, "edge-web");
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const sock = readdirSync(dir).find((f) => f.endsWith(".sock"));
    if (sock) {
      const status = await keeperStatus(keeperPathsOf(join(dir, sock)));
      if (status?.sparesReady === 2) return status;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the runner keeper did not get two runners ready within 120 s");
}

const log = (...a: unknown[]): void => {
  if (!JSON_ONLY) console.error(...a);
};

interface Ran {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
}

function timed(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    execFile(file, args, { env, cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const ms = performance.now() - t;
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      if (err && typeof err.code !== "number") return reject(err);
      resolve({ ms, code, stdout, stderr });
    });
  });
}

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i]!;
}
const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

interface Row {
  name: string;
  command: string;
  n: number;
  p50_ms: number;
  min_ms: number;
  max_ms: number;
  samples_ms: number[];
}

/** `n` runs of one command (`env` may differ per run); every run must pass `check`. */
async function measure(
  name: string,
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv | ((i: number) => NodeJS.ProcessEnv),
  n: number,
  check: (r: Ran) => string | undefined,
  before?: () => Promise<unknown>,
): Promise<Row> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    await before?.();
    const r = await timed(file, args, typeof env === "function" ? env(i) : env);
    const problem = check(r);
    if (problem)
      throw new Error(
        `${name}: ${problem} (exit ${r.code})\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr.slice(0, 2000)}`,
      );
    samples.push(r.ms);
  }
  const row = {
    name,
    command: [
      file === BIN ? "edge" : file,
      ...args.map((a) => (a.includes(" ") || a.includes("\n") ? JSON.stringify(a) : a)),
    ]
      .join(" ")
      .replace(ROOT, ""),
    n,
    p50_ms: round(pct(samples, 50)),
    min_ms: round(Math.min(...samples)),
    max_ms: round(Math.max(...samples)),
    samples_ms: samples.map((s) => round(s, 0)),
  };
  log(`${name.padEnd(28)} p50 ${String(row.p50_ms).padStart(8)} ms  [${row.samples_ms.join(", ")}]`);
  return row;
}

function mergeInto(row: Row, more: Row): void {
  row.samples_ms.push(...more.samples_ms);
  row.n += more.n;
  row.p50_ms = round(pct(row.samples_ms, 50));
  row.min_ms = Math.min(row.min_ms, more.min_ms);
  row.max_ms = Math.max(row.max_ms, more.max_ms);
}

const exitIs =
  (code: number, also?: (r: Ran) => string | undefined) =>
  (r: Ran): string | undefined =>
    r.code !== code ? `expected exit ${code}` : also?.(r);
const sameResult = (text: string): string | undefined => {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(EXPECTED) ? undefined : "unexpected result";
  } catch {
    return "no JSON result";
  }
};

async function cliBuildMs(): Promise<number | null> {
  // The build the launcher runs on a miss, into a scratch folder (the real cache stays as it is).
  const dir = await mkdtemp(join(tmpdir(), "edge-cli-build-bench-"));
  try {
    const { buildCli } = (await import(join(ROOT, "scripts", "build-cli.mjs"))) as {
      buildCli(o: { outDir: string }): Promise<unknown>;
    };
    const t = performance.now();
    await buildCli({ outDir: dir });
    return round(performance.now() - t, 0);
  } catch {
    return null; // no build step (the tsx launcher this bench also measures as a baseline)
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const load_before = loadavg().map((l) => round(l, 2));
  const data = await mkdtemp(join(tmpdir(), "edge-cli-bench-"));
  const runtime = join(data, "runtime");
  mkdirSync(runtime, { mode: 0o700 });
  const env = { ...process.env, EDGE_DATA_DIR: join(data, "warm"), XDG_RUNTIME_DIR: runtime, EDGE_RUNNER_KEEPER: "1" };
  // A copy of the examples' project whose tools file the "after an edit" row changes before each run.
  await cp(join(ROOT, "public", "examples"), join(data, "edited"), { recursive: true });
  const edited = join(data, "edited", "tools.py");
  const rows: Row[] = [];
  let keeperPid: number | undefined;
  try {
    // The launcher's own bundle and the snapshot cache: made once, outside the measured rows.
    const prime = await timed(BIN, ["tools", "validate", TOOLS], env);
    if (prime.code !== 0) throw new Error(`priming run failed: ${prime.stderr}`);
    log(`priming run (bundle + snapshot) ${Math.round(prime.ms)} ms`);

    const nodeE0 = await measure("node -e 0", "node", ["-e", "0"], env, 10, exitIs(0));
    const pyCall = await measure(
      "python3 -c (same function)",
      PYTHON,
      ["-c", PY_CALL],
      env,
      10,
      exitIs(0, (r) => sameResult(r.stdout)),
    );
    rows.push(nodeE0, pyCall);

    const version = await measure(
      "edge --version",
      BIN,
      ["--version"],
      env,
      10,
      exitIs(0, (r) => (r.stdout.startsWith("edge ") ? undefined : "no version")),
    );
    const help = await measure(
      "edge --help",
      BIN,
      ["--help"],
      env,
      10,
      exitIs(0, (r) => (r.stdout.includes("Commands:") ? undefined : "no help")),
    );
    const typo = await measure(
      "edge tols (mistyped)",
      BIN,
      ["tols"],
      env,
      10,
      exitIs(2, (r) => (r.stderr.includes("Unknown command") ? undefined : "no usage error")),
    );
    const npx = await measure("npx edge --version", "npx", ["edge", "--version"], env, 5, exitIs(0));
    const valid = exitIs(0, (r) => (r.stdout.startsWith("valid:") ? undefined : "not valid"));
    const offEnv = { ...env, ...KEEPER_OFF };
    const validateOwn = await measure(
      "edge tools validate (warm, no keeper)",
      BIN,
      ["tools", "validate", TOOLS],
      offEnv,
      5,
      valid,
    );
    // A new, empty data folder each time: no snapshot cached yet.
    const validateFirst = await measure(
      "edge tools validate (first)",
      BIN,
      ["tools", "validate", TOOLS],
      (i) => ({ ...offEnv, EDGE_DATA_DIR: join(data, `first-${i}`) }),
      3,
      exitIs(0),
    );
    const callArgs = ["tools", "call", TOOLS, "fee_quote", "--args", ARGS];
    const callOwn = await measure(
      "edge tools call (no keeper)",
      BIN,
      callArgs,
      offEnv,
      5,
      exitIs(0, (r) => sameResult(r.stdout)),
    );
    // The first call with the keeper on finds none and starts it when it ends.
    const starter = await timed(BIN, callArgs, env);
    if (starter.code !== 0) throw new Error(`the call that starts the keeper failed: ${starter.stderr}`);
    let served = 0;
    const ready = async (): Promise<void> => void ({ pid: keeperPid, served } = await keeperReady(runtime));
    const validate = await measure(
      "edge tools validate (warm, keeper)",
      BIN,
      ["tools", "validate", TOOLS],
      env,
      5,
      valid,
      ready,
    );
    await ready();
    const servedBefore = served;
    const call = await measure(
      "edge tools call (keeper)",
      BIN,
      callArgs,
      env,
      10,
      exitIs(0, (r) => sameResult(r.stdout)),
      ready,
    );
    await ready();
    if (served - servedBefore < call.n)
      throw new Error(
        `the keeper served ${served - servedBefore} runners to ${call.n} calls: the row would not measure what it names`,
      );
    // The same call in the README's older form: npm's own start before the same command.
    const npxCall = await measure(
      "npx edge tools call (keeper)",
      "npx",
      ["edge", ...callArgs],
      env,
      5,
      exitIs(0, (r) => sameResult(r.stdout)),
      ready,
    );
    // After an edit: the tools file's bytes are new, so no kept discovery answers and the call
    // discovers first (two runners, as every call did before discoveries were kept).
    let edits = 0;
    const editedArgs = ["tools", "call", edited, "fee_quote", "--args", ARGS];
    const edit = async (): Promise<void> => {
      await appendFile(edited, `# edit ${++edits}\n`);
      await ready();
    };
    const callEdited = await measure(
      "edge tools call after an edit (keeper)",
      BIN,
      editedArgs,
      env,
      5,
      exitIs(0, (r) => sameResult(r.stdout)),
      edit,
    );
    rows.push(version, help, typo, npx, validateOwn, validate, validateFirst, callOwn, call, npxCall, callEdited);
    // The baselines once more at the end: a load that changed during the run moves both sides.
    mergeInto(nodeE0, await measure("node -e 0 (again)", "node", ["-e", "0"], env, 10, exitIs(0)));
    mergeInto(
      pyCall,
      await measure(
        "python3 -c (again)",
        PYTHON,
        ["-c", PY_CALL],
        env,
        10,
        exitIs(0, (r) => sameResult(r.stdout)),
      ),
    );

    const build = await cliBuildMs();
    const nodeP50 = nodeE0.p50_ms;
    const pyP50 = pyCall.p50_ms;
    const ratio = (row: Row, base: number): number => round(row.p50_ms / base, 2);
    const goals = {
      version_within_2x_node: ratio(version, nodeP50) <= 2,
      help_within_4x_node: ratio(help, nodeP50) <= 4,
      call_warm_within_300_ms: call.p50_ms <= 300,
      validate_warm_within_1200_ms: validate.p50_ms <= 1200,
    };
    const result = {
      bench: "cli",
      node: process.versions.node,
      python: (await timed(PYTHON, ["--version"], env)).stdout.trim(),
      load_before,
      load_after: loadavg().map((l) => round(l, 2)),
      baseline_node_e0_p50_ms: nodeP50,
      baseline_python_c_p50_ms: pyP50,
      ratio_version_vs_node: ratio(version, nodeP50),
      ratio_help_vs_node: ratio(help, nodeP50),
      ratio_mistyped_vs_node: ratio(typo, nodeP50),
      ratio_npx_version_vs_node: ratio(npx, nodeP50),
      // What `npx edge` adds to every command over `edge` on PATH (npm link): docs/cli.md.
      npx_version_p50_ms: npx.p50_ms,
      version_p50_ms: version.p50_ms,
      npx_call_p50_ms: npxCall.p50_ms,
      ratio_npx_call_vs_call: ratio(npxCall, call.p50_ms),
      ratio_call_vs_python: ratio(call, pyP50),
      ratio_call_no_keeper_vs_python: ratio(callOwn, pyP50),
      ratio_call_after_edit_vs_python: ratio(callEdited, pyP50),
      ratio_call_vs_node: ratio(call, nodeP50),
      validate_warm_p50_ms: validate.p50_ms,
      validate_warm_no_keeper_p50_ms: validateOwn.p50_ms,
      validate_first_run_p50_ms: validateFirst.p50_ms,
      call_one_shot_p50_ms: call.p50_ms,
      call_one_shot_no_keeper_p50_ms: callOwn.p50_ms,
      call_after_edit_p50_ms: callEdited.p50_ms,
      cli_build_ms: build,
      goals,
      goals_missed: Object.entries(goals)
        .filter(([, met]) => !met)
        .map(([name]) => name),
      rows,
      method:
        "wall time of each whole process (spawn to exit, output and exit code checked), p50 of n runs, all rows in one run; edge = bin/edge.cjs executed through its shebang; python3 -c imports public/examples/tools.py (with runner-pyodide on sys.path for edgestudio.tools) and prints calculate_fee(amount=250) as JSON; keeper rows wait, before each run, until the bench's runner keeper has two runners booted; each command runs in its own process and takes its runners from the keeper (checked for the call row); tools call (keeper) finds the discovery the validate rows kept (src/runner/discovery-cache.ts), the after-an-edit row appends a comment to a copy of the examples' tools.py before each run, so it discovers first",
    };
    console.log(JSON.stringify(result, null, JSON_ONLY ? undefined : 2));
  } finally {
    if (keeperPid) process.kill(keeperPid, "SIGTERM");
    await rm(data, { recursive: true, force: true });
  }
}

await main();

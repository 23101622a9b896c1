// The house plan, enforced (docs/architecture.md): no production module imports from a higher
// layer, no file over 400 lines and no function over 120 lines unless an entry below says why, and
// no plain `new Error(` where a person could meet the failure (they get an EdgeError of the table).
// Test files (*.test.ts, *.test-helpers.ts) are not checked: a test assembles the layers it exercises.
// An allow-list entry that no longer matches anything fails too, so the lists only shrink.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { layerOf, layerViolations, productionModules, readModule, type Layer } from "./architecture.ts";

const ROOT = path.resolve(new URL("../", import.meta.url).pathname);

/**
 * Bottom to top. A module may import its own folder and any layer below its own; folders that share
 * a layer are peers and do not import each other. A path ending in "/" is a folder, else one file;
 * the longest matching path decides a file's layer.
 */
const LAYERS: readonly Layer[] = [
  { name: "contract", paths: ["src/contract/"] }, // schemas, canonical JSON, hashes, the error table
  { name: "platform", paths: ["src/platform/"] }, // Node file helpers, the storage error every store maps to, the bounded zip reader
  { name: "runtime", paths: ["src/runtime/"] }, // ToolRuntime: registry, defineTool, pipeline
  // The one seam between the runner and its workers: the messages, their byte framing on a Node
  // runner's pipe, and the bound on printed output that both sides apply.
  { name: "protocol", paths: ["workers/protocol.ts", "workers/frames.ts", "workers/bounded-text.ts"] },
  { name: "blobs", paths: ["src/blobs/"] }, // large files on the device (own database: not the one schema)
  { name: "engines", paths: ["src/engines/"] },
  { name: "packages", paths: ["src/packages/"] },
  { name: "runner", paths: ["src/runner/"] },
  { name: "toolset", paths: ["src/toolset/"] },
  { name: "builtins", paths: ["src/builtins/"] },
  { name: "receipts", paths: ["src/receipts/"] }, // types, chain, the store seam and its non-IndexedDB stores
  { name: "idb", paths: ["src/idb/"] }, // the one IndexedDB schema: it names every stored record type
  { name: "chat", paths: ["src/chat/"] },
  { name: "confirm", paths: ["src/confirm/"] },
  { name: "facts", paths: ["src/facts/"] },
  { name: "imprint", paths: ["src/imprint/"] },
  { name: "mcp", paths: ["src/mcp/"] },
  {
    // The features' adapters over the one schema: above src/idb and above the feature they store.
    name: "idb stores",
    paths: [
      "src/receipts/store-idb.ts",
      "src/confirm/store-idb.ts",
      "src/facts/store-idb.ts",
      "src/imprint/store-idb.ts",
      "src/builtins/vfs/store-idb.ts",
    ],
  },
  { name: "workers", paths: ["workers/"] }, // worker entry points: they host engines and the runner's browser side
  // One composition root per environment: stores, purging, the runner host, the broker, engines, tools.
  { name: "assembly", paths: ["src/assembly/"] },
  { name: "front doors", paths: ["src/app/", "src/widget/", "src/cli/"] },
  { name: "public API", paths: ["src/index.ts"] },
  { name: "entry points", paths: ["src/browser.ts", "src/node.ts"] },
];

/** Upward imports that stay for now, each with its reason (none today: keep it that way). */
const UPWARD_ALLOWED: readonly { from: string; to: string; reason: string }[] = [];

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 120;

/** Files over MAX_FILE_LINES today, and why they may be. */
const LONG_FILES_ALLOWED: Readonly<Record<string, string>> = {};

/** Functions over MAX_FUNCTION_LINES today ("file name"), and why they may be. */
const LONG_FUNCTIONS_ALLOWED: Readonly<Record<string, string>> = {};

/**
 * The plain `new Error(` left in production code: each is caught and wrapped (or swallowed) before a
 * person sees it, or is not Edge's to code. Every other failure is an EdgeError with a code of
 * src/contract/error-table.ts. An entry names its file and a snippet of each line it covers (no line numbers).
 */
const PLAIN_ERRORS_ALLOWED: readonly { file: string; lines: readonly string[]; reason: string }[] = [
  // ── storage: wrapped into storage_failed ──
  {
    file: "src/facts/store-node.ts",
    lines: ['throw new Error("unexpected content")'],
    reason: "caught by read() and rethrown as storage_failed (corrupt facts store file)",
  },
  {
    file: "src/builtins/vfs/store-node.ts",
    lines: ['throw new Error("unexpected content")'],
    reason: "caught by read() and rethrown as storage_failed (corrupt workspace snapshot)",
  },
  {
    file: "src/packages/store-node.ts",
    lines: ["toStorageError(new Error(`not a wheel file name"],
    reason: "wrapped on the spot by toStorageError (storage_failed)",
  },
  {
    file: "src/packages/store-cache.ts",
    lines: ["toStorageError(new Error(`not a wheel file name"],
    reason: "wrapped on the spot by toStorageError (storage_failed)",
  },
  {
    file: "src/blobs/store-opfs.ts",
    lines: ['writeError(new Error("the stored file vanished")'],
    reason: "wrapped on the spot by writeError (storage_failed)",
  },
  {
    file: "src/blobs/store-idb.ts",
    lines: ['writeError(new Error("the stored chunks do not add up'],
    reason: "wrapped on the spot by writeError (storage_failed)",
  },
  // ── caught where they are thrown ──
  {
    file: "src/contract/ajv.ts",
    lines: ["throw new Error(`schema is invalid: "],
    reason:
      "ajv's own error for a schema the meta-schema refuses, in ajv's words (the path ajv.compile takes throws the same); every compileSchema caller catches it (schemaCompileError, validateAgainst) and names the schema's problem",
  },
  {
    file: "src/builtins/vfs/store-dir.ts",
    lines: ['throw new Error("not a directory")'],
    reason: "caught by openDirVfs, which throws its own EdgeError naming --workspace",
  },
  {
    file: "src/imprint/transfer.ts",
    lines: ['throw new Error("missing")'],
    reason: "caught by parseImprintExport and rethrown as imprint_state_corrupted",
  },
  {
    file: "src/runner/keeper-wire.ts",
    lines: ["a keeper record of type"],
    reason:
      "every RecordReader.push caller catches it and drops the connection (the client then boots its own runners)",
  },
  {
    file: "src/runner/keeper.ts",
    lines: ["the keeper's spec is not a boot", 'throw new Error("not a hello")'],
    reason:
      "inside the detached keeper process: the spec is the client's own file, a bad hello is caught and the socket dropped",
  },
  {
    file: "src/app/schema-fields.ts",
    lines: [
      "not valid JSON (",
      "is not a number`",
      "is not true or false",
      "is required`",
      "${name}: ${(err as Error).message}",
    ],
    reason: "caught by schema-form's reader: each message is one line of the form's problem list, nothing is called",
  },
  // ── the runner's boot: the pool reports runner_boot_failed (or runner_crashed) with the message as its reason ──
  {
    file: "src/runner/pool-spares.ts",
    lines: ["the runner died after boot"],
    reason: "thrown from acquire(), which runJob catches: runner_boot_failed",
  },
  {
    file: "src/runner/pool-runner.ts",
    lines: ["new Error(reason)"],
    reason: "rejects the runner's ready, which runJob catches: runner_boot_failed",
  },
  {
    file: "src/runner/node-process.ts",
    lines: ["ended before it started"],
    reason: "a failed spawn ends the runner (exit reason), which the pool reports as runner_boot_failed",
  },
  {
    file: "src/runner/runner-plan.ts",
    lines: ["bundling the runner entry produced no output"],
    reason: "a failed spawn ends the runner (exit reason), which the pool reports as runner_boot_failed",
  },
  {
    file: "src/runner/pool-snapshot.ts",
    lines: ['reject(new Error("closed"))', "snapshot boot timed out", "snapshot worker: ", "snapshot worker exited"],
    reason: "fromMaker's rejections are swallowed by make(): no snapshot, runners boot plainly",
  },
  {
    file: "src/runner/browser/sandbox.ts",
    lines: ["runner sandbox was disposed", "failJob(job, new Error(message))"],
    reason: "reached through the pool's spawn or job: runner_boot_failed / runner_crashed",
  },
  {
    file: "src/runner/browser/frame-script.ts",
    lines: ['throw new Error("not initialised")'],
    reason: "text of the sandbox frame's script: caught there and sent as worker-error (runner_crashed)",
  },
  {
    file: "src/runner/browser/pyodide-from-bytes.ts",
    lines: [
      "sandboxed runner needs Pyodide as bytes",
      "Pyodide lock file missing",
      "Pyodide file missing",
      "Pyodide wasm missing",
    ],
    reason: "worker side: the boot fails with a fatal message, the host reports runner_boot_failed",
  },
  {
    file: "workers/runner-boot.ts",
    lines: ["edge_runner lacks discover/call", "the rehearsal call failed", "bad python file path"],
    reason: "worker side: runner-core catches the boot and posts fatal, the host reports runner_boot_failed",
  },
  {
    file: "workers/runner-mounts.ts",
    lines: ["bad project mount point", "bad path ${", "is both a file and a folder", "given twice"],
    reason: "worker side: caught by runner-core/runner-jobs and posted as fatal (runner_boot_failed / runner_crashed)",
  },
  {
    file: "workers/runner.node-process.ts",
    lines: [
      "cannot be booted: ",
      "does not match the signed index",
      "it is shorter than its size",
      "loads Pyodide from an indexURL",
    ],
    reason: "worker side: a refused snapshot or assets fail the boot, the host reports runner_boot_failed",
  },
  {
    file: "workers/runner.node-process.ts",
    lines: ["is not allowed in an Edge runner"],
    reason: "mimics Node's own ERR_ACCESS_DENIED for tool code, on purpose",
  },
  {
    file: "workers/hmac-sha256.ts",
    lines: ['throw new Error("the HMAC key is not hex")'],
    reason: "worker side, on the pool's own secret: a throw fails the job in the worker (fatal → runner_crashed)",
  },
  // ── engines ──
  {
    file: "workers/llm-worker-core.ts",
    lines: [
      "has no loadedModelIdToPipeline map",
      "no tokenizer for the loaded model",
      "web-llm is not loaded in the worker yet",
    ],
    reason: "caught by answer() and sent as edge.tokens' error; the page's bridge makes it generation_failed",
  },
  {
    file: "src/engines/llamacpp/browser/page-model.ts",
    lines: ["wllama's cache is not used"],
    reason:
      "wllama's cache write, never reached (Edge hands it a Blob); inside wllama's load, reported as model_load_failed",
  },
  // ── front doors ──
  {
    file: "src/app/dom.ts",
    lines: ["missing from index.html"],
    reason: "a build bug (index.html and the code disagree), not a failure a person can fix",
  },
];

const modules = productionModules(ROOT).map((file) => readModule(ROOT, file));

describe("the layers (docs/architecture.md)", () => {
  it("every layer path exists and every production module is in a layer", () => {
    expect(LAYERS.flatMap((l) => l.paths).filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
    expect(modules.map((m) => m.file).filter((f) => !layerOf(LAYERS, f))).toEqual([]);
  });

  it("no module imports from a higher layer or a peer (static, dynamic and type imports)", () => {
    const allowed = (v: { from: string; to: string }): boolean =>
      UPWARD_ALLOWED.some((a) => a.from === v.from && a.to === v.to);
    const found = layerViolations(LAYERS, modules);
    expect(found.filter((v) => !allowed(v)).map((v) => `${v.from}:${v.line} imports ${v.to}: ${v.why}`)).toEqual([]);
    // An allowance that matches nothing any more is removed, not kept "just in case".
    expect(
      UPWARD_ALLOWED.filter((a) => !found.some((v) => v.from === a.from && v.to === a.to)).map(
        (a) => `${a.from} -> ${a.to}`,
      ),
    ).toEqual([]);
  });
});

describe("sizes", () => {
  it(`no file over ${MAX_FILE_LINES} lines without a reason`, () => {
    const long = modules.filter((m) => m.lines > MAX_FILE_LINES);
    expect(long.filter((m) => !(m.file in LONG_FILES_ALLOWED)).map((m) => `${m.file}: ${m.lines} lines`)).toEqual([]);
    expect(Object.keys(LONG_FILES_ALLOWED).filter((f) => !long.some((m) => m.file === f))).toEqual([]);
  });

  it(`no function over ${MAX_FUNCTION_LINES} lines without a reason`, () => {
    const long = modules.flatMap((m) => m.functions).filter((f) => f.lines > MAX_FUNCTION_LINES);
    const key = (f: { file: string; name: string }): string => `${f.file} ${f.name}`;
    expect(
      long
        .filter((f) => !(key(f) in LONG_FUNCTIONS_ALLOWED))
        .map((f) => `${f.file}:${f.line} ${f.name}: ${f.lines} lines`),
    ).toEqual([]);
    expect(Object.keys(LONG_FUNCTIONS_ALLOWED).filter((k) => !long.some((f) => key(f) === k))).toEqual([]);
  });
});

describe("errors (src/contract/errors.ts)", () => {
  it("no plain `new Error(` in production code a person could meet: an EdgeError with a code, or an allow-listed reason", () => {
    const sites = productionModules(ROOT).flatMap((file) =>
      readFileSync(path.join(ROOT, file), "utf8")
        .split("\n")
        .map((text, i) => ({ file, line: i + 1, text }))
        .filter((l) => /\bnew Error\(/.test(l.text)),
    );
    const snippets = PLAIN_ERRORS_ALLOWED.flatMap((a) => a.lines.map((snippet) => ({ file: a.file, snippet })));
    const allowed = (s: { file: string; text: string }): boolean =>
      snippets.some((a) => a.file === s.file && s.text.includes(a.snippet));
    expect(sites.filter((s) => !allowed(s)).map((s) => `${s.file}:${s.line}: ${s.text.trim()}`)).toEqual([]);
    // A snippet that matches no line any more is removed, so the list only shrinks.
    expect(
      snippets
        .filter((a) => !sites.some((s) => s.file === a.file && s.text.includes(a.snippet)))
        .map((a) => `${a.file}: ${a.snippet}`),
    ).toEqual([]);
  });
});

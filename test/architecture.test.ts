// The house plan, enforced (docs/architecture.md): no production module imports from a higher
// layer, no file over 400 lines and no function over 120 lines unless an entry below says why.
// Test files (*.test.ts, *.test-helpers.ts) are not checked: a test assembles the layers it exercises.
// An allow-list entry that no longer matches anything fails too, so the lists only shrink.
import { existsSync } from "node:fs";
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
  { name: "store", paths: ["src/store/"] }, // the one IndexedDB schema: it names every stored record type
  { name: "chat", paths: ["src/chat/"] },
  { name: "confirm", paths: ["src/confirm/"] },
  { name: "facts", paths: ["src/facts/"] },
  { name: "imprint", paths: ["src/imprint/"] },
  { name: "mcp", paths: ["src/mcp/"] },
  {
    // The features' adapters over the one schema: above src/store and above the feature they store.
    name: "idb stores",
    paths: ["src/receipts/store-idb.ts", "src/confirm/store-idb.ts", "src/facts/store-idb.ts", "src/imprint/store-idb.ts", "src/builtins/vfs/store-idb.ts"],
  },
  { name: "workers", paths: ["workers/"] }, // worker entry points: they host engines and the runner's browser side
  { name: "front doors", paths: ["src/app/", "src/widget/", "src/cli/"] },
  { name: "public API", paths: ["src/index.ts"] },
  { name: "entry points", paths: ["src/browser.ts", "src/node.ts"] },
];

/** Upward imports that stay for now, each with its reason (none today: keep it that way). */
const UPWARD_ALLOWED: readonly { from: string; to: string; reason: string }[] = [];

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 120;

/** Files over MAX_FILE_LINES today, and why they may be. */
const LONG_FILES_ALLOWED: Readonly<Record<string, string>> = {
};

/** Functions over MAX_FUNCTION_LINES today ("file name"), and why they may be. */
const LONG_FUNCTIONS_ALLOWED: Readonly<Record<string, string>> = {
};

const modules = productionModules(ROOT).map((file) => readModule(ROOT, file));

describe("the layers (docs/architecture.md)", () => {
  it("every layer path exists and every production module is in a layer", () => {
    expect(LAYERS.flatMap((l) => l.paths).filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
    expect(modules.map((m) => m.file).filter((f) => !layerOf(LAYERS, f))).toEqual([]);
  });

  it("no module imports from a higher layer or a peer (static, dynamic and type imports)", () => {
    const allowed = (v: { from: string; to: string }): boolean => UPWARD_ALLOWED.some((a) => a.from === v.from && a.to === v.to);
    const found = layerViolations(LAYERS, modules);
    expect(found.filter((v) => !allowed(v)).map((v) => `${v.from}:${v.line} imports ${v.to}: ${v.why}`)).toEqual([]);
    // An allowance that matches nothing any more is removed, not kept "just in case".
    expect(UPWARD_ALLOWED.filter((a) => !found.some((v) => v.from === a.from && v.to === a.to)).map((a) => `${a.from} -> ${a.to}`)).toEqual([]);
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
    expect(long.filter((f) => !(key(f) in LONG_FUNCTIONS_ALLOWED)).map((f) => `${f.file}:${f.line} ${f.name}: ${f.lines} lines`)).toEqual([]);
    expect(Object.keys(LONG_FUNCTIONS_ALLOWED).filter((k) => !long.some((f) => key(f) === k))).toEqual([]);
  });
});

// The Node RunnerHost end to end: real Pyodide in real runner processes, the real edge_runner package.
// One host (with spares and a snapshot) is shared by the file to keep its runtime reasonable.
import { createHash } from "node:crypto";
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Bytes, sha256Json, utf8, type Sha256 } from "../contract/hash.ts";
import { SCHEMA_GENERATOR_VERSION, type JsonObject } from "../contract/types.ts";
import type { CallOutcome } from "./host.ts";
import {
  createNodeRunnerHost,
  diskSnapshotStore,
  fileSource,
  readRunnerPythonFiles,
  snapshotIndexFile,
  snapshotKey,
  snapshotKeyFile,
} from "./node.ts";
import type { PoolRunnerHost } from "./pool.ts";
import { FAULT_TOOLS } from "../../test/fixtures/fault-tools.ts";

const TOOLS = `${FAULT_TOOLS}
COUNT = 0
print("TOPLEVEL-RAN")

def _frame(msg):
    # The runner protocol's framing (workers/frames.ts): u32 length of the rest, u32 JSON length, JSON.
    import struct
    body = json.dumps(msg).encode()
    return struct.pack(">II", 4 + len(body), len(body)) + body

@edge_tool
def forge() -> dict:
    """Writes forged replies straight onto the runner's private channel (fd 3)."""
    import hashlib, js
    from pyodide.ffi import to_js
    result = {"forged": True}
    text = json.dumps(result, separators=(",", ":"))
    reply = json.dumps({"ok": True, "result": result, "stderr": "", "tools_file_sha256_verified": True,
                        "result_sha256": "sha256:" + hashlib.sha256(text.encode()).hexdigest()})
    fs = js.process.getBuiltinModule("fs")
    for job_id in ("0" * 32, ""):
        fs.writeSync(3, to_js(_frame({"type": "done", "jobId": job_id, "reply": reply, "hmac": "0" * 64})))
    return {"honest": True}

@edge_tool
def garble() -> dict:
    """Writes bytes that are no frame at all onto the channel."""
    import js
    from pyodide.ffi import to_js
    js.process.getBuiltinModule("fs").writeSync(3, to_js(b"\\xff" * 16 + b"not a frame"))
    return {"honest": True}

@edge_tool
def runtime_view() -> dict:
    """What a spare's warm-up and clean-up could have left where tool code looks."""
    import js, linecache, pyodide_js
    return {"gc": hasattr(js, "gc"), "snapshot_kept": pyodide_js._api.config._loadSnapshot is not None,
            "rehearsal_left": "<rehearsal>" in linecache.cache or "rehearse" in dir(sys.modules.get("__main__"))}

@edge_tool
def snapshot_file(path: str) -> dict:
    """What tool code can do with the file its runner booted from (src/runner/node-snapshot-file.ts)."""
    import js
    fs = js.process.getBuiltinModule("fs")
    out = {}
    def read():
        fd = fs.openSync(path, "r")
        size = fs.fstatSync(fd).size
        fs.closeSync(fd)
        return size
    for what, act in (("read", read), ("write", lambda: fs.writeFileSync(path, "x")),
                      ("remove", lambda: fs.rmSync(path)), ("sibling", lambda: fs.writeFileSync(path + ".new", "x"))):
        try:
            out[what] = act()
        except Exception as err:
            out[what] = getattr(err, "code", str(err))
    return out

@edge_tool
def bump() -> dict:
    global COUNT
    COUNT += 1
    import builtins
    leaked = getattr(builtins, "_edge_leak", 0)
    builtins._edge_leak = leaked + 1
    return {"count": COUNT, "leaked": leaked, "modules": sorted(sys.modules)}

@edge_tool
def draw() -> dict:
    import random
    return {"x": random.random()}
`;

let dir: string;
let cacheDir: string;
let toolsPath: string;
let bytes: Uint8Array;
let sha: Sha256;
let host: PoolRunnerHost;
let shapeSchema: JsonObject | null = null;

const FAST = 2_000; // timeout for the runaway tools; the normal calls keep the 10 s default

function call(
  toolName: string,
  args: JsonObject = {},
  extra: { timeoutMs?: number; outputSchema?: JsonObject | null; h?: PoolRunnerHost } = {},
): Promise<CallOutcome> {
  return (extra.h ?? host).call({
    bytes,
    expectedSha256: sha,
    filename: "tools.py",
    toolName,
    args,
    outputSchema: extra.outputSchema ?? null,
    ...(extra.timeoutMs ? { timeoutMs: extra.timeoutMs } : {}),
  });
}

async function expectNextCallWorks(): Promise<void> {
  const next = await call("add", { a: 40, b: 2 });
  expect(next.error).toBeUndefined();
  expect(next.ok).toBe(true);
  expect(next.result).toEqual({ sum: 42 });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "edge-runner-test-"));
  cacheDir = join(dir, "cache");
  toolsPath = join(dir, "tools.py");
  await writeFile(toolsPath, TOOLS);
  bytes = await fileSource(toolsPath).read();
  sha = await sha256Bytes(bytes);
  host = createNodeRunnerHost({ cacheDir, spares: 2 });
  await host.warm(); // builds the snapshot in the background worker, then boots spares from it
}, 120_000);

afterAll(async () => {
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("discovery", () => {
  it("lists the file's tools with schemas and the frozen hash", async () => {
    const d = await host.discover({ bytes, expectedSha256: sha, filename: "tools.py" });
    expect(d.errors).toEqual([]);
    expect(d.ok).toBe(true);
    expect(d.tools_file_sha256).toBe(sha);
    expect(d.schema_generator_version).toBe(SCHEMA_GENERATOR_VERSION);
    const names = d.tools.map((t) => t.schema.name);
    expect(names.slice(0, 3)).toEqual(["add", "fault", "shaped"]);
    const add = d.tools[0]!;
    expect(add.schema.description).toBe("Add two integers.");
    expect(add.schema.parameters).toEqual({
      type: "object",
      properties: { a: { type: "integer" }, b: { type: "integer" } },
      required: ["a", "b"],
      additionalProperties: false,
    });
    expect(d.stderr).toContain("TOPLEVEL-RAN");
    shapeSchema = d.tools.find((t) => t.schema.name === "shaped")!.schema.output_schema;
    expect(shapeSchema).not.toBeNull();
  });

  it("refuses bytes that do not match the frozen hash without running top-level code", async () => {
    const wrong = await sha256Bytes(utf8("something else"));
    const d = await host.discover({ bytes, expectedSha256: wrong, filename: "tools.py" });
    expect(d.ok).toBe(false);
    expect(d.errors.map((e) => e.code)).toEqual(["tools_file_changed"]);
    expect(d.tools).toEqual([]);
    expect(d.stderr).not.toContain("TOPLEVEL-RAN");
  });
});

describe("a call", () => {
  it("returns the verified result with its hash and a verified runner secret", async () => {
    const out = await call("add", { a: 2, b: 3 });
    expect(out.error).toBeUndefined();
    expect(out.ok).toBe(true);
    expect(out.result).toEqual({ sum: 5 });
    expect(out.result_sha256).toBe(await sha256Json({ sum: 5 }));
    expect(out.tools_file_sha256_verified).toBe(true);
    expect(out.runner_secret_verified).toBe(true);
    expect(out.stderr).toContain("adding 2 3");
    expect(out.callId).toMatch(/^call_[0-9a-f]+$/);
  });

  it("refuses a file edited between freeze and call, without importing it", async () => {
    const edited = `${TOOLS}\nprint("EDITED")\n`;
    await writeFile(toolsPath, edited);
    const now = await fileSource(toolsPath).read();
    expect(await sha256Bytes(now)).not.toBe(sha);
    const out = await host.call({
      bytes: now,
      expectedSha256: sha,
      filename: "tools.py",
      toolName: "add",
      args: { a: 1, b: 1 },
      outputSchema: null,
    });
    expect(out.ok).toBe(false);
    expect(out.error?.code).toBe("tools_file_changed");
    expect(out.tools_file_sha256_verified).toBe(false);
    expect(out.stderr).not.toContain("TOPLEVEL-RAN");
    await writeFile(toolsPath, TOOLS);
  });
});

describe("faults are contained and the next call works", () => {
  const cases: Array<[string, string, JsonObject, readonly string[], number?]> = [
    ["an infinite loop", "fault", { kind: "spin" }, ["runner_timeout"], FAST],
    ["time.sleep(30)", "fault", { kind: "nap" }, ["runner_timeout"], FAST],
    ["allocating 4 GB in one object (too large to size in 32-bit wasm)", "fault", { kind: "hog" }, ["tool_raised"]],
    // Touching 3 GB before MemoryError takes 12 s on a quiet 2-core machine and over 30 s under a
    // full test run's load: the limit is generous so that only a wrong outcome fails.
    [
      "allocating 4 × 1 GB (out of memory)",
      "fault",
      { kind: "hog_chunks" },
      ["tool_raised", "runner_crashed"],
      120_000,
    ],
    ["deep recursion (RecursionError)", "fault", { kind: "recurse" }, ["tool_raised"]],
    // With the limit lifted, CPython 3.14 frames live on the heap: it runs until stopped or dies.
    [
      "deep recursion with sys.setrecursionlimit(10**7)",
      "fault",
      { kind: "recurse_unbounded" },
      ["tool_raised", "runner_crashed", "runner_timeout"],
      FAST,
    ],
    ["sys.exit()", "fault", { kind: "bye" }, ["tool_raised", "runner_crashed"]],
    ["os._exit(1)", "fault", { kind: "hard_exit" }, ["runner_crashed"]],
    ["returning a set", "fault", { kind: "give_set" }, ["unsupported_tool_result"]],
    ["returning bytes", "fault", { kind: "give_bytes" }, ["unsupported_tool_result"]],
    ["returning NaN", "fault", { kind: "give_nan" }, ["unsupported_tool_result"]],
    ["a 100 KB string", "fault", { kind: "big" }, ["tool_result_oversized"]],
  ];
  for (const [label, tool, args, codes, timeoutMs] of cases) {
    it(
      label,
      async () => {
        const out = await call(tool, args, timeoutMs ? { timeoutMs } : {});
        expect(out.ok).toBe(false);
        expect(out.result).toBeUndefined();
        expect(codes).toContain(out.error?.code);
        await expectNextCallWorks();
      },
      (timeoutMs ?? 10_000) + 60_000,
    );
  }

  it("a ValueError is tool_raised with the traceback in diagnostics", async () => {
    const out = await call("fail", { value: "x1" });
    expect(out.ok).toBe(false);
    expect(out.error?.code).toBe("tool_raised");
    expect(out.error?.message).toContain("bad input value x1");
    expect(String(out.diagnostics?.traceback)).toContain("ValueError");
    expect(String(out.diagnostics?.traceback)).toContain("tools.py");
    await expectNextCallWorks();
  });

  for (const mode of ["missing", "extra", "wrong_type"]) {
    it(`an output_schema violation (${mode}) is tool_result_schema_mismatch`, async () => {
      const out = await call("shaped", { mode }, { outputSchema: shapeSchema });
      expect(out.ok).toBe(false);
      expect(out.error?.code).toBe("tool_result_schema_mismatch");
      expect(out.runner_secret_verified).toBe(true);
      const errors = out.diagnostics?.schema_errors as Array<{ keyword: string }>;
      expect(errors.length).toBeGreaterThan(0);
      const keyword = { missing: "required", extra: "additionalProperties", wrong_type: "type" }[mode];
      expect(errors.map((e) => e.keyword)).toContain(keyword);
    });
  }

  it("a result that matches its output_schema is delivered", async () => {
    const out = await call("shaped", { mode: "ok" }, { outputSchema: shapeSchema });
    expect(out.ok).toBe(true);
    expect(out.result).toEqual({ name: "a", count: 1 });
  });

  it("printing 10 MB leaves a bounded stderr", async () => {
    const out = await call("shout");
    expect(out.ok).toBe(true);
    expect(out.result).toEqual({ printed: true });
    expect(out.stderr.length).toBeLessThan(20_000);
    expect(out.stderr).toContain("not kept");
    await expectNextCallWorks();
  });

  it("a reply forged by tool code on the runner's private channel is rejected", async () => {
    const out = await call("forge");
    expect(out.ok).toBe(false);
    expect(out.error?.code).toBe("runner_reply_unverified");
    expect(out.runner_secret_verified).toBe(false);
    expect(out.result).toBeUndefined();
    await expectNextCallWorks();
  });

  it("bytes that are no frame on the channel end that runner (runner_crashed), not the host", async () => {
    const out = await call("garble");
    expect(out.ok).toBe(false);
    expect(out.error?.code).toBe("runner_crashed");
    expect(String(out.diagnostics?.reason)).toContain("protocol violation");
    await expectNextCallWorks();
  });

  it("an abort stops the running tool", async () => {
    const controller = new AbortController();
    const pending = host.call(
      {
        bytes,
        expectedSha256: sha,
        filename: "tools.py",
        toolName: "fault",
        args: { kind: "spin" },
        outputSchema: null,
      },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 300);
    const out = await pending;
    expect(out.ok).toBe(false);
    expect(out.error?.code).toBe("aborted");
    await expectNextCallWorks();
  });
});

describe("snapshot-started runners", () => {
  let snapHost: PoolRunnerHost;
  beforeAll(async () => {
    // Same cache directory: this host finds the snapshot the first host made and boots only from it.
    snapHost = createNodeRunnerHost({ cacheDir, spares: 1 });
    await snapHost.warm();
  }, 60_000);
  afterAll(async () => {
    await snapHost?.close();
  });

  it("the snapshot is on disk under a key of the Pyodide version and the runner files", async () => {
    const key = snapshotKey(await readRunnerPythonFiles());
    const stored = await diskSnapshotStore(cacheDir, key).get();
    expect(stored?.byteLength).toBeGreaterThan(1_000_000);
    expect(
      await diskSnapshotStore(
        cacheDir,
        key.replace(/^./, (c) => (c === "0" ? "1" : "0")),
      ).get(),
    ).toBeUndefined();
  });

  it("a tampered snapshot file is ignored, whatever metadata is written beside it", async () => {
    const key = snapshotKey(await readRunnerPythonFiles());
    const other = join(dir, "cache-corrupt");
    const store = diskSnapshotStore(other, key);
    await store.put(new Uint8Array(4096).fill(7));
    expect((await store.get())?.byteLength).toBe(4096);
    // Edge's own files: the folder 0700, the snapshot and its index (outside the folder) 0600.
    const bin = (await readdir(other)).find((f) => f.endsWith(".snapshot"))!;
    expect((await stat(other)).mode & 0o777).toBe(0o700);
    expect((await stat(join(other, bin))).mode & 0o777).toBe(0o600);
    expect((await stat(snapshotIndexFile(other))).mode & 0o777).toBe(0o600);
    expect(snapshotIndexFile(other).startsWith(`${other}/`)).toBe(false);

    const forged = new Uint8Array(4096).fill(8); // same size, other bytes
    await writeFile(join(other, bin), forged);
    // The metadata the red team forged beside the snapshot (the old format trusted it).
    const sha256 = createHash("sha256").update(forged).digest("hex");
    await writeFile(
      join(other, bin.replace(/\.snapshot$/, ".json")),
      JSON.stringify({ key, sha256, size: forged.byteLength }),
    );
    expect(await store.get()).toBeUndefined();
  });

  it("the index is believed only with its signature, made with a key kept outside the data folder", async () => {
    const key = snapshotKey(await readRunnerPythonFiles());
    const other = join(dir, "cache-signed");
    const keyFile = join(dir, "config", "edge-web", "runner-snapshot.key");
    const store = diskSnapshotStore(other, key, snapshotIndexFile(other), keyFile);
    const honest = new Uint8Array(4096).fill(3);
    await store.put(honest);
    expect(await store.get()).toEqual(honest);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "config", "edge-web"))).mode & 0o777).toBe(0o700);
    expect(snapshotKeyFile({ XDG_CONFIG_HOME: "/cfg" })).toBe("/cfg/edge-web/runner-snapshot.key");

    // Whoever can write the cache writes other bytes and an index naming them, keeping the old signature.
    const index = JSON.parse(await readFile(snapshotIndexFile(other), "utf8"));
    const forged = new Uint8Array(4096).fill(4);
    const sha256 = createHash("sha256").update(forged).digest("hex");
    const file = `runner-${key.slice(0, 32)}-${sha256.slice(0, 16)}.snapshot`;
    await writeFile(join(other, file), forged);
    await writeFile(snapshotIndexFile(other), JSON.stringify({ ...index, file, sha256 }));
    expect(await store.get()).toBeUndefined();
    // Signed with another key (another machine's, or a guess): refused too.
    const elsewhere = diskSnapshotStore(
      join(dir, "cache-elsewhere"),
      key,
      snapshotIndexFile(other),
      join(dir, "other-config", "k.key"),
    );
    expect(await elsewhere.get()).toBeUndefined();
    // The honest index, put back, is believed again.
    await writeFile(snapshotIndexFile(other), JSON.stringify(index));
    expect(await store.get()).toEqual(honest);
  });

  it("a snapshot that does not boot is discarded and the job boots plainly", async () => {
    let discarded = 0;
    const broken = createNodeRunnerHost({
      spares: 0,
      snapshot: {
        get: async () => new Uint8Array(1_000_000).fill(1),
        put: async () => undefined,
        discard: async () => void discarded++,
      },
    });
    try {
      const out = await call("add", { a: 1, b: 1 }, { h: broken });
      expect(out.ok).toBe(true);
      expect(out.result).toEqual({ sum: 2 });
      expect(discarded).toBe(1);
      expect(broken.stats().snapshot).toBe("failed");
      expect(broken.stats().plainBoots).toBe(1);
    } finally {
      await broken.close();
    }
  }, 60_000);

  it("runners read only this process's private snapshot copies (the one it made, the signed cache's file copied), never the cache; tool code cannot change either", async () => {
    const stored = await diskSnapshotStore(cacheDir, snapshotKey(await readRunnerPythonFiles())).get();
    const digest = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");
    const cached = join(cacheDir, (await readdir(cacheDir)).find((f) => f.endsWith(".snapshot"))!);
    // The first host made the snapshot in memory: its runners booted from a private copy, one
    // folder for every host of this process (node-snapshot-file.ts).
    const folders = (await readdir(tmpdir())).filter((f) => f.startsWith(`edge-runner-${process.pid}-`));
    expect(folders).toHaveLength(1);
    const folder = join(tmpdir(), folders[0]!);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    let copy = "";
    for (const name of await readdir(folder))
      if (digest(await readFile(join(folder, name))) === digest(stored!)) copy = join(folder, name);
    expect(copy).not.toBe("");
    expect((await stat(copy)).mode & 0o777).toBe(0o600);
    // This host found it on disk: it copied the file the signed index names into the same private
    // folder, and its runners booted from that copy (checking the signed sha256). The cache itself,
    // in the data folder others may write, is not theirs to read (docs/security.md).
    for (const path of [cached, copy]) {
      const out = await call("snapshot_file", { path }, { h: snapHost });
      expect(out.ok, JSON.stringify(out.error)).toBe(true);
      // It may read what it booted from; writing, removing or adding beside it is refused.
      expect(out.result).toEqual({
        read: path === cached ? "ERR_ACCESS_DENIED" : stored!.byteLength,
        write: "ERR_ACCESS_DENIED",
        remove: "ERR_ACCESS_DENIED",
        sibling: "ERR_ACCESS_DENIED",
      });
      expect(digest(await readFile(path))).toBe(digest(stored!));
    }
    expect((await readdir(folder)).length).toBeGreaterThanOrEqual(2); // the copy made, the cache's copied
    expect(snapHost.stats().bootsFromSnapshot).toBeGreaterThanOrEqual(1);
    expect(snapHost.stats().plainBoots).toBe(0);
  }, 60_000);

  it("a cache file changed after its index was signed is refused by the runner that reads it, and made again", async () => {
    const copyDir = join(dir, "cache-changed");
    await cp(cacheDir, copyDir, { recursive: true });
    await cp(snapshotIndexFile(cacheDir), snapshotIndexFile(copyDir));
    const file = join(copyDir, (await readdir(copyDir)).find((f) => f.endsWith(".snapshot"))!);
    const changed = await readFile(file);
    changed[changed.length - 1] = changed[changed.length - 1]! ^ 0xff; // same size, one byte different: only the sha256 tells
    await writeFile(file, changed);
    const h = createNodeRunnerHost({ cacheDir: copyDir, spares: 0 });
    try {
      const out = await call("add", { a: 2, b: 3 }, { h });
      expect(out.ok, JSON.stringify(out.error)).toBe(true);
      expect(out.result).toEqual({ sum: 5 });
      // The host read only the signed index; the runner that read the file refused it (the only
      // check that could: same size, same index). A new snapshot was made, and the job booted from it.
      expect(h.stats()).toMatchObject({ snapshot: "ready", plainBoots: 0 });
      expect(h.stats().workersSpawned).toBe(3); // the refused boot, the snapshot maker, the job's runner
      const index = JSON.parse(await readFile(snapshotIndexFile(copyDir), "utf8")) as { file: string; sha256: string };
      expect(
        createHash("sha256")
          .update(await readFile(join(copyDir, index.file)))
          .digest("hex"),
      ).toBe(index.sha256);
      expect((await readdir(copyDir)).filter((f) => f.endsWith(".snapshot"))).toEqual([index.file]);
    } finally {
      await h.close();
    }
  }, 90_000);

  it("still refuses a wrong hash", async () => {
    const wrong = await sha256Bytes(utf8("other"));
    const out = await snapHost.call({
      bytes,
      expectedSha256: wrong,
      filename: "tools.py",
      toolName: "add",
      args: { a: 1, b: 2 },
      outputSchema: null,
    });
    expect(out.error?.code).toBe("tools_file_changed");
    expect(out.stderr).not.toContain("TOPLEVEL-RAN");
  });

  it("a spare that warmed up and collected its garbage shows none of it to tool code", async () => {
    await snapHost.warm(); // the spare has rehearsed a call and run V8's collection
    const out = await call("runtime_view", {}, { h: snapHost });
    expect(out.ok).toBe(true);
    expect(out.result).toEqual({ gc: false, snapshot_kept: false, rehearsal_left: false });
  }, 60_000);

  it("every runner draws random numbers of its own, though all boot from one snapshot", async () => {
    const draws: unknown[] = [];
    for (let i = 0; i < 3; i++) draws.push((await call("draw", {}, { h: snapHost })).result?.x);
    expect(draws.every((x) => typeof x === "number")).toBe(true);
    expect(new Set(draws).size).toBe(3);
  }, 60_000);

  it("keeps no state between jobs nor from the snapshot maker", async () => {
    const first = await call("bump", {}, { h: snapHost });
    const second = await call("bump", {}, { h: snapHost });
    expect(first.ok && second.ok).toBe(true);
    expect(first.result?.count).toBe(1);
    expect(second.result?.count).toBe(1);
    expect(first.result?.leaked).toBe(0);
    expect(second.result?.leaked).toBe(0);
    expect(second.result?.modules).toEqual(first.result?.modules);
    const stats = snapHost.stats();
    expect(stats.plainBoots).toBe(0);
    expect(stats.bootsFromSnapshot).toBeGreaterThanOrEqual(2);

    // A plainly booted runner (no snapshot) sees exactly the same modules: the snapshot carries
    // nothing the normal boot (Pyodide + edgestudio + edge_runner.preload) would not.
    const plain = createNodeRunnerHost({ snapshot: false, spares: 0 });
    try {
      const fresh = await call("bump", {}, { h: plain });
      expect(fresh.ok).toBe(true);
      expect(fresh.result?.modules).toEqual(first.result?.modules);
      expect(plain.stats().bootsFromSnapshot).toBe(0);
    } finally {
      await plain.close();
    }
  }, 60_000);
});

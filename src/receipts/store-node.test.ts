import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile, chmod, utimes, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifyReceipts } from "./chain.ts";
import { EdgeError } from "../contract/errors.ts";
import { dataDir } from "../platform/node-files.ts";
import { createNodeReceiptStore, receiptFileName } from "./store-node.ts";
import { sampleReceiptBody } from "../../test/fixtures/receipt.ts";

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const isRoot = process.getuid?.() === 0;

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), "edge-store-"));
});
afterEach(async () => {
  await chmod(path.join(tmp, "data", "receipts"), 0o700).catch(() => undefined);
  await rm(tmp, { recursive: true, force: true });
});

async function rejection(p: Promise<unknown>): Promise<EdgeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EdgeError);
  return err as EdgeError;
}

describe("dataDir", () => {
  it("prefers $EDGE_DATA_DIR, then the platform's user data dir", () => {
    expect(dataDir({ EDGE_DATA_DIR: "/srv/edge" }, "linux", "/home/u")).toBe("/srv/edge");
    expect(dataDir({ XDG_DATA_HOME: "/x/data" }, "linux", "/home/u")).toBe("/x/data/edge-web");
    expect(dataDir({ XDG_DATA_HOME: "relative/ignored" }, "linux", "/home/u")).toBe("/home/u/.local/share/edge-web");
    expect(dataDir({}, "linux", "/home/u")).toBe("/home/u/.local/share/edge-web");
    expect(dataDir({}, "darwin", "/Users/u")).toBe("/Users/u/Library/Application Support/edge-web");
    expect(dataDir({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "win32", "C:\\Users\\u")).toBe(
      "C:\\Users\\u\\AppData\\Roaming\\edge-web",
    );
  });
});

describe("node receipt store", () => {
  it("appends a chain of private, seq-named files that survives a new store instance", async () => {
    const dir = path.join(tmp, "data");
    const store = createNodeReceiptStore({ dir });
    expect(await store.list()).toEqual([]); // nothing stored yet is not an error
    const a = await store.append(sampleReceiptBody("r1"));
    const b = await store.append(sampleReceiptBody("r2", { outcome: "failed_closed", code: "tool_raised" }));
    expect([a.seq, b.seq]).toEqual([1, 2]);
    expect(b.prev_receipt_sha256).toBe(a.receipt_sha256);

    const entries = await readdir(path.join(dir, "receipts"));
    // No lock or temp files left; besides the receipts only the private id index (.ids) and the
    // head's seq (.head).
    expect(entries.sort()).toEqual([".head", ".ids", "000000000001.json", "000000000002.json"]);
    expect(await readFile(path.join(dir, "receipts", ".head"), "utf8")).toBe("2");
    const files = entries.filter((f) => f.endsWith(".json")).sort();
    expect(receiptFileName(2)).toBe("000000000002.json");
    expect((await stat(path.join(dir, "receipts"))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, "receipts", files[0]!))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path.join(dir, "receipts", files[1]!), "utf8"))).toEqual(b);

    const again = createNodeReceiptStore({ dir });
    expect(await again.list()).toEqual([a, b]);
    expect(await again.get("r2")).toEqual(b);
    expect(await again.get("nope")).toBeUndefined();
    const c = await again.append(sampleReceiptBody("r3"));
    expect(c).toMatchObject({ seq: 3, prev_receipt_sha256: b.receipt_sha256 });
    expect(await verifyReceipts(await again.list())).toEqual({ ok: true, count: 3 });
  });

  it("refuses a duplicate id without writing anything", async () => {
    const store = createNodeReceiptStore({ dir: tmp });
    await store.append(sampleReceiptBody("same"));
    const err = await rejection(store.append(sampleReceiptBody("same")));
    expect(err.code).toBe("receipt_id_conflict");
    expect(await store.list()).toHaveLength(1);
  });

  it("the head hint is only a hint: stale, damaged, pointing past the head or missing, the next append still chains to the newest receipt", async () => {
    const store = createNodeReceiptStore({ dir: tmp });
    const hint = path.join(tmp, "receipts", ".head");
    for (const id of ["h1", "h2", "h3"]) await store.append(sampleReceiptBody(id));
    // Left by an append that ended before rewriting it; torn; beyond the head; a seq of a file
    // that is gone; none at all.
    for (const [i, damage] of ["1", "", "9", "x", "0", "-3", "missing"].entries()) {
      if (damage === "missing") await rm(hint);
      else await writeFile(hint, damage);
      const r = await store.append(sampleReceiptBody(`after-${i}`));
      expect(r.seq, `hint ${JSON.stringify(damage)}`).toBe(4 + i);
      expect(await readFile(hint, "utf8")).toBe(String(r.seq));
    }
    const all = await store.list();
    expect(await verifyReceipts(all)).toEqual({ ok: true, count: 10 });
  });

  it("two store instances appending at once (interleaved promises) form one chain", async () => {
    const s1 = createNodeReceiptStore({ dir: tmp });
    const s2 = createNodeReceiptStore({ dir: tmp });
    const jobs: Promise<unknown>[] = [];
    for (let i = 0; i < 15; i++)
      jobs.push(s1.append(sampleReceiptBody(`a-${i}`)), s2.append(sampleReceiptBody(`b-${i}`)));
    await Promise.all(jobs);
    const all = await s1.list();
    expect(all.map((r) => r.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(await verifyReceipts(all)).toEqual({ ok: true, count: 30 });
  });

  it("two OS processes appending at once form one chain", async () => {
    const child = path.resolve(here, "../../test/fixtures/receipt-appender.child.ts");
    const spawn = (prefix: string) =>
      run(process.execPath, ["--import", "tsx", child, tmp, prefix, "12"], { cwd: path.resolve(here, "../..") });
    const [p1, p2] = await Promise.all([spawn("p1"), spawn("p2")]);
    expect(p1.stdout + p2.stdout).toBe("done\ndone\n");
    const all = await createNodeReceiptStore({ dir: tmp }).list();
    expect(all).toHaveLength(24);
    expect(new Set(all.map((r) => r.id)).size).toBe(24);
    expect(await verifyReceipts(all)).toEqual({ ok: true, count: 24 });
    // Both processes really interleaved or at least both wrote.
    expect(all.some((r) => r.id.startsWith("p1-")) && all.some((r) => r.id.startsWith("p2-"))).toBe(true);
  }, 60_000);

  it("breaks a lock left by a dead process or an old one, but waits for a live one and then fails closed", async () => {
    const dir = path.join(tmp, "receipts");
    await mkdir(dir, { recursive: true });
    const lock = path.join(dir, ".lock");
    // A process that has exited: its pid is free (on this host).
    const dead = await run(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    await writeFile(
      lock,
      JSON.stringify({
        token: "x",
        pid: Number(dead.stdout),
        host: (await import("node:os")).hostname(),
        created_at: "",
      }),
    );
    const store = createNodeReceiptStore({ dir: tmp, timeoutMs: 2_000 });
    await store.append(sampleReceiptBody("after-dead"));

    // Unreadable garbage, but older than staleMs.
    await writeFile(lock, "garbage");
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    await store.append(sampleReceiptBody("after-old"));

    // A live holder (this very process, as far as the file says): append gives up with storage_failed.
    await writeFile(
      lock,
      JSON.stringify({ token: "y", pid: process.pid, host: (await import("node:os")).hostname(), created_at: "" }),
    );
    const err = await rejection(
      createNodeReceiptStore({ dir: tmp, timeoutMs: 300 }).append(sampleReceiptBody("blocked")),
    );
    expect(err.code).toBe("storage_failed");
    expect(err.details).toMatchObject({ reason: "lock_timeout" });
    expect((await store.list()).map((r) => r.id)).toEqual(["after-dead", "after-old"]);
  });

  it("a data dir that cannot be created surfaces storage_failed with the fs code", async () => {
    const file = path.join(tmp, "not-a-dir");
    await writeFile(file, "x");
    const store = createNodeReceiptStore({ dir: path.join(file, "data") });
    const err = await rejection(store.append(sampleReceiptBody("r1")));
    expect(err.code).toBe("storage_failed");
    expect(err.details).toMatchObject({ fs_code: "ENOTDIR" });
  });

  it.skipIf(isRoot)("a read-only receipts folder surfaces storage_failed and writes nothing", async () => {
    const dir = path.join(tmp, "data");
    const store = createNodeReceiptStore({ dir });
    await store.append(sampleReceiptBody("r1"));
    await chmod(path.join(dir, "receipts"), 0o500);
    const err = await rejection(store.append(sampleReceiptBody("r2")));
    expect(err.code).toBe("storage_failed");
    expect(err.details).toMatchObject({ fs_code: "EACCES" });
    await chmod(path.join(dir, "receipts"), 0o700);
    expect((await store.list()).map((r) => r.id)).toEqual(["r1"]);
  });

  it("a receipt file edited on disk is listed as is, and verification points at it", async () => {
    const store = createNodeReceiptStore({ dir: tmp });
    for (const id of ["r1", "r2", "r3"]) await store.append(sampleReceiptBody(id));
    const f = path.join(tmp, "receipts", receiptFileName(2));
    await writeFile(f, (await readFile(f, "utf8")).replace('"answered"', '"return_direct"'));
    const res = await verifyReceipts(await store.list());
    expect(res.firstBroken).toMatchObject({ seq: 2, id: "r2", reason: "hash_mismatch" });
  });

  it("a receipt file that is not JSON makes list fail with storage_failed naming the file", async () => {
    const store = createNodeReceiptStore({ dir: tmp });
    await store.append(sampleReceiptBody("r1"));
    await writeFile(path.join(tmp, "receipts", receiptFileName(1)), "{oops");
    const err = await rejection(store.list());
    expect(err.code).toBe("storage_failed");
    expect(String(err.details.path)).toContain(receiptFileName(1));
  });
});

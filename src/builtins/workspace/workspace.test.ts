// The workspace as the product offers it: names from outside checked strictly, batch writes that
// land whole or not at all, zip export/import bounded against bombs.
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { openVfs } from "../vfs/core.ts";
import type { VfsPersistence } from "../vfs/store.ts";
import { importPath } from "./import-path.ts";
import { exportZip, importZip } from "./zip.ts";

const text = (s: string) => new TextEncoder().encode(s);

describe("names from outside (uploads, zip entries)", () => {
  it("accepts nested names and refuses .., NUL, empty parts and overlong names", () => {
    expect(importPath("data.csv")).toBe("/workspace/data.csv");
    expect(importPath("sub\\x.txt", "/workspace/in")).toBe("/workspace/in/sub/x.txt");
    for (const bad of [
      "../etc/passwd",
      "a/../../b",
      "./x",
      "/abs",
      "a//b",
      "a\0b",
      "x".repeat(1000),
      `${"d/".repeat(600)}f`,
      "",
    ]) {
      expect(() => importPath(bad), bad.slice(0, 20)).toThrow(expect.objectContaining({ code: "vfs_invalid_path" }));
    }
  });
});

describe("writeBatch", () => {
  it("writes every file or none: one over the limit leaves the workspace unchanged", async () => {
    const vfs = await openVfs({ limits: { maxTotalBytes: 100 } });
    await vfs.writeBatch([{ path: "/workspace/a/b.txt", data: text("hello") }]);
    expect(vfs.readBytesIfFile("/workspace/a/b.txt")).toEqual(text("hello"));
    const before = vfs.getAllPaths().sort();
    await expect(
      vfs.writeBatch([
        { path: "/workspace/c.txt", data: text("x") },
        { path: "/workspace/d.txt", data: new Uint8Array(200) },
      ]),
    ).rejects.toMatchObject({ code: "vfs_quota_exceeded" });
    expect(vfs.getAllPaths().sort()).toEqual(before);
  });

  it("a failed commit is undone in memory (nothing half-written)", async () => {
    const failing: VfsPersistence = {
      load: async () => [],
      commit: async () => Promise.reject(Object.assign(new Error("quota"), { name: "QuotaExceededError" })),
    };
    const vfs = await openVfs({ persistence: failing });
    await expect(vfs.writeBatch([{ path: "/workspace/x", data: text("1") }])).rejects.toMatchObject({
      code: "storage_failed",
    });
    expect(vfs.getAllPaths()).toEqual(["/"]);
  });
});

describe("zip", () => {
  it("exports a folder and imports it back byte for byte", async () => {
    const a = await openVfs();
    await a.writeBatch([
      { path: "/workspace/data.csv", data: text("a,b\n1,2\n") },
      { path: "/workspace/sub/img.bin", data: Uint8Array.from([0, 255, 1, 254]) },
    ]);
    await a.mkdir("/workspace/empty", { recursive: true });
    const zip = exportZip(a);
    const b = await openVfs();
    const report = await importZip(b, zip);
    expect(report).toMatchObject({ files: 2, paths: ["/workspace/data.csv", "/workspace/sub/img.bin"] });
    expect(b.readBytesIfFile("/workspace/sub/img.bin")).toEqual(Uint8Array.from([0, 255, 1, 254]));
  });

  it("refuses a zip bomb on the bytes really inflated, before holding them, and writes nothing", async () => {
    // 64 MiB of zeros compress to ≈ 64 KB; the headers are honest, the limit is what matters.
    const bomb = zipSync({ "zeros.bin": new Uint8Array(64 * 1024 * 1024) }, { level: 9 });
    expect(bomb.byteLength).toBeLessThan(200_000);
    const vfs = await openVfs({ limits: { maxTotalBytes: 8 * 1024 * 1024, maxFileBytes: 16 * 1024 * 1024 } });
    await vfs.writeBatch([{ path: "/workspace/keep.txt", data: text("keep") }]);
    await expect(importZip(vfs, bomb)).rejects.toMatchObject({ code: "zip_too_large" });
    expect(vfs.getAllPaths().sort()).toEqual(["/", "/workspace", "/workspace/keep.txt"]);
    // Many small entries count against the entry limit the same way.
    const many: Record<string, Uint8Array> = {};
    for (let i = 0; i < 50; i++) many[`f${i}.txt`] = strToU8("x");
    const small = await openVfs({ limits: { maxEntries: 20 } });
    await expect(importZip(small, zipSync(many))).rejects.toMatchObject({ code: "zip_too_large" });
    expect(small.getAllPaths()).toEqual(["/"]);
  });

  it("refuses traversal names, non-zips and truncated archives, writing nothing", async () => {
    const vfs = await openVfs();
    await expect(
      importZip(vfs, zipSync({ "ok.txt": strToU8("1"), "../../evil.txt": strToU8("2") })),
    ).rejects.toMatchObject({ code: "vfs_invalid_path" });
    await expect(importZip(vfs, text("not a zip at all"))).rejects.toMatchObject({ code: "zip_invalid" });
    const whole = zipSync({ "big.txt": strToU8("y".repeat(100_000)) }, { level: 0 });
    await expect(importZip(vfs, whole.subarray(0, 5_000))).rejects.toMatchObject({ code: "zip_invalid" });
    expect(vfs.getAllPaths()).toEqual(["/"]);
  });
});

describe("browser quota", () => {
  it("IndexedDB's QuotaExceededError is storage_quota_exceeded, and the change is undone", async () => {
    const { idbVfsPersistence } = await import("../vfs/store-idb.ts");
    const quotaError = Object.assign(new Error("The quota has been exceeded."), { name: "QuotaExceededError" });
    const tx = {
      store: { put: () => Promise.reject(quotaError), delete: () => Promise.resolve() },
      done: Promise.reject(quotaError),
    };
    tx.done.catch(() => undefined);
    // eslint-disable-next-line no-restricted-syntax -- an IndexedDB stand-in with only the two calls idbVfsPersistence makes, its writes failing as a full quota does
    const db = { getAll: async () => [], transaction: () => tx } as unknown as Parameters<typeof idbVfsPersistence>[0];
    const vfs = await openVfs({ persistence: idbVfsPersistence(db) });
    await expect(vfs.writeBatch([{ path: "/workspace/x.bin", data: new Uint8Array(10) }])).rejects.toMatchObject({
      code: "storage_quota_exceeded",
    });
    expect(vfs.getAllPaths()).toEqual(["/"]);
  });
});

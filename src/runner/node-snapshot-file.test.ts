// The snapshot files Node runners boot from (node-snapshot-file.ts): private copies, each written
// once, never overwritten, removed with their process and after a killed one.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSnapshotFiles } from "./node-snapshot-file.ts";

const parent = mkdtempSync(join(tmpdir(), "edge-snapfile-test-"));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe("the runners' snapshot file", () => {
  it("writes each snapshot once, 0600 in a 0700 folder that runners may read; other bytes get a file of their own", async () => {
    const files = createSnapshotFiles(parent)!;
    const folder = files.readable.replace(/\/\*$/, "");
    expect(folder.startsWith(join(parent, `edge-runner-${process.pid}-`))).toBe(true);
    expect(readdirSync(folder)).toEqual([]); // made before any runner starts, its files on first use
    const bytes = new Uint8Array(10_000).fill(5);
    const ref = (await files.place(bytes))!;
    expect(ref.size).toBe(10_000);
    expect(ref.path.startsWith(`${folder}/`)).toBe(true);
    expect(new Uint8Array(readFileSync(ref.path))).toEqual(bytes);
    expect(statSync(ref.path).mode & 0o777).toBe(0o600);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(await files.place(bytes)).toEqual(ref); // written once
    // Other bytes (another host's snapshot, or one made again after a failed boot) never replace
    // what runners may be reading.
    const other = (await files.place(new Uint8Array(10_000).fill(6)))!;
    expect(other.path).not.toBe(ref.path);
    expect(new Uint8Array(readFileSync(ref.path))).toEqual(bytes);
    expect(readdirSync(folder).sort()).toEqual(["1.snapshot", "2.snapshot"]);
  });

  it("is removed when its process exits, and a killed process's folder by the next one", () => {
    const script = `
      import { createSnapshotFiles } from ${JSON.stringify(new URL("./node-snapshot-file.ts", import.meta.url).pathname)};
      const f = createSnapshotFiles(${JSON.stringify(parent)});
      console.log((await f.place(new Uint8Array(64))).path);`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(run.stdout.trim())).toBe(false);

    // The folder of a process that was SIGKILLed (no exit hook ran): a pid that is not alive.
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
    const left = join(parent, `edge-runner-${dead}-abc123`);
    mkdirSync(left);
    const mine = join(parent, `edge-runner-${process.pid}-keep`);
    mkdirSync(mine);
    createSnapshotFiles(parent);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(mine)).toBe(true); // this process's own folders are never taken for stale
    expect(readdirSync(parent).filter((n) => n.startsWith(`edge-runner-${process.pid}-`)).length).toBe(3);
  });
});

describe("the disk cache's snapshot, copied for runners", () => {
  it("is copied from a regular file of the signed size, never through a link, a FIFO or a device", async () => {
    const files = createSnapshotFiles(parent)!;
    const cache = mkdtempSync(join(parent, "cache-"));
    const real = join(cache, "runner-real.snapshot");
    writeFileSync(real, new Uint8Array(9_000).fill(7));
    const copy = (await files.adopt({ path: real, size: 9_000, sha256: "ab" }))!;
    expect(copy.path.startsWith(files.readable.replace(/\*$/, ""))).toBe(true);
    expect(copy.sha256).toBe("ab"); // the runner still checks the signed hash
    expect(new Uint8Array(readFileSync(copy.path))).toEqual(new Uint8Array(9_000).fill(7));
    expect(statSync(copy.path).mode & 0o777).toBe(0o600);

    const secret = join(parent, "secret.txt");
    writeFileSync(secret, "x".repeat(9_000));
    symlinkSync(secret, join(cache, "runner-link.snapshot"));
    spawnSync("mkfifo", [join(cache, "runner-fifo.snapshot")]);
    symlinkSync("/dev/zero", join(cache, "runner-zero.snapshot"));
    for (const name of ["runner-link.snapshot", "runner-fifo.snapshot", "runner-zero.snapshot"]) {
      expect(await files.adopt({ path: join(cache, name), size: 9_000 }), name).toBeUndefined();
    }
    // A file whose size is not the signed one is not copied either.
    expect(await files.adopt({ path: real, size: 8_999 })).toBeUndefined();
  });
});

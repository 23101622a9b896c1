import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNodeReceiptStore } from "../receipts/store-node.ts";
import { sampleReceiptBody } from "../../test/fixtures/receipt.ts";
import { cli } from "../../test/cli.ts";

let tmp: string;
let saved: string | undefined;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), "edge-cli-receipts-"));
  saved = process.env.EDGE_DATA_DIR;
  process.env.EDGE_DATA_DIR = path.join(tmp, "data");
});
afterEach(async () => {
  if (saved === undefined) delete process.env.EDGE_DATA_DIR;
  else process.env.EDGE_DATA_DIR = saved;
  await rm(tmp, { recursive: true, force: true });
});

async function seed(n: number): Promise<void> {
  const store = createNodeReceiptStore(); // reads $EDGE_DATA_DIR, like the CLI
  for (let i = 1; i <= n; i++) {
    await store.append(
      sampleReceiptBody(
        `run-${i}`,
        i === 2 ? { outcome: "failed_closed", code: "tool_raised", text: { prompt: "hi" } } : {},
      ),
    );
  }
}

describe("edge receipts", () => {
  it("list on an empty data dir says so; --json gives count 0", async () => {
    expect(await cli("receipts", "list")).toMatchObject({
      code: 0,
      out: expect.stringContaining("No receipts stored"),
    });
    const r = await cli("receipts", "list", "--json");
    expect(JSON.parse(r.out)).toEqual({ ok: true, count: 0, receipts: [] });
  });

  it("list shows the stored receipts oldest first, as a table and as JSON", async () => {
    await seed(3);
    const r = await cli("receipts", "list");
    expect(r.code).toBe(0);
    const lines = r.out.trim().split("\n");
    expect(lines[0]).toMatch(/^SEQ\s+ID\s+CREATED\s+KIND\s+OUTCOME\s+CODE/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(" "))).toEqual(["1 run-1", "2 run-2", "3 run-3"]);
    expect(lines[2]).toContain("tool_raised");
    const j = JSON.parse((await cli("receipts", "list", "--json")).out);
    expect(j.count).toBe(3);
    expect(j.receipts.map((x: { seq: number }) => x.seq)).toEqual([1, 2, 3]);
  });

  it("show prints one receipt (fields, calls, opted-in text); --json is the stored receipt; unknown id is receipt_not_found", async () => {
    await seed(2);
    const r = await cli("receipts", "show", "run-2");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/outcome\s+failed_closed/);
    expect(r.out).toMatch(/calls:\nCALL\s+TOOL/);
    expect(r.out).toContain("fee_quote");
    expect(r.out).toContain("includeText");
    const j = await cli("receipts", "show", "run-2", "--json");
    expect(JSON.parse(j.out)).toEqual(await createNodeReceiptStore().get("run-2"));
    const missing = await cli("receipts", "show", "nope");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("receipt_not_found");
    const missingJson = await cli("receipts", "show", "nope", "--json");
    expect(JSON.parse(missingJson.out)).toMatchObject({ ok: false, error: { code: "receipt_not_found" } });
  });

  it("export writes JSON Lines oldest first that verify accepts (exit 0, count)", async () => {
    await seed(4);
    const exp = await cli("receipts", "export");
    expect(exp.code).toBe(0);
    const lines = exp.out.trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).seq)).toEqual([1, 2, 3, 4]);
    const file = path.join(tmp, "export.jsonl");
    await writeFile(file, exp.out);
    const v = await cli("receipts", "verify", file);
    expect(v).toMatchObject({ code: 0, out: expect.stringContaining("4 receipt(s), chain intact") });
    expect(JSON.parse((await cli("receipts", "verify", file, "--json")).out)).toEqual({ ok: true, file, count: 4 });
  });

  it("verify exits 1 at the first broken link, naming seq, id and reason", async () => {
    await seed(4);
    const file = path.join(tmp, "export.jsonl");
    const lines = (await cli("receipts", "export")).out.trim().split("\n");
    lines[2] = lines[2]!.replace('"outcome":"answered"', '"outcome":"return_direct"');
    await writeFile(file, lines.join("\n") + "\n");
    const v = await cli("receipts", "verify", file);
    expect(v.code).toBe(1);
    expect(v.out).toContain("receipt_chain_broken");
    expect(v.out).toMatch(/seq 3, id run-3, line 3\): hash_mismatch/);

    await writeFile(file, [lines[0], lines[1], lines[3]].join("\n"));
    const j = JSON.parse((await cli("receipts", "verify", file, "--json")).out);
    expect(j).toMatchObject({
      ok: false,
      count: 3,
      first_broken: { seq: 4, id: "run-4", reason: "seq_mismatch" },
      error: { code: "receipt_chain_broken" },
    });
  });

  it("verify of a file from elsewhere: a line break in a receipt's id cannot forge the verdict line", async () => {
    await seed(2);
    const file = path.join(tmp, "forged.jsonl");
    const lines = (await cli("receipts", "export")).out.trim().split("\n");
    const forged = `run-2\nok: ${file}: 2 receipt(s), chain intact`;
    lines[1] = lines[1]!.replace('"id":"run-2"', `"id":${JSON.stringify(forged)}`);
    await writeFile(file, lines.join("\n") + "\n");
    const v = await cli("receipts", "verify", file);
    expect(v.code).toBe(1);
    expect(v.out.split("\n").filter((l) => l.startsWith("ok:"))).toEqual([]);
    expect(v.out).toContain("id run-2\\nok: ");
  });

  it("verify of a file that cannot be read is receipts_file_unreadable (exit 1); usage errors exit 2", async () => {
    const v = await cli("receipts", "verify", path.join(tmp, "missing.jsonl"));
    expect(v.code).toBe(1);
    expect(v.err).toContain("receipts_file_unreadable");
    expect((await cli("receipts", "verify")).code).toBe(2);
    expect((await cli("receipts", "verify", "a", "b")).code).toBe(2);
    expect((await cli("receipts", "show")).code).toBe(2);
    expect((await cli("receipts", "export", "--bogus")).code).toBe(2);
    expect((await cli("receipts", "frobnicate")).code).toBe(2);
    expect((await cli("receipts")).code).toBe(2);
  });

  it("a store that cannot be read fails with storage_failed (exit 1)", async () => {
    await seed(1);
    const f = path.join(tmp, "data", "receipts", "000000000001.json");
    await writeFile(f, "{broken");
    const r = await cli("receipts", "list");
    expect(r.code).toBe(1);
    expect(r.err).toContain("storage_failed");
    expect(await readFile(f, "utf8")).toBe("{broken"); // reading never rewrites
  });

  it("help lists the receipts commands", async () => {
    expect((await cli("--help")).out).toContain("edge receipts verify");
    expect((await cli("receipts", "verify", "--help")).out).toContain("edge receipts verify FILE");
  });
});

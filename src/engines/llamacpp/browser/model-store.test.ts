// The model store where nothing can store (Node has neither OPFS nor IndexedDB, as some browsers
// in some frames): a download from a URL still streams, is hashed and checked, and loads from
// memory — it is never listed as stored, and a bad download is the same coded error as anywhere.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestModel } from "../../../../test/fixtures/gguf.ts";
import { startModelServer, type ModelServer } from "../../../../test/engines/model-server.ts";
import { downloadModel, listStoredModels, modelStorage, storedModel } from "./model-store.ts";

const model = buildTestModel();
const sha = createHash("sha256").update(model).digest("hex");
let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(model);
});
afterAll(() => server.close());

describe("model store with no storage", () => {
  it("downloads into memory, checked, and says it is not stored", async () => {
    expect(await modelStorage()).toBe("none");
    const progress: number[] = [];
    const got = await downloadModel(server.url("/model.gguf"), "model.gguf", sha, (p) => progress.push(p.loaded));
    expect(got).toMatchObject({ stored: false, meta: { sha256: sha, size: model.length } });
    expect(new Uint8Array(await got.file.arrayBuffer())).toEqual(model);
    expect(got.summary.architecture).toBeTruthy();
    expect(progress.at(-1)).toBe(model.length);
    expect(await listStoredModels()).toEqual([]);
    expect(await storedModel(server.url("/model.gguf"))).toBeUndefined();
  });

  it("refuses a wrong pin, a truncated file and a file that is not GGUF with their codes", async () => {
    const codes = [];
    for (const [path, pin] of [
      ["/model.gguf", "0".repeat(64)],
      ["/truncated.gguf", undefined],
      ["/notes.gguf", undefined],
    ] as const) {
      codes.push(
        await downloadModel(server.url(path), path.slice(1), pin, () => undefined).then(
          () => "ok",
          (e: { code?: string }) => e.code,
        ),
      );
    }
    expect(codes).toEqual(["model_integrity_failed", "model_truncated", "model_not_gguf"]);
  });
});

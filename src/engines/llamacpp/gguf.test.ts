import { describe, expect, it } from "vitest";
import { EdgeError } from "../../contract/errors.ts";
import { buildTestModel } from "../../../test/fixtures/gguf.ts";
import { readGgufSummary, type ByteSource } from "./gguf.ts";

const bytes = (data: Uint8Array): ByteSource & { reads: number } => {
  const src = {
    size: data.length,
    reads: 0,
    async read(offset: number, length: number) {
      src.reads++;
      return data.subarray(offset, Math.min(data.length, offset + length));
    },
  };
  return src;
};

async function code(data: Uint8Array): Promise<string> {
  try {
    await readGgufSummary(bytes(data), "m.gguf");
  } catch (e) {
    expect(e).toBeInstanceOf(EdgeError);
    return (e as EdgeError).code;
  }
  return "ok";
}

describe("GGUF header reader", () => {
  const model = buildTestModel();

  it("reads what the engine shows before loading, and the size the tensors need", async () => {
    const s = await readGgufSummary(bytes(model));
    expect(s).toMatchObject({
      version: 3,
      architecture: "llama",
      name: "edge-test-tiny",
      contextLength: 4096,
      hasChatTemplate: true,
      tensorCount: 21,
    });
    expect(s.expectedSize).toBe(model.length);
    expect((await readGgufSummary(bytes(buildTestModel({ contextLength: 256, name: "small" })))).contextLength).toBe(
      256,
    );
  });

  it("a file cut anywhere — inside the header or the tensor data — is model_truncated", async () => {
    for (const length of [12, 200, 5000, model.length - 1])
      expect(await code(model.subarray(0, length))).toBe("model_truncated");
  });

  it("a file that is not GGUF is model_not_gguf, whatever its extension", async () => {
    expect(await code(new TextEncoder().encode("These are my notes, not a model.\n".repeat(20)))).toBe(
      "model_not_gguf",
    );
    expect(await code(new Uint8Array(3))).toBe("model_not_gguf");
    const future = model.slice();
    future[4] = 9; // GGUF version 9
    expect(await code(future)).toBe("model_not_gguf");
    const garbled = model.slice();
    garbled.set([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00], 8); // an absurd tensor count
    expect(await code(garbled)).toBe("model_not_gguf");
  });

  it("the message names the file and says what to do", async () => {
    const e = await readGgufSummary(bytes(model.subarray(0, model.length - 100)), "qwen.gguf").catch(
      (x: EdgeError) => x,
    );
    expect((e as EdgeError).message).toMatch(
      /qwen\.gguf is incomplete: its tensors need \d+ bytes but the file has \d+\. Download it again\./,
    );
  });

  it("reads the header in chunks, not the whole file", async () => {
    const big = new Uint8Array(64 << 20);
    big.set(model);
    const src = bytes(big);
    await readGgufSummary(src);
    expect(src.reads).toBeLessThanOrEqual(2);
  });
});

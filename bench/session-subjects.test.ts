// The model variants bench:session compares with a real model must differ from it only as they say:
// the random twin in its weight values (test/fixtures/random-twin.ts), the Q8_0 rewrite in its
// quantization type (test/fixtures/requantize.ts). On SmolLM2-135M-Instruct (Q4_1) when setup:models
// placed it; both files are written once into .cache/models/ and reused by the bench.
import { closeSync, openSync, readSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ggufTensorTypes, halfBits, halfValue, readTable, type TensorTable } from "../test/fixtures/gguf-table.ts";
import { randomTwin } from "../test/fixtures/random-twin.ts";
import { requantizedQ8_0 } from "../test/fixtures/requantize.ts";
import { realModel } from "../test/real-models.ts";

const smol = realModel("smollm2-135m-instruct-q4_1");
const Q4_1 = 3;
const Q8_0 = 8;

function read(path: string, at: number, length: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, at);
    return buf;
  } finally {
    closeSync(fd);
  }
}

function table(path: string): TensorTable {
  const fd = openSync(path, "r");
  try {
    return readTable(fd);
  } finally {
    closeSync(fd);
  }
}

/** The 32 weights of one Q4_1 block (d, m, 16 bytes of nibbles: low nibbles are weights 0..15). */
function q4_1(b: Buffer): number[] {
  const d = halfValue(b.readUInt16LE(0));
  const m = halfValue(b.readUInt16LE(2));
  const out: number[] = [];
  for (let j = 0; j < 16; j++) out[j] = (b[4 + j]! & 0x0f) * d + m;
  for (let j = 0; j < 16; j++) out[j + 16] = (b[4 + j]! >>> 4) * d + m;
  return out;
}

/** The 32 weights of one Q8_0 block (d, 32 int8). */
const q8_0 = (b: Buffer): number[] =>
  Array.from({ length: 32 }, (_, j) => b.readInt8(2 + j) * halfValue(b.readUInt16LE(0)));

describe("half floats (the scales of quantized blocks)", () => {
  it("round to the nearest half, ties to even, subnormals and signs included, and read back", () => {
    expect(halfBits(1)).toBe(0x3c00);
    expect(halfBits(-2)).toBe(0xc000);
    expect(halfBits(0.000015)).toBe(0x00fc); // subnormal (Q6_K's scale)
    expect(halfBits(1 + 2 ** -11)).toBe(0x3c00); // a tie: to the even mantissa
    expect(halfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(halfBits(70000)).toBe(0x7c00);
    for (const v of [0.0043, -0.03225, 0.00027, 6.1e-5, 1000])
      expect(Math.abs(halfValue(halfBits(v)) - v)).toBeLessThanOrEqual(Math.abs(v) * 2 ** -11 + 2 ** -25);
  });
});

describe.skipIf(!smol)("bench:session's model variants of SmolLM2-135M-Instruct", () => {
  it("the random twin keeps the real file's header, tensor table and quant types; its Q4_1 weights are centred on zero", () => {
    const real = smol!;
    const twin = randomTwin(real);
    expect(twin.size).toBe(real.size);
    expect(twin.sha256).not.toBe(real.sha256);
    expect(twin.types).toEqual(ggufTensorTypes(real.path));
    const t = table(real.path);
    expect(read(twin.path, 0, t.dataStart).equals(read(real.path, 0, t.dataStart))).toBe(true);
    const tensor = t.tensors.find((x) => x.type === Q4_1)!;
    const weights = Array.from({ length: 64 }, (_, k) =>
      q4_1(read(twin.path, t.dataStart + tensor.offset + k * 20, 20)),
    ).flat();
    const mean = weights.reduce((a, b) => a + b, 0) / weights.length;
    expect(Math.abs(mean)).toBeLessThan(0.005);
    expect(Math.min(...weights)).toBeLessThan(0);
    expect(Math.max(...weights)).toBeGreaterThan(0);
  });

  it("the Q8_0 rewrite holds the same trained weights, each within half a Q8_0 step", () => {
    const real = smol!;
    const q = requantizedQ8_0(real);
    const before = table(real.path);
    const after = table(q.path);
    expect(q.rewritten).toBe(before.tensors.filter((x) => x.type === Q4_1).length);
    expect(after.tensors.filter((x) => x.type === Q4_1)).toEqual([]);
    const original = before.tensors.find((x) => x.type === Q4_1)!;
    const rewritten = after.tensors.find((x) => x.name === original.name)!;
    expect(rewritten).toMatchObject({ type: Q8_0, dims: original.dims });
    for (const k of [0, 1, 1000]) {
      const w = q4_1(read(real.path, before.dataStart + original.offset + k * 20, 20));
      const v = q8_0(read(q.path, after.dataStart + rewritten.offset + k * 34, 34));
      const step = Math.max(...w.map(Math.abs)) / 127;
      w.forEach((x, j) => expect(Math.abs(v[j]! - x)).toBeLessThanOrEqual(step / 2 + 1e-3 * step + 1e-9));
    }
  });
});

// The Node runner's wire framing: what the host and a runner process exchange on fd 3, and what
// the host does with bytes a hostile tool writes there instead.
import { describe, expect, it } from "vitest";
import { encodeFrame, FrameError, FrameReader } from "./frames.ts";

const concat = (chunks: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(chunks));

const frame = (json: string, binary = new Uint8Array(0)): Uint8Array => {
  const text = new TextEncoder().encode(json);
  const head = new Uint8Array(8);
  new DataView(head.buffer).setUint32(0, 4 + text.byteLength + binary.byteLength);
  new DataView(head.buffer).setUint32(4, text.byteLength);
  return concat([head, text, binary]);
};

describe("frames", () => {
  it("carry JSON and byte values at any depth, whole or split in any chunks, aligned when reassembled", () => {
    const snapshot = new Uint8Array(1003).map((_, i) => i % 251);
    const msg = { type: "call", jobId: "j", source: new Uint8Array([1, 2, 3]), workspace: { files: { "a.txt": new Uint8Array([9]), "b/c": new Uint8Array(0) }, dirs: ["b"] }, snapshot };
    const bytes = concat(encodeFrame(msg));
    const twice = concat([bytes, bytes]);
    for (const size of [twice.byteLength, 7, 4096]) {
      const reader = new FrameReader(1 << 20);
      const got = [];
      for (let i = 0; i < twice.byteLength; i += size) got.push(...reader.push(twice.subarray(i, i + size)));
      expect(got).toHaveLength(2);
      for (const m of got) {
        expect(m).toEqual(msg);
        const snap = m.snapshot as Uint8Array;
        expect(Object.getPrototypeOf(snap)).toBe(Uint8Array.prototype); // not a Node Buffer
        expect(snap.byteOffset % 8).toBe(0);
      }
    }
  });

  it("refuse what is not a frame: oversized (from the header alone), bad JSON, bytes outside, not an object", () => {
    const reader = new FrameReader(1024);
    expect(() => reader.push(new Uint8Array([0xff, 0xff, 0xff, 0xff]))).toThrow(FrameError);
    const bad = [frame("{not json"), frame('{"x": {"$bytes": [0, 10]}}', new Uint8Array(4)), frame('{"x": {"$bytes": [-1, 1]}}'), frame("[1]"), frame('{"$bytes": [0, 0]}')];
    for (const f of bad) expect(() => new FrameReader(1024).push(f), new TextDecoder().decode(f.subarray(8))).toThrow(FrameError);
  });

  it("keep a field named __proto__ a plain field", () => {
    const [m] = new FrameReader(1024).push(frame('{"type": "done", "__proto__": {"polluted": true}}'));
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

// The Node runner's wire framing: what the host and a runner process exchange on fd 3, and what
// the host does with bytes a hostile tool writes there instead.
import { describe, expect, it } from "vitest";
import { encodeFlatFrame, encodeFrame, FrameError, FrameReader } from "./frames.ts";

const concat = (chunks: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(chunks));

const LIMITS = { json: 1024, bytes: 1024 };

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
    const msg = {
      type: "call",
      jobId: "j",
      source: new Uint8Array([1, 2, 3]),
      workspace: { files: { "a.txt": new Uint8Array([9]), "b/c": new Uint8Array(0) }, dirs: ["b"] },
      snapshot,
    };
    const bytes = concat(encodeFrame(msg));
    const twice = concat([bytes, bytes]);
    for (const size of [twice.byteLength, 7, 4096]) {
      const reader = new FrameReader({ json: 1 << 20, bytes: 1 << 20 });
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
    const reader = new FrameReader(LIMITS);
    expect(() => reader.push(new Uint8Array([0xff, 0xff, 0xff, 0xff]))).toThrow(FrameError);
    const bad = [
      frame("{not json"),
      frame('{"x": {"$bytes": [0, 10]}}', new Uint8Array(4)),
      frame('{"x": {"$bytes": [-1, 1]}}'),
      frame("[1]"),
      frame('{"$bytes": [0, 0]}'),
    ];
    for (const f of bad)
      expect(() => new FrameReader(LIMITS).push(f), new TextDecoder().decode(f.subarray(8))).toThrow(FrameError);
  });

  it("refuse a JSON part or byte values over the reader's limits from the header, before buffering them", () => {
    const header = (rest: number, json: number): Uint8Array => {
      const head = new Uint8Array(8);
      new DataView(head.buffer).setUint32(0, rest);
      new DataView(head.buffer).setUint32(4, json);
      return head;
    };
    const reader = (limits = { json: 64, bytes: 0 }) => new FrameReader(limits);
    expect(() => reader({ json: 64, bytes: 100 }).push(header(4 + 65, 65))).toThrow(
      /JSON part of 65 bytes is over the 64-byte limit/,
    );
    expect(() => reader().push(header(4 + 10 + 1, 10))).toThrow(/byte values of 1 bytes are over the 0-byte limit/);
    expect(() => reader().push(header(32 * 1024 * 1024, 32 * 1024 * 1024 - 4).subarray(0, 4))).toThrow(
      /outside 4\.\.68/,
    );
    expect(reader().push(frame('{"type": "ready"}'))).toEqual([{ type: "ready" }]);
    // Without byte values there is no reviver: a {"$bytes"} object stays plain JSON.
    expect(reader().push(frame('{"x": {"$bytes": [0, 0]}}'))).toEqual([{ x: { $bytes: [0, 0] } }]);
  });

  it("encode a flat message with captured primitives only: what tool code does to globals changes nothing", () => {
    const msg = { type: "done", jobId: "j1", reply: '{"ok":true,"é":"\u2028"}', hmac: "ab", n: 3, ok: true };
    const expected = concat(encodeFrame(msg));
    const saved = {
      stringify: JSON.stringify,
      encodeInto: TextEncoder.prototype.encodeInto,
      iterator: Array.prototype[Symbol.iterator],
      U8: globalThis.Uint8Array,
      keys: Object.keys,
    };
    let framed: ReturnType<typeof encodeFlatFrame>;
    try {
      JSON.stringify = () => "{}";
      TextEncoder.prototype.encodeInto = () => ({ read: 0, written: 0 });
      Array.prototype[Symbol.iterator] = function* () {} as typeof saved.iterator;
      (Object.prototype as { toJSON?: unknown }).toJSON = () => "hooked";
      Object.keys = () => [];
      (globalThis as { Uint8Array: unknown }).Uint8Array = function () {
        throw new Error("hooked");
      };
      framed = encodeFlatFrame(msg);
    } finally {
      JSON.stringify = saved.stringify;
      TextEncoder.prototype.encodeInto = saved.encodeInto;
      Array.prototype[Symbol.iterator] = saved.iterator;
      delete (Object.prototype as { toJSON?: unknown }).toJSON;
      Object.keys = saved.keys;
      globalThis.Uint8Array = saved.U8;
    }
    const { bytes, length } = framed;
    const [decoded] = new FrameReader({ json: 1024, bytes: 0 }).push(bytes.subarray(0, length));
    expect(decoded).toEqual(msg);
    expect(JSON.parse(new TextDecoder().decode(bytes.subarray(8, length)))).toEqual(
      JSON.parse(new TextDecoder().decode(expected.subarray(8)).trim()),
    );
    expect(() => encodeFlatFrame({ bytes: new Uint8Array(1) } as never)).toThrow(FrameError);
  });

  it("keep a field named __proto__ a plain field", () => {
    const [m] = new FrameReader(LIMITS).push(frame('{"type": "done", "__proto__": {"polluted": true}}'));
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

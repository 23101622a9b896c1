// The runner's own HMAC-SHA256 (workers/hmac-sha256.ts) must equal Node's: the host checks every
// reply with WebCrypto, so any difference fails every call closed. And it must not change when
// tool code has replaced the globals and prototypes it could reach.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hmacSha256Hex, sha256Hex } from "./hmac-sha256.ts";

const node = (key: string, message: string): string =>
  createHmac("sha256", Buffer.from(key, "hex")).update(message, "utf8").digest("hex");

describe("hmacSha256Hex", () => {
  it("equals Node's HMAC-SHA256 on block boundaries, long keys and any Unicode", () => {
    const messages = ["", "a", "call_1sha256:00", "é ü 中文 😀 \u{10ffff}", "lone \ud800 surrogate"];
    for (const n of [55, 56, 63, 64, 65, 119, 120, 1000]) messages.push("x".repeat(n));
    for (const keyBytes of [0, 1, 32, 64, 65, 200]) {
      const key = randomBytes(keyBytes).toString("hex");
      for (const m of messages)
        expect(hmacSha256Hex(key, m), `${keyBytes}-byte key, ${m.length} chars`).toBe(node(key, m));
    }
    expect(hmacSha256Hex("0B".repeat(20), "Hi There")).toBe(
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    ); // RFC 4231 case 1
  });

  it("hashes like Node's SHA-256 on block boundaries", () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 1000]) {
      const bytes = randomBytes(n);
      expect(sha256Hex(new Uint8Array(bytes)), `${n} bytes`).toBe(createHash("sha256").update(bytes).digest("hex"));
    }
  });

  it("gives the same answer after the globals and prototypes it could reach were replaced", () => {
    const key = randomBytes(32).toString("hex");
    const expected = node(key, "call_x" + "sha256:ab");
    const saved = {
      charCodeAt: String.prototype.charCodeAt,
      U8: globalThis.Uint8Array,
      I32: globalThis.Int32Array,
      call: Function.prototype.call,
    };
    try {
      String.prototype.charCodeAt = () => 0;
      (globalThis as { Uint8Array: unknown }).Uint8Array = function () {
        throw new Error("hooked");
      };
      (globalThis as { Int32Array: unknown }).Int32Array = globalThis.Uint8Array;
      Function.prototype.call = function () {
        throw new Error("hooked");
      };
      expect(hmacSha256Hex(key, "call_x" + "sha256:ab")).toBe(expected);
    } finally {
      Function.prototype.call = saved.call;
      String.prototype.charCodeAt = saved.charCodeAt;
      globalThis.Uint8Array = saved.U8;
      globalThis.Int32Array = saved.I32;
    }
  });

  it("refuses a key that is not hex", () => {
    expect(() => hmacSha256Hex("abc", "m")).toThrow(/not hex/);
    expect(() => hmacSha256Hex("zz", "m")).toThrow(/not hex/);
  });
});

// HMAC-SHA256 for the runner's reply signature, in plain JavaScript and synchronous, for every
// environment (a Node runner process, the browser's sandboxed worker, which has no crypto.subtle).
//
// The signature is computed here, outside the Python interpreter that runs tool code: tool code
// can replace anything in Python (hmac.HMAC, a function's __code__), so a key handed to Python
// could be learned. Tool code can also reach JavaScript globals through Pyodide's `js` module, so
// nothing here is looked up when it runs: the primitives it uses are captured when this module is
// evaluated (before any tool code exists), and the rest is operators on local typed arrays, whose
// indexed reads and writes no prototype can intercept.

const U8 = Uint8Array;
const I32 = Int32Array;
const charCodeAt = Function.prototype.call.bind(String.prototype.charCodeAt) as (text: string, index: number) => number;
const HEX = "0123456789abcdef";

const K = new I32([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const H0 = new I32([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** UTF-8 of `text` into a fresh array, `offset` bytes in (lone surrogates as U+FFFD, like TextEncoder). */
function utf8(text: string, offset: number): { bytes: Uint8Array; length: number } {
  const bytes = new U8(offset + text.length * 3);
  let n = offset;
  for (let i = 0; i < text.length; i++) {
    let c = charCodeAt(text, i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = charCodeAt(text, i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) bytes[n++] = c;
    else if (c < 0x800) {
      bytes[n++] = 0xc0 | (c >> 6);
      bytes[n++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      bytes[n++] = 0xe0 | (c >> 12);
      bytes[n++] = 0x80 | ((c >> 6) & 63);
      bytes[n++] = 0x80 | (c & 63);
    } else {
      bytes[n++] = 0xf0 | (c >> 18);
      bytes[n++] = 0x80 | ((c >> 12) & 63);
      bytes[n++] = 0x80 | ((c >> 6) & 63);
      bytes[n++] = 0x80 | (c & 63);
    }
  }
  return { bytes, length: n };
}

/** SHA-256 of the first `length` bytes of `data` (FIPS 180-4). */
function sha256(data: Uint8Array, length: number): Uint8Array {
  const total = ((length + 9 + 63) >>> 6) << 6;
  const m = new U8(total);
  for (let i = 0; i < length; i++) m[i] = data[i]!;
  m[length] = 0x80;
  const bits = length * 8;
  const high = (bits / 0x100000000) | 0;
  for (let i = 0; i < 4; i++) {
    m[total - 8 + i] = (high >>> (24 - 8 * i)) & 255;
    m[total - 4 + i] = (bits >>> (24 - 8 * i)) & 255;
  }
  const h = new I32(8);
  for (let i = 0; i < 8; i++) h[i] = H0[i]!;
  const w = new I32(64);
  for (let block = 0; block < total; block += 64) {
    for (let t = 0; t < 16; t++) {
      const j = block + 4 * t;
      w[t] = (m[j]! << 24) | (m[j + 1]! << 16) | (m[j + 2]! << 8) | m[j + 3]!;
    }
    for (let t = 16; t < 64; t++) {
      const a = w[t - 15]!;
      const b = w[t - 2]!;
      w[t] =
        (w[t - 16]! + (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + w[t - 7]! + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10))) |
        0;
    }
    let a = h[0]!,
      b = h[1]!,
      c = h[2]!,
      d = h[3]!,
      e = h[4]!,
      f = h[5]!,
      g = h[6]!,
      k = h[7]!;
    for (let t = 0; t < 64; t++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t]! + w[t]!) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0]! + a) | 0;
    h[1] = (h[1]! + b) | 0;
    h[2] = (h[2]! + c) | 0;
    h[3] = (h[3]! + d) | 0;
    h[4] = (h[4]! + e) | 0;
    h[5] = (h[5]! + f) | 0;
    h[6] = (h[6]! + g) | 0;
    h[7] = (h[7]! + k) | 0;
  }
  const out = new U8(32);
  for (let i = 0; i < 32; i++) out[i] = (h[i >> 2]! >>> (24 - 8 * (i & 3))) & 255;
  return out;
}

function hexDigit(text: string, i: number): number {
  const c = charCodeAt(text, i);
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  throw new Error("the HMAC key is not hex");
}

function hex(bytes: Uint8Array, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += HEX[bytes[i]! >>> 4]! + HEX[bytes[i]! & 15]!;
  return out;
}

/** Lowercase hex SHA-256 of `bytes` (the runner's warm-up hashes its rehearsal file with it). */
export function sha256Hex(bytes: Uint8Array): string {
  return hex(sha256(bytes, bytes.length), 32);
}

/** Lowercase hex HMAC-SHA256 of the UTF-8 bytes of `message`, keyed by the bytes of `keyHex`. */
export function hmacSha256Hex(keyHex: string, message: string): string {
  if (keyHex.length % 2 !== 0) throw new Error("the HMAC key is not hex");
  let keyLength = keyHex.length / 2;
  let key: Uint8Array = new U8(keyLength);
  for (let i = 0; i < keyLength; i++) key[i] = (hexDigit(keyHex, 2 * i) << 4) | hexDigit(keyHex, 2 * i + 1);
  if (keyLength > 64) {
    key = sha256(key, keyLength);
    keyLength = 32;
  }
  const inner = utf8(message, 64);
  const outer = new U8(64 + 32);
  for (let i = 0; i < 64; i++) {
    const byte = i < keyLength ? key[i]! : 0;
    inner.bytes[i] = byte ^ 0x36;
    outer[i] = byte ^ 0x5c;
  }
  const innerHash = sha256(inner.bytes, inner.length);
  for (let i = 0; i < 32; i++) outer[64 + i] = innerHash[i]!;
  return hex(sha256(outer, 96), 32);
}

// Canonical JSON (RFC 8785 / JCS) and `sha256:` hashes through WebCrypto, the same API in
// Node 20 and the browser. Every hash Edge writes goes through this file.
import canonicalizeJcs from "canonicalize";
import { EdgeError } from "./errors.ts";
import type { ToolSchema } from "./types.ts";

export type Sha256 = `sha256:${string}`;

const SHA256_RE = /^sha256:[0-9a-f]{64}$/;

export function isSha256(value: unknown): value is Sha256 {
  return typeof value === "string" && SHA256_RE.test(value);
}

/**
 * RFC 8785 canonical JSON text. Refuses what JSON cannot carry exactly: NaN/Infinity, lone
 * surrogates, undefined at the top level.
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalizeJcs(value);
  } catch (err) {
    throw EdgeError.withTableFix(
      "not_canonical_json",
      { reason: String(err) },
      `Value is not canonical JSON: ${String(err)}.`,
    );
  }
  if (text === undefined)
    throw EdgeError.withTableFix("not_canonical_json", {}, `Value is not canonical JSON: undefined.`);
  return text;
}

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

function hex(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

export async function sha256Bytes(bytes: Uint8Array): Promise<Sha256> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return `sha256:${hex(digest)}`;
}

/**
 * The bytes a text hash covers: UTF-8, except that a lone surrogate (which has no UTF-8 form) is
 * written as its three generalized-UTF-8 bytes (WTF-8: ED A0 80 … ED BF BF). No valid UTF-8
 * contains those, so two different strings never share bytes — TextEncoder alone would turn every
 * lone surrogate into U+FFFD, and "\ud800" would hash like "\ufffd". Well-formed text gives
 * exactly its UTF-8 bytes. Python: `text.encode("utf-8", "surrogatepass")`.
 */
function textHashBytes(text: string): Uint8Array {
  const parts: Uint8Array[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++; // a surrogate pair: ordinary UTF-8
        continue;
      }
    }
    parts.push(
      utf8(text.slice(from, i)),
      new Uint8Array([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]),
    );
    from = i + 1;
  }
  if (parts.length === 0) return utf8(text);
  parts.push(utf8(text.slice(from)));
  return concatBytes(parts);
}

/** The parts as one byte array (one part is returned as it is, not copied). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** sha256 of a text (prompt, answer, token, prefix): unambiguous for every JS string (textHashBytes). */
export function sha256Text(text: string): Promise<Sha256> {
  return sha256Bytes(textHashBytes(text));
}

/** sha256(JCS(value)): args_sha256, result_sha256, receipt hashes. */
export function sha256Json(value: unknown): Promise<Sha256> {
  return sha256Text(canonicalJson(value));
}

/** The canonical byte length of a value, for the 65,536-byte result rule. */
export function canonicalSize(value: unknown): number {
  return utf8(canonicalJson(value)).byteLength;
}

/** schema_sha256 of one tool: sha256(JCS(tool schema)). */
export function schemaSha256(schema: ToolSchema): Promise<Sha256> {
  return sha256Json(schema);
}

/** active_set_sha256: sha256(JCS(array of the active tools' schemas sorted by name)). */
export function activeSetSha256(schemas: readonly ToolSchema[]): Promise<Sha256> {
  const sorted = [...schemas].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sha256Json(sorted);
}

export async function hmacSha256Hex(secretHex: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    fromHex(secretHex) as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", key, utf8(message) as Uint8Array<ArrayBuffer>));
}

export function randomHex(bytes = 32): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  let out = "";
  for (const b of buf) out += b.toString(16).padStart(2, "0");
  return out;
}

function fromHex(text: string): Uint8Array {
  if (!/^(?:[0-9a-f]{2})*$/.test(text))
    throw EdgeError.withTableFix("internal_error", {}, `Expected an even-length lowercase hex string.`);
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Constant-time comparison of two equal-format strings (hex digests, tokens). */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = utf8(a);
  const y = utf8(b);
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

// File content of the workspace file system in just-bash's encodings (utf8 by default, base64,
// hex, binary/latin1, ascii): text to bytes and back.
import type { BufferEncoding, FileContent } from "just-bash";

const enc = new TextEncoder();
const dec = new TextDecoder();

export function encodeContent(content: FileContent, encoding?: BufferEncoding): Uint8Array {
  if (content instanceof Uint8Array) return new Uint8Array(content);
  switch (encoding) {
    case "base64":
      return Uint8Array.from(atob(content), (c) => c.charCodeAt(0));
    case "hex": {
      const out = new Uint8Array(Math.floor(content.length / 2));
      for (let i = 0; i < out.length; i++) out[i] = parseInt(content.slice(i * 2, i * 2 + 2), 16);
      return out;
    }
    case "binary":
    case "latin1":
      return Uint8Array.from(content, (c) => c.charCodeAt(0) & 0xff);
    case "ascii":
      return Uint8Array.from(content, (c) => c.charCodeAt(0) & 0x7f);
    default:
      return enc.encode(content);
  }
}

export function decodeContent(data: Uint8Array, encoding?: BufferEncoding | null): string {
  switch (encoding) {
    case "base64": {
      let s = "";
      for (let i = 0; i < data.length; i += 0x8000) s += String.fromCharCode(...data.subarray(i, i + 0x8000));
      return btoa(s);
    }
    case "hex":
      return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
    case "binary":
    case "latin1":
    case "ascii": {
      let s = "";
      for (let i = 0; i < data.length; i += 0x8000) s += String.fromCharCode(...data.subarray(i, i + 0x8000));
      return s;
    }
    default:
      return dec.decode(data);
  }
}

export function encodingOf(
  options?: { encoding?: BufferEncoding | null } | BufferEncoding,
): BufferEncoding | undefined {
  if (typeof options === "string") return options;
  return options?.encoding ?? undefined;
}

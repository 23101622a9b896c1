// Byte framing of the runner protocol (protocol.ts) for the Node runner process: the messages
// travel on a private pipe (fd 3 of the child), not on Node's built-in IPC channel, because
// Node's IPC parser throws in the PARENT on a malformed message (measured on Node 20: garbage
// written to the IPC fd by tool code crashed the CLI with an uncaught SyntaxError). Here a
// malformed or oversized frame is an error the host handles (it kills that runner).
//
// One frame: u32 big-endian length of the rest, u32 length of the JSON part, the JSON text
// (UTF-8), then the raw bytes of the message's top-level Uint8Array fields, each replaced in
// the JSON by {"$bytes": [offset, length]} into that binary part. Only top-level fields are
// carried as bytes: that is all the protocol needs (snapshot, source), and it keeps the decoder
// a few lines long. Environment-neutral apart from Uint8Array/TextEncoder.

/** What a frame carries: a JSON object whose top-level values may be Uint8Arrays. */
export type FrameMessage = Record<string, unknown>;

const HEADER = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export class FrameError extends Error {
  override readonly name = "FrameError";
}

/** The chunks of one frame (the header, the JSON, then each byte field, not copied). */
export function encodeFrame(msg: FrameMessage): Uint8Array[] {
  const blobs: Uint8Array[] = [];
  let offset = 0;
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(msg)) {
    if (value instanceof Uint8Array) {
      plain[key] = { $bytes: [offset, value.byteLength] };
      blobs.push(value);
      offset += value.byteLength;
    } else {
      plain[key] = value;
    }
  }
  let json = encoder.encode(JSON.stringify(plain));
  // Spaces after the JSON put the bytes at a multiple of 8 in the frame: a large frame is
  // reassembled at offset 0, so its byte fields arrive aligned (Pyodide reads a snapshot
  // through a Uint32Array, which needs that).
  const pad = (8 - ((4 + json.byteLength) % 8)) % 8;
  if (pad) json = encoder.encode(JSON.stringify(plain) + " ".repeat(pad));
  const header = new Uint8Array(HEADER);
  const view = new DataView(header.buffer);
  const rest = 4 + json.byteLength + offset;
  if (rest > 0xffff_ffff) throw new FrameError("message too large to frame");
  view.setUint32(0, rest);
  view.setUint32(4, json.byteLength);
  return [header, json, ...blobs];
}

/**
 * Reassembles frames from a byte stream. `push` returns the complete messages so far and
 * throws FrameError for anything malformed: a frame over `maxBytes` (checked from the header,
 * before anything is buffered), a bad JSON part, a byte reference outside the frame.
 */
export class FrameReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private need = -1; // length of the frame being read (after its first 4 bytes), -1 = header pending

  constructor(private readonly maxBytes: number) {}

  push(chunk: Uint8Array): FrameMessage[] {
    this.chunks.push(chunk);
    this.buffered += chunk.byteLength;
    const out: FrameMessage[] = [];
    for (;;) {
      if (this.need < 0) {
        if (this.buffered < 4) return out;
        const head = this.take(4);
        this.need = new DataView(head.buffer, head.byteOffset, 4).getUint32(0);
        if (this.need < 4 || this.need > this.maxBytes) throw new FrameError(`a frame of ${this.need} bytes is outside 4..${this.maxBytes}`);
      }
      if (this.buffered < this.need) return out;
      const body = this.take(this.need);
      this.need = -1;
      out.push(decodeBody(body));
    }
  }

  /** The first n buffered bytes as one array (copied only when they span chunks). */
  private take(n: number): Uint8Array {
    const first = this.chunks[0]!;
    let result: Uint8Array;
    if (first.byteLength >= n) {
      result = first.subarray(0, n);
      if (first.byteLength === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      result = new Uint8Array(n);
      let filled = 0;
      while (filled < n) {
        const c = this.chunks[0]!;
        const part = Math.min(c.byteLength, n - filled);
        result.set(c.subarray(0, part), filled);
        filled += part;
        if (part === c.byteLength) this.chunks.shift();
        else this.chunks[0] = c.subarray(part);
      }
    }
    this.buffered -= n;
    return result;
  }
}

function decodeBody(body: Uint8Array): FrameMessage {
  const jsonLength = new DataView(body.buffer, body.byteOffset, 4).getUint32(0);
  if (jsonLength > body.byteLength - 4) throw new FrameError("the JSON part is longer than the frame");
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(body.subarray(4, 4 + jsonLength)));
  } catch (err) {
    throw new FrameError(`the JSON part is not valid: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new FrameError("a frame must carry a JSON object");
  const binary = body.subarray(4 + jsonLength);
  const msg = value as FrameMessage;
  for (const [key, field] of Object.entries(msg)) {
    const ref = (field as { $bytes?: unknown } | null)?.$bytes;
    if (ref === undefined) continue;
    if (!Array.isArray(ref) || ref.length !== 2 || !ref.every((n) => Number.isSafeInteger(n) && n >= 0) || ref[0] + ref[1] > binary.byteLength) {
      throw new FrameError(`field ${key} refers to bytes outside the frame`);
    }
    // A plain, 8-byte aligned Uint8Array (Pyodide refuses Node Buffer views and reads a snapshot
    // through a Uint32Array), and defineProperty rather than assignment, so a key "__proto__"
    // stays a plain field.
    const start = binary.byteOffset + ref[0];
    let bytes = new Uint8Array(binary.buffer, start, ref[1]);
    if (start % 8 !== 0) bytes = new Uint8Array(bytes); // a copy, at offset 0
    Object.defineProperty(msg, key, { value: bytes, enumerable: true, writable: true, configurable: true });
  }
  return msg;
}

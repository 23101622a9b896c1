// Byte framing of the runner protocol (protocol.ts) for the Node runner process: the messages
// travel on a private pipe (fd 3 of the child), not on Node's built-in IPC channel, because
// Node's IPC parser throws in the PARENT on a malformed message (measured on Node 20: garbage
// written to the IPC fd by tool code crashed the CLI with an uncaught SyntaxError). Here a
// malformed or oversized frame is an error the host handles (it kills that runner).
//
// One frame: u32 big-endian length of the rest, u32 length of the JSON part, the JSON text
// (UTF-8), then raw bytes: every Uint8Array in the message, at any depth (a snapshot, a tools
// file, a workspace's files), is replaced in the JSON by {"$bytes": [offset, length]} into that
// binary part, so 31 MB of snapshot are never base64'd. Environment-neutral apart from
// Uint8Array/TextEncoder.
//
// A reader is given limits for both parts, checked from the 8-byte header before anything is
// buffered: the host reads a job runner's frames with a 1 MiB JSON limit and no byte values (only
// the snapshot maker sends large raw parts), so what a runner sends cannot make the host buffer or
// parse more than that. encodeFlatFrame is the runner's writer for every message after tool code
// may have run: it uses only primitives captured when this module was evaluated.

/** What a frame carries: a JSON object whose values (at any depth) may be Uint8Arrays. */
export type FrameMessage = Record<string, unknown>;

const HEADER = 8;
const ALIGN = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Largest JSON part of a frame from a runner (its replies are bounded far below: runner-jobs.ts). */
export const RUNNER_FRAME_JSON_LIMIT = 1024 * 1024;

/** What a FrameReader accepts in one frame: bytes of JSON and bytes of raw values. */
export interface FrameLimits {
  json: number;
  bytes: number;
}

export class FrameError extends Error {
  override readonly name = "FrameError";
}

/** The chunks of one frame (the header, the JSON, then the byte values, not copied). `msg` is a
 *  JSON object whose values (at any depth) may be Uint8Arrays: any message of the protocol. */
export function encodeFrame(msg: object): Uint8Array[] {
  const blobs: Uint8Array[] = [];
  let offset = 0;
  const text = JSON.stringify(msg, (_key, value: unknown) => {
    if (!(value instanceof Uint8Array)) return value;
    // Each byte value starts at a multiple of 8 (see the JSON padding below).
    const gap = (ALIGN - (offset % ALIGN)) % ALIGN;
    if (gap) blobs.push(new Uint8Array(gap));
    offset += gap;
    const ref = { $bytes: [offset, value.byteLength] };
    blobs.push(value);
    offset += value.byteLength;
    return ref;
  });
  const utf8 = encoder.encode(text);
  // Spaces after the JSON put the bytes at a multiple of 8 in the frame: a large frame is
  // reassembled at offset 0, so its byte values arrive aligned (Pyodide reads a snapshot through
  // a Uint32Array, which needs that) and are used without a copy.
  const pad = (ALIGN - ((4 + utf8.byteLength) % ALIGN)) % ALIGN;
  const json = pad ? new Uint8Array(utf8.byteLength + pad).fill(0x20) : utf8;
  if (pad) json.set(utf8);
  const header = new Uint8Array(HEADER);
  const view = new DataView(header.buffer);
  const rest = 4 + json.byteLength + offset;
  if (rest > 0xffff_ffff) throw new FrameError("message too large to frame");
  view.setUint32(0, rest);
  view.setUint32(4, json.byteLength);
  return [header, json, ...blobs];
}

// Captured when this module is evaluated, before any tool code exists (encodeFlatFrame).
const stringify = JSON.stringify;
const ownKeys = Object.keys;
const Bytes = Uint8Array;
const Buffer_ = ArrayBuffer;
const encodeInto = Function.prototype.call.bind(TextEncoder.prototype.encodeInto) as (
  encoder: TextEncoder,
  text: string,
  into: Uint8Array,
) => { read: number; written: number };

/**
 * One frame of a flat message, written with the primitives captured above only: JSON.stringify of
 * primitives (no toJSON is looked up for them), encodeInto into arrays built on a fresh
 * ArrayBuffer, the header set byte by byte. Nothing tool code can reach through globals or
 * prototypes is called, so tool code cannot see or change the frame a runner sends after it ran.
 * Returns the array and how many of its bytes are the frame.
 */
export function encodeFlatFrame(msg: object): { bytes: Uint8Array; length: number } {
  // A message of strings, numbers and booleans only (what a runner sends, apart from a snapshot):
  // each value is checked below.
  const fields = msg as Readonly<Record<string, unknown>>;
  const keys = ownKeys(fields);
  let text = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = fields[key];
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
      throw new FrameError(`${key} is not a string, number or boolean`);
    text += (i ? "," : "") + stringify(key) + ":" + stringify(value);
  }
  text += "}";
  const buffer = new Buffer_(HEADER + text.length * 3);
  const { written } = encodeInto(encoder, text, new Bytes(buffer, HEADER));
  const bytes = new Bytes(buffer);
  const rest = 4 + written;
  for (let i = 0; i < 4; i++) {
    bytes[i] = (rest >>> (24 - 8 * i)) & 255;
    bytes[4 + i] = (written >>> (24 - 8 * i)) & 255;
  }
  return { bytes, length: HEADER + written };
}

/**
 * Reassembles frames from a byte stream. `push` returns the complete messages so far and
 * throws FrameError for anything malformed: a frame over the limits (both parts checked from the
 * header, before anything is buffered), a bad JSON part, a byte reference outside the frame.
 */
export class FrameReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private need = -1; // length of the frame being read (after its first 4 bytes), -1 = header pending

  constructor(private readonly limits: FrameLimits) {}

  push(chunk: Uint8Array): FrameMessage[] {
    this.chunks.push(chunk);
    this.buffered += chunk.byteLength;
    const out: FrameMessage[] = [];
    for (;;) {
      if (this.need < 0) {
        if (this.buffered < 4) return out;
        const head = new DataView(this.peekHeader().buffer);
        const rest = head.getUint32(0);
        if (rest < 4 || rest > 4 + this.limits.json + this.limits.bytes)
          throw new FrameError(`a frame of ${rest} bytes is outside 4..${4 + this.limits.json + this.limits.bytes}`);
        if (this.buffered < HEADER) return out;
        const json = head.getUint32(4);
        if (json > rest - 4) throw new FrameError(`a frame of ${rest} bytes cannot hold ${json} bytes of JSON`);
        if (json > this.limits.json)
          throw new FrameError(`a frame's JSON part of ${json} bytes is over the ${this.limits.json}-byte limit`);
        if (rest - 4 - json > this.limits.bytes)
          throw new FrameError(
            `a frame's byte values of ${rest - 4 - json} bytes are over the ${this.limits.bytes}-byte limit`,
          );
        this.take(4); // the JSON length stays: byte values are aligned relative to it
        this.need = rest;
      }
      if (this.buffered < this.need) return out;
      const body = this.take(this.need);
      this.need = -1;
      out.push(decodeBody(body, this.limits.bytes > 0));
    }
  }

  /** A copy of the first HEADER buffered bytes (as many as there are), nothing consumed. */
  private peekHeader(): Uint8Array {
    const head = new Uint8Array(HEADER);
    let filled = 0;
    for (const c of this.chunks) {
      const part = Math.min(c.byteLength, HEADER - filled);
      head.set(c.subarray(0, part), filled);
      filled += part;
      if (filled === HEADER) break;
    }
    return head;
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

/** The message of one frame's body (its JSON length, JSON, byte values). `withBytes` false: a frame
 *  that may carry no byte values, parsed without the reviver (twice as fast on hostile JSON). */
function decodeBody(body: Uint8Array, withBytes: boolean): FrameMessage {
  const jsonLength = new DataView(body.buffer, body.byteOffset, 4).getUint32(0);
  if (jsonLength > body.byteLength - 4) throw new FrameError("the JSON part is longer than the frame");
  const binary = body.subarray(4 + jsonLength);
  // JSON.parse defines revived values as own data properties: a key "__proto__" stays a field.
  const revive = (_key: string, value: unknown): unknown => {
    const ref = bytesRef(value);
    if (!ref) return value;
    const [offset, length] = ref;
    if (offset + length > binary.byteLength) throw new FrameError("a byte value lies outside the frame");
    // A plain, 8-byte aligned Uint8Array: Pyodide refuses Node Buffer views and reads a snapshot
    // through a Uint32Array.
    const start = binary.byteOffset + offset;
    const bytes = new Uint8Array(binary.buffer, start, length);
    return start % ALIGN === 0 ? bytes : new Uint8Array(bytes); // a copy, at offset 0
  };
  let value: unknown;
  try {
    const text = decoder.decode(body.subarray(4, 4 + jsonLength));
    value = withBytes ? JSON.parse(text, revive) : JSON.parse(text);
  } catch (err) {
    if (err instanceof FrameError) throw err;
    throw new FrameError(`the JSON part is not valid: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Uint8Array)
    throw new FrameError("a frame must carry a JSON object");
  return value as FrameMessage;
}

/** [offset, length] of a {"$bytes": [offset, length]} placeholder (and nothing else), or undefined. */
function bytesRef(value: unknown): [number, number] | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== "$bytes") return undefined;
  const ref = (value as { $bytes: unknown }).$bytes;
  if (!Array.isArray(ref) || ref.length !== 2 || !ref.every((n) => Number.isSafeInteger(n) && n >= 0))
    throw new FrameError("a malformed byte reference");
  return ref as [number, number];
}

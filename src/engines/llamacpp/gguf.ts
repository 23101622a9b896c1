// A GGUF header reader: enough of the format to refuse a file before llama.cpp sees it (not GGUF,
// or shorter than its own tensor table says — a truncated download), and to read what the engine
// shows before loading (architecture, name, trained context length, chat template present).
// It reads through a `ByteSource` (a file in Node, a Blob in the browser) in chunks, so a 1 GB
// model costs a few reads of its header, never the whole file in memory.
import { EdgeError } from "../../contract/errors.ts";

/** Random access to the model bytes. */
export interface ByteSource {
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export interface GgufSummary {
  version: number;
  architecture: string | null;
  name: string | null;
  /** `general.finetune` ("Instruct", "8k-lc100k-mix1-ep2"…; null in base models' files). */
  finetune: string | null;
  /** `<architecture>.context_length`: the context the model was trained with. */
  contextLength: number | null;
  hasChatTemplate: boolean;
  tensorCount: number;
  /** The smallest file size that holds every tensor (data offset + last tensor's end). Null when a
   *  tensor has a type this reader does not know (llama.cpp still checks it when loading). */
  expectedSize: number | null;
}

// ggml_type → [elements per block, bytes per block] (ggml.c's type_traits; checked against the
// runtime's own table in test/engines/llamacpp-node.test.ts).
const GGML_TYPES: Record<number, readonly [number, number]> = {
  0: [1, 4], // F32
  1: [1, 2], // F16
  2: [32, 18], // Q4_0
  3: [32, 20], // Q4_1
  6: [32, 22], // Q5_0
  7: [32, 24], // Q5_1
  8: [32, 34], // Q8_0
  9: [32, 36], // Q8_1
  10: [256, 84], // Q2_K
  11: [256, 110], // Q3_K
  12: [256, 144], // Q4_K
  13: [256, 176], // Q5_K
  14: [256, 210], // Q6_K
  15: [256, 292], // Q8_K
  16: [256, 66], // IQ2_XXS
  17: [256, 74], // IQ2_XS
  18: [256, 98], // IQ3_XXS
  19: [256, 50], // IQ1_S
  20: [32, 18], // IQ4_NL
  21: [256, 110], // IQ3_S
  22: [256, 82], // IQ2_S
  23: [256, 136], // IQ4_XS
  24: [1, 1], // I8
  25: [1, 2], // I16
  26: [1, 4], // I32
  27: [1, 8], // I64
  28: [1, 8], // F64
  29: [256, 56], // IQ1_M
  30: [1, 2], // BF16
  34: [256, 54], // TQ1_0
  35: [256, 66], // TQ2_0
  39: [32, 17], // MXFP4
};
export const KNOWN_GGML_TYPES: readonly number[] = Object.keys(GGML_TYPES).map(Number);
export function ggmlTypeSize(type: number): readonly [number, number] | undefined {
  return GGML_TYPES[type];
}

// GGUF metadata value types → fixed byte size (strings and arrays are handled apart).
const FIXED: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const STRING = 8;
const ARRAY = 9;
const CHUNK = 1 << 20;
/** Beyond these a header is garbage, not a model (keeps a hostile file from making us loop). */
const MAX_COUNT = 1 << 24;

class Truncated extends Error {}

/** A forward cursor over a ByteSource, reading ahead in 1 MiB chunks. */
class Cursor {
  private buf: Uint8Array = new Uint8Array(0);
  private bufStart = 0;
  pos = 0;
  constructor(private readonly src: ByteSource) {}

  private async ensure(n: number): Promise<DataView> {
    if (this.pos + n > this.src.size) throw new Truncated();
    const end = this.bufStart + this.buf.length;
    if (this.pos < this.bufStart || this.pos + n > end) {
      const length = Math.min(Math.max(n, CHUNK), this.src.size - this.pos);
      this.buf = await this.src.read(this.pos, length);
      this.bufStart = this.pos;
      if (this.buf.length < n) throw new Truncated();
    }
    return new DataView(this.buf.buffer, this.buf.byteOffset + (this.pos - this.bufStart), n);
  }
  async u32(): Promise<number> {
    const v = (await this.ensure(4)).getUint32(0, true);
    this.pos += 4;
    return v;
  }
  async u64(): Promise<number> {
    const v = (await this.ensure(8)).getBigUint64(0, true);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new TypeError(`an implausible 64-bit value ${v}`);
    return Number(v);
  }
  async bytes(n: number): Promise<Uint8Array> {
    if (n > CHUNK) {
      // A long string (a chat template) is read on its own rather than through the chunk.
      if (this.pos + n > this.src.size) throw new Truncated();
      const direct = await this.src.read(this.pos, n);
      if (direct.length < n) throw new Truncated();
      this.pos += n;
      return direct;
    }
    const view = await this.ensure(n);
    this.pos += n;
    return new Uint8Array(view.buffer, view.byteOffset, n);
  }
  async str(): Promise<string> {
    return new TextDecoder().decode(await this.bytes(await this.u64()));
  }
  skip(n: number): void {
    this.pos += n;
    if (this.pos > this.src.size) throw new Truncated();
  }
}

async function readValue(c: Cursor, type: number): Promise<string | number | boolean | null> {
  if (type === STRING) return c.str();
  if (type === ARRAY) {
    const itemType = await c.u32();
    const count = await c.u64();
    if (count > MAX_COUNT) throw new TypeError(`an array of ${count} items`);
    if (itemType === STRING) for (let i = 0; i < count; i++) c.skip(await c.u64());
    else if (FIXED[itemType] !== undefined) c.skip(count * FIXED[itemType]!);
    else throw new TypeError(`unknown array item type ${itemType}`);
    return null;
  }
  const size = FIXED[type];
  if (size === undefined) throw new TypeError(`unknown metadata value type ${type}`);
  const view = new DataView((await c.bytes(size)).slice().buffer);
  switch (type) {
    case 0:
      return view.getUint8(0);
    case 1:
      return view.getInt8(0);
    case 2:
      return view.getUint16(0, true);
    case 3:
      return view.getInt16(0, true);
    case 4:
      return view.getUint32(0, true);
    case 5:
      return view.getInt32(0, true);
    case 6:
      return view.getFloat32(0, true);
    case 7:
      return view.getUint8(0) !== 0;
    case 10:
      return Number(view.getBigUint64(0, true));
    case 11:
      return Number(view.getBigInt64(0, true));
    default:
      return view.getFloat64(0, true);
  }
}

const notGguf = (reason: string, name: string): EdgeError =>
  new EdgeError(
    "model_not_gguf",
    { reason, file: name },
    `${name} is not a GGUF model file (${reason}); pick a .gguf file made for llama.cpp.`,
  );
const truncated = (name: string, size: number, expected?: number): EdgeError =>
  new EdgeError(
    "model_truncated",
    { file: name, size, ...(expected !== undefined ? { expectedSize: expected } : {}) },
    expected !== undefined
      ? `${name} is incomplete: its tensors need ${expected} bytes but the file has ${size}. Download it again.`
      : `${name} ends inside its own header (${size} bytes); it is incomplete. Download it again.`,
  );

/** Read and check a GGUF header; throws `model_not_gguf` or `model_truncated`. */
export async function readGgufSummary(src: ByteSource, name = "The model file"): Promise<GgufSummary> {
  const c = new Cursor(src);
  if (src.size < 8) throw notGguf("too short to be a model", name);
  const magic = await c.bytes(4);
  if (String.fromCharCode(...magic) !== "GGUF") throw notGguf("it does not start with the GGUF magic bytes", name);
  const version = await c.u32();
  if (version !== 2 && version !== 3) throw notGguf(`unsupported GGUF version ${version}`, name);
  try {
    const tensorCount = await c.u64();
    const kvCount = await c.u64();
    if (tensorCount > MAX_COUNT || kvCount > MAX_COUNT) throw notGguf("its header counts are implausible", name);
    const meta = new Map<string, string | number | boolean | null>();
    for (let i = 0; i < kvCount; i++) {
      const key = await c.str();
      meta.set(key, await readValue(c, await c.u32()));
    }
    let dataEnd = 0;
    let known = true;
    for (let i = 0; i < tensorCount; i++) {
      await c.str();
      const dims = await c.u32();
      if (dims > 8) throw notGguf(`tensor ${i} has ${dims} dimensions`, name);
      let elements = 1;
      for (let d = 0; d < dims; d++) elements *= await c.u64();
      const type = await c.u32();
      const offset = await c.u64();
      const traits = GGML_TYPES[type];
      if (!traits) known = false;
      else dataEnd = Math.max(dataEnd, offset + Math.ceil(elements / traits[0]) * traits[1]);
    }
    const alignment =
      typeof meta.get("general.alignment") === "number" ? (meta.get("general.alignment") as number) : 32;
    const dataStart = Math.ceil(c.pos / alignment) * alignment;
    const expectedSize = known ? dataStart + dataEnd : null;
    if (expectedSize !== null && src.size < expectedSize) throw truncated(name, src.size, expectedSize);
    const architecture =
      typeof meta.get("general.architecture") === "string" ? (meta.get("general.architecture") as string) : null;
    const ctx = architecture ? meta.get(`${architecture}.context_length`) : undefined;
    const text = (key: string): string | null => (typeof meta.get(key) === "string" ? (meta.get(key) as string) : null);
    return {
      version,
      architecture,
      name: text("general.name"),
      finetune: text("general.finetune"),
      contextLength: typeof ctx === "number" ? ctx : null,
      hasChatTemplate: typeof meta.get("tokenizer.chat_template") === "string",
      tensorCount,
      expectedSize,
    };
  } catch (e) {
    if (e instanceof Truncated) throw truncated(name, src.size);
    if (e instanceof TypeError) throw notGguf(e.message, name);
    throw e;
  }
}

// The header of a llama.cpp sequence state file (what node-llama-cpp's saveStateToFile writes:
// llama_state_seq_save_file): magic "ggsq", format version, the token count and the token ids, then
// the KV cache. Edge reads the header before handing a file to llama.cpp, so a file that is not a
// state, or holds other tokens than the ones expected, is refused without the runtime seeing it.
// The KV part is checked by llama.cpp itself on load (layer count, tensor types, row sizes).

/** How imprint records name this format. */
export const LLAMA_STATE_FORMAT = "llama.cpp.seq_state";

/** LLAMA_STATE_SEQ_MAGIC ('ggsq' as a little-endian u32). */
const LLAMA_STATE_SEQ_MAGIC = 0x67677371;

export interface SeqStateHeader {
  version: number;
  tokens: number[];
}

/** The header, or null when the bytes are not a llama.cpp sequence state (or end inside the header). */
export function readSeqStateHeader(bytes: Uint8Array): SeqStateHeader | null {
  if (bytes.byteLength < 12) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== LLAMA_STATE_SEQ_MAGIC) return null;
  const version = view.getUint32(4, true);
  const count = view.getUint32(8, true);
  const end = 12 + count * 4;
  if (end > bytes.byteLength) return null;
  const tokens = new Array<number>(count);
  for (let i = 0; i < count; i++) tokens[i] = view.getInt32(12 + i * 4, true);
  return { version, tokens };
}

// Export and import of imprints as files. An imprint without a saved state exports as its sealed
// record (pretty JSON, the format since v1). One with a state exports as one JSON bundle,
// `edge.imprint.export.v2`: the record and the state file's bytes (base64), so one file carries
// both. Import verifies the seal, and the state's size and sha256 against the record, before
// anything is stored: an edited record or a changed state is refused and never lands in the store.
import { EdgeError } from "../contract/errors.ts";
import { sha256Bytes } from "../contract/hash.ts";
import type { Imprint } from "./record.ts";
import type { ImprintStore } from "./store.ts";
import { parseImprintJson, verifyImprint } from "./record.ts";

const IMPRINT_EXPORT_VERSION = "edge.imprint.export.v2";

/** An imprint as a file carries it: the record, and its state file's bytes when it has one. */
export interface ImprintExport {
  imprint: Imprint;
  state: Uint8Array | null;
}

/** A multiple of 3 (chunks then encode without padding in between), small enough to spread. */
const CHUNK_BYTES = 3 * 8192;

function toBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += CHUNK_BYTES)
    out += btoa(String.fromCharCode(...bytes.subarray(i, i + CHUNK_BYTES)));
  return out;
}

function fromBase64(text: string): Uint8Array {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

function stateCorrupted(reason: string, message: string): EdgeError {
  return EdgeError.withTableFix("imprint_state_corrupted", { reason }, `${message}; nothing was imported.`);
}

/** The file text for an imprint and (when it has one) its verified state bytes. */
export function renderImprintExport(imprint: Imprint, state: Uint8Array | null): string {
  if (!state) return `${JSON.stringify(imprint, null, 2)}\n`;
  return `{\n"export_version": ${JSON.stringify(IMPRINT_EXPORT_VERSION)},\n"imprint": ${JSON.stringify(imprint, null, 2)},\n"state_base64": "${toBase64(state)}"\n}\n`;
}

/** Parse an exported file: a plain record, or a bundle whose state must match the record. */
export async function parseImprintExport(text: string): Promise<ImprintExport> {
  const value = parseImprintJson(text);
  const bundle = value as { export_version?: unknown; imprint?: unknown; state_base64?: unknown } | null;
  if (bundle?.export_version !== IMPRINT_EXPORT_VERSION) return { imprint: await verifyImprint(value), state: null };
  const imprint = await verifyImprint(bundle.imprint);
  const state = imprint.state;
  if (!state)
    throw stateCorrupted(
      "unexpected_state",
      "The file carries a model state, but its imprint records none (the file was edited)",
    );
  let bytes: Uint8Array;
  try {
    if (typeof bundle.state_base64 !== "string") throw new Error("missing");
    bytes = fromBase64(bundle.state_base64);
  } catch {
    throw stateCorrupted("base64", "The file's model state is missing or not valid base64");
  }
  if (bytes.byteLength !== state.artifact_bytes) {
    throw stateCorrupted(
      "size",
      `The file's model state is ${bytes.byteLength} bytes, but the imprint sealed ${state.artifact_bytes}`,
    );
  }
  if ((await sha256Bytes(bytes)) !== state.artifact_sha256) {
    throw stateCorrupted(
      "sha256",
      "The file's model state does not match the sha256 the imprint sealed (it was changed)",
    );
  }
  return { imprint, state: bytes };
}

export async function exportImprint(store: ImprintStore, id: string): Promise<string> {
  return renderImprintExport(await store.get(id), null);
}

/** Import into a store that keeps records only (IndexedDB, memory): a bundle's state is verified,
 *  then left out — the browser engines cannot load it, and restore evaluates the prefix instead. */
export async function importImprint(store: ImprintStore, text: string): Promise<Imprint> {
  const { imprint } = await parseImprintExport(text);
  await store.put(imprint);
  return imprint;
}

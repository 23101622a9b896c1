// Whether a path given to `edge tools validate|inspect` is a tools manifest (JSON) rather than a
// tools.py. On its own so that a tools.py's validation loads none of the facts code.
import { readToolsFile } from "../runner/node-file-source.ts";

/** True when the bytes look like a JSON document rather than Python (for `tools validate FILE`). */
function looksLikeJson(raw: Uint8Array | string): boolean {
  const text = typeof raw === "string" ? raw : new TextDecoder().decode(raw.subarray(0, 64));
  return /^\uFEFF?\s*\{/.test(text);
}

/** The file's bytes when it is a tools manifest (.json name, or JSON content), else null. */
export async function readIfManifest(file: string): Promise<Uint8Array | null> {
  let raw: Uint8Array;
  try {
    // The tools file's own reader: a regular file within the size limit, or no manifest.
    raw = await readToolsFile(file);
  } catch {
    return null; // the tools.py path reports unreadable, non-regular or oversized files with its own code
  }
  return file.toLowerCase().endsWith(".json") || looksLikeJson(raw) ? raw : null;
}

// Reading a model download to its end, the same in Node (into a temp file) and in the browser
// (into an OPFS part file), and the errors both report: every chunk goes to the caller's sink
// (hash + write) in order, a broken transfer is `model_fetch_failed`, an abort is `aborted`, a
// file whose sha256 is not the pinned one is `model_integrity_failed`, and the transfer is
// cancelled when we leave early, so nothing more is read or kept.
import { EdgeError } from "../../contract/errors.ts";
import { raceSignal } from "../../contract/abort.ts";
import { loadAbortedError } from "../engine.ts";

/** A pinned sha256 ("sha256:<hex>" or hex, any case) as lowercase hex. */
export const pinHex = (sha: string | undefined): string | undefined => sha?.replace(/^sha256:/, "").toLowerCase();

/** The downloaded or given file's sha256 is not the pinned one. */
export function integrityError(name: string, expected: string, actual: string): EdgeError {
  return new EdgeError(
    "model_integrity_failed",
    { model: name, expected: `sha256:${expected}`, actual: `sha256:${actual}` },
    `${name}: the file's sha256 is sha256:${actual}, but sha256:${expected} was pinned for it, so it was not used and nothing was cached. Download it again, or check the pinned hash.`,
  );
}

export function fetchFailed(url: string, reason: string, details: Record<string, unknown> = {}): EdgeError {
  return EdgeError.withTableFix(
    "model_fetch_failed",
    { url, reason, ...details },
    `The model could not be downloaded from ${url}: ${reason}.`,
  );
}

/** Pump `body` into `sink`; `onBytes` gets the running byte count. Resolves with the total,
 *  checked against `total` (content-length) when the server sent one. */
export async function pumpDownload(
  url: string,
  body: ReadableStream<Uint8Array>,
  total: number,
  sink: (chunk: Uint8Array) => Promise<void> | void,
  onBytes: (size: number) => void,
  signal?: AbortSignal,
): Promise<number> {
  const reader = body.getReader();
  let size = 0;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await raceSignal(reader.read(), signal, loadAbortedError);
      } catch (e) {
        if (signal?.aborted) throw loadAbortedError();
        throw fetchFailed(url, `the download broke off after ${size} bytes (${(e as Error).message})`);
      }
      if (chunk.done) break;
      await sink(chunk.value);
      size += chunk.value.length;
      onBytes(size);
    }
  } catch (e) {
    await reader.cancel().catch(() => undefined);
    throw e;
  }
  if (total && size !== total) throw fetchFailed(url, `received ${size} of ${total} bytes`);
  return size;
}

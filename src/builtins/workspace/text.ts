// Whether workspace bytes are text a person can read and edit: UTF-8 without NUL bytes.

/** The text, or null for binary content. */
export function asText(data: Uint8Array): string | null {
  if (data.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return null;
  }
}

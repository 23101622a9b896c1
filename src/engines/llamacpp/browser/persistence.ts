// Persistent storage for downloaded models: asked for, never waited on. Firefox keeps
// `navigator.storage.persist()` pending while its permission prompt is unanswered (headless:
// forever), so a load that awaited it never started. The UI asks when a download starts and says
// what the browser answered whenever it answers; the download goes on meanwhile.

/** What the browser granted: kept when space runs low ("persisted"), may be cleared then
 *  ("best_effort"), or no such API here ("unsupported"). */
export type Persistence = "persisted" | "best_effort" | "unsupported";

/** Ask (once, where not granted yet); resolves when the browser answers, which may be never. */
export async function askPersistence(): Promise<Persistence> {
  const storage = globalThis.navigator?.storage;
  if (typeof storage?.persist !== "function") return "unsupported";
  if (await storage.persisted?.().catch(() => false)) return "persisted";
  return (await storage.persist().catch(() => false)) ? "persisted" : "best_effort";
}

/** The sentence for each answer (and for the wait before one). */
export function persistenceText(p: Persistence | "asking"): string {
  switch (p) {
    case "persisted":
      return "The browser keeps stored models even when space runs low.";
    case "best_effort":
      return "The browser may clear stored models when space runs low (it did not grant persistent storage).";
    case "unsupported":
      return "This browser does not say whether it keeps stored models when space runs low.";
    case "asking":
      return "Asked the browser to keep stored models; the download does not wait for its answer.";
  }
}

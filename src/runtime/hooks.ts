// An ordered list of hooks where each registration returns its own disposer. Entries are
// wrapped so registering the same function twice gives two independent registrations.
import type { Disposer } from "./types.ts";

export class HookList<H> {
  #entries: { hook: H }[] = [];

  add(hook: H): Disposer {
    const entry = { hook };
    this.#entries = [...this.#entries, entry];
    return () => {
      this.#entries = this.#entries.filter((e) => e !== entry);
    };
  }

  /** A snapshot: hooks added or removed while a call runs affect the next call, not this one. */
  current(): readonly H[] {
    return this.#entries.map((e) => e.hook);
  }
}

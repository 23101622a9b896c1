// The monotonic guard's state. Allow is only the absence of objections, so there is no method
// that sets it: an "allow" from a later hook or a second approval simply has nothing to call.
// Deny is absorbing; ask can be resolved only by an approval, and only while nothing denied.
import type { ErrorCode } from "../contract/errors.ts";

export type VerdictState = "allow" | "ask" | "deny";

export interface Denial {
  reason: string;
  code: ErrorCode;
}

export class Verdict {
  #state: VerdictState = "allow";
  #denial: Denial | null = null;
  readonly #asks: string[] = [];

  get state(): VerdictState {
    return this.#state;
  }

  get denial(): Denial | null {
    return this.#denial;
  }

  get askReasons(): readonly string[] {
    return [...this.#asks];
  }

  /** The first denial wins; later denials keep the first reason and code. */
  deny(reason: string, code: ErrorCode = "tool_denied"): void {
    if (this.#state !== "deny") this.#denial = { reason, code };
    this.#state = "deny";
  }

  ask(reason: string): void {
    this.#asks.push(reason);
    if (this.#state === "allow") this.#state = "ask";
  }

  /** Approval granted an ask. Ignored unless the state is exactly "ask" (never lifts a deny). */
  grant(): void {
    if (this.#state === "ask") this.#state = "allow";
  }
}

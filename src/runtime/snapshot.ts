// Deep-frozen copies for hooks and observers. A copy (not a freeze of the original) so that an
// observer can neither mutate the caller's result nor be surprised by later mutation of it.
import type { DeepReadonly } from "./types.ts";

/**
 * Plain objects and arrays are copied and frozen recursively; other objects (Date, Map, typed
 * arrays) go through structuredClone; what cannot be cloned (functions, symbols) becomes
 * undefined, the same way JSON drops it. Cycles are preserved, not expanded.
 */
export function snapshot<T>(value: T): DeepReadonly<T> {
  return copy(value, new Map()) as DeepReadonly<T>;
}

function copy(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value === "function" || typeof value === "symbol") return undefined;
  if (value === null || typeof value !== "object") return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(copy(item, seen));
    return Object.freeze(out);
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = proto === null ? Object.create(null) : {};
    seen.set(value, out);
    for (const [key, item] of Object.entries(value)) out[key] = copy(item, seen);
    return Object.freeze(out);
  }
  let cloned: unknown;
  try {
    cloned = structuredClone(value);
  } catch {
    return undefined;
  }
  seen.set(value, cloned);
  // Typed arrays cannot be frozen while they have elements; the clone already isolates them.
  if (!ArrayBuffer.isView(cloned)) Object.freeze(cloned);
  return cloned;
}

// Switching models. A loaded web-llm model holds its weights and KV cache in GPU memory, and its
// worker holds web-llm; loading the next model beside it would need both in memory at once (two
// 1–2 GB models on an integrated GPU fail, or push the first one out by a device loss). So the
// previous engine is unloaded — its worker ended — before the next one is created and loaded. The
// scripted demo (`keep`) holds nothing and stays usable as the fallback.
import type { Engine } from "../engines/engine.ts";

export interface EngineSwitch<E extends Engine> {
  /** The engine in use now (the one to free), or null. */
  previous: Engine | null;
  /** An engine never unloaded here (the scripted demo). */
  keep?: Engine;
  create(): E;
  load(engine: E): Promise<void>;
  /** Called after the previous engine was freed, before the next one starts loading. */
  onFreed?(previous: Engine): void;
}

export async function switchEngine<E extends Engine>(s: EngineSwitch<E>): Promise<E> {
  const previous = s.previous;
  if (previous && previous !== s.keep) {
    await previous.unload().catch(() => undefined);
    s.onFreed?.(previous);
  }
  const next = s.create();
  try {
    await s.load(next);
  } catch (err) {
    await next.unload().catch(() => undefined);
    throw err;
  }
  return next;
}

// The browser half of bench/session.bench.ts, on the bench page (Chromium, Firefox, WebKit): one
// session through LlamaCppEngine (page → wllama, the bytes from its worker) on a model (a real one, a
// random twin or a real shape: bench/session-subjects.ts) at a given thread count (more than one
// only when the bench page is served cross-origin isolated), and, after a reload, the model loaded
// from the device's store and its first turn — asked at once, or after the conversation start was
// warmed. bench/session-core.ts does the turns.
import { createBrowserLlamaBackend } from "../../src/engines/llamacpp/browser/backend.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import {
  afterReload,
  sessionTurns,
  type Reloaded,
  type SessionPlan,
  type SessionSamples,
} from "../../bench/session-core.ts";

export interface SessionModel {
  url: string;
  sha256: string;
  threads: number;
  /** wllama's compat build (wasm32 + Asyncify, what Safari gets) instead of the default (Memory64 + JSPI). */
  compat?: boolean;
}

async function loaded(m: SessionModel): Promise<{ engine: LlamaCppEngine; loadMs: number }> {
  const backend = createBrowserLlamaBackend({ device: "cpu", ...(m.compat ? { wllamaBuild: "compat" as const } : {}) });
  const engine = new LlamaCppEngine({
    backend,
    model: { kind: "url", url: m.url, sha256: m.sha256 },
    threads: m.threads,
  });
  const t = performance.now();
  await engine.load();
  return { engine, loadMs: performance.now() - t };
}

export async function llamaSession(
  m: SessionModel,
  plan: SessionPlan,
): Promise<SessionSamples & { runtime: string; isolated: boolean; userAgent: string }> {
  const { engine, loadMs } = await loaded(m);
  try {
    const s = await sessionTurns(engine, plan, loadMs);
    return {
      ...s,
      runtime: engine.info().fingerprint?.runtime ?? "",
      isolated: crossOriginIsolated,
      userAgent: navigator.userAgent,
    };
  } finally {
    await engine.unload();
  }
}

/** On a freshly reloaded page: the model from the device's store, then the first turn asked at
 *  once ("cold": the returning visitor) or after Engine.warmPrefix ("warm"). */
export async function llamaReturning(
  m: SessionModel,
  plan: SessionPlan,
  start: "cold" | "warm" = "cold",
): Promise<Reloaded> {
  const { engine, loadMs } = await loaded(m);
  try {
    return await afterReload(engine, plan, start, loadMs);
  } finally {
    await engine.unload();
  }
}

// The Chromium half of bench/session.bench.ts, on the bench page: one session through
// LlamaCppEngine (page → comlink → its worker → wllama) on a real-shape model at a given thread
// count (more than one only when the bench page is served cross-origin isolated), and the first
// turn after a reload (the model from the device's store). bench/session-core.ts does the turns.
import { createBrowserLlamaBackend } from "../../src/engines/llamacpp/browser/backend.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import { returningTurn, sessionTurns, type NotMeasured, type SessionPlan, type SessionSamples, type Turn } from "../../bench/session-core.ts";

export interface SessionModel {
  url: string;
  sha256: string;
  threads: number;
  /** wllama's compat build (wasm32 + Asyncify, what Safari gets) instead of the default (Memory64 + JSPI). */
  compat?: boolean;
}

const compatWorker = () => new Worker(new URL("./llamacpp-compat.worker.ts", import.meta.url), { type: "module" });

async function loaded(m: SessionModel): Promise<{ engine: LlamaCppEngine; loadMs: number }> {
  const backend = createBrowserLlamaBackend({ device: "cpu", ...(m.compat ? { createWorker: compatWorker } : {}) });
  const engine = new LlamaCppEngine({ backend, model: { kind: "url", url: m.url, sha256: m.sha256 }, threads: m.threads });
  const t = performance.now();
  await engine.load();
  return { engine, loadMs: performance.now() - t };
}

export async function llamaSession(m: SessionModel, plan: SessionPlan): Promise<SessionSamples & { runtime: string; isolated: boolean }> {
  const { engine, loadMs } = await loaded(m);
  try {
    const s = await sessionTurns(engine, plan, loadMs);
    return { ...s, runtime: engine.info().fingerprint?.runtime ?? "", isolated: crossOriginIsolated };
  } finally {
    await engine.unload();
  }
}

export async function llamaReturning(m: SessionModel, plan: SessionPlan): Promise<(Turn | NotMeasured) & { loadMs: number }> {
  const { engine, loadMs } = await loaded(m);
  try {
    return { ...(await returningTurn(engine, plan)), loadMs };
  } finally {
    await engine.unload();
  }
}

// Test page for e2e/engine.spec.ts: exposes the real WebLLMEngine to Playwright. The import
// below is the public engines module; it must not pull web-llm into this page's initial chunk.
import { EdgeError } from "../../src/contract/errors.ts";
import {
  WebLLMEngine,
  listModels,
  type EngineInfo,
  type LoadProgress,
  type WebLLMEngineOptions,
} from "../../src/engines/index.ts";

export interface LoadOutcome {
  ok: boolean;
  code?: string;
  message?: string;
  details?: Record<string, unknown>;
  info: EngineInfo;
  gpu: WebLLMEngine["gpu"];
  progress: LoadProgress[];
  ms: number;
}

async function load(options: WebLLMEngineOptions = {}): Promise<LoadOutcome> {
  const engine = new WebLLMEngine(options);
  const progress: LoadProgress[] = [];
  const t0 = performance.now();
  try {
    await engine.load((p) => progress.push(p));
    return { ok: true, info: engine.info(), gpu: engine.gpu, progress, ms: performance.now() - t0 };
  } catch (e) {
    const err = e instanceof EdgeError ? e : undefined;
    return {
      ok: false,
      code: err?.code ?? "not_an_edge_error",
      message: err?.message ?? String(e),
      details: err?.details,
      info: engine.info(),
      gpu: engine.gpu,
      progress,
      ms: performance.now() - t0,
    };
  } finally {
    await engine.unload();
  }
}

/** The largest script (by decoded size) this page's own JavaScript realm has loaded so far, for
 *  the lazy-load check. The llm worker's entry script is excluded: it belongs to the worker (and
 *  may hold web-llm itself when the build inlines the worker's dynamic import). */
function largestScript(): { name: string; bytes: number } {
  let best = { name: "", bytes: 0 };
  for (const e of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
    const url = new URL(e.name);
    if (!/\.(m?js|ts)$/.test(url.pathname) || /llm\.worker/.test(url.pathname)) continue;
    if (e.decodedBodySize > best.bytes) best = { name: e.name, bytes: e.decodedBodySize };
  }
  return best;
}

declare global {
  interface Window {
    edgeEngineTest: { load: typeof load; listModels: typeof listModels; largestScript: typeof largestScript };
  }
}

window.edgeEngineTest = { load, listModels, largestScript };
document.body.dataset.ready = "true";

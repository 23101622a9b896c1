// The page side of the browser llama.cpp backend with a load that goes silent: the load is tried
// once more (a fresh worker for the bytes, a fresh llama.cpp), then fails with model_load_failed
// (stage "stalled") and what it started is ended, instead of waiting for ever; a load that keeps
// giving signs of life (progress reports, llama.cpp's log lines) is never cut short. The worker here
// is a comlink endpoint on a MessageChannel, and llama.cpp a fake starter (the real ones run in
// browsers: e2e/llamacpp*.spec.ts, e2e/browsers/).
import * as Comlink from "comlink";
import { describe, expect, it } from "vitest";
import { EdgeError } from "../../../contract/errors.ts";
import type { LoadedModel } from "../backend.ts";
import { createBrowserLlamaBackend } from "./backend.ts";
import type { LlamaWorkerApi, ModelBytes, ModelStarter } from "./protocol.ts";
import { LOAD_MEASURE, type LoadMeasureDetail } from "./stall-watch.ts";

const BYTES: ModelBytes = { file: new Blob(["GGUF"]), sha: "0".repeat(64), summary: {} as ModelBytes["summary"] };

/** A Worker whose API is `bytes`; whether it was terminated; `crash()` fires its error event. */
function fakeWorker(bytes: LlamaWorkerApi["bytes"]): { worker: Worker; ended: () => boolean; crash: () => void } {
  const { port1, port2 } = new MessageChannel();
  Comlink.expose({ bytes, file: async () => new Blob(["wasm"]), abort: () => undefined }, port2);
  let ended = false;
  const errors: EventListener[] = [];
  const worker = {
    postMessage: (msg: unknown, transfer?: Transferable[]) => port1.postMessage(msg, transfer ?? []),
    addEventListener: (type: string, listener: EventListener) =>
      type === "error" ? errors.push(listener) : port1.addEventListener(type, listener),
    removeEventListener: (type: string, listener: EventListener) => port1.removeEventListener(type, listener),
    start: () => port1.start(),
    terminate: () => {
      ended = true;
      port1.close();
      port2.close();
    },
  } as Partial<Worker> as Worker;
  const crash = () =>
    errors.forEach((l) => l(Object.assign(new Event("error", { cancelable: true }), { message: "out of memory" })));
  return { worker, ended: () => ended, crash };
}

const never = <T>() => new Promise<T>(() => undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const source = { kind: "url" as const, url: "https://models.example/m.gguf" };
const DOWNLOADING = { progress: 0.35, text: "Downloading m.gguf: 1.0 of 2.0 MB", phase: "download" as const };
const LOADING = { progress: 0.75, text: "Loading m.gguf into llama.cpp (CPU, 1 thread)…", phase: "compile" as const };
const RETRY = "The model load stopped making progress; starting it again in a fresh worker…";

/** A fake llama.cpp load: reports it starts, then runs `body` (its signs of life), then is loaded;
 *  records whether it was given up. */
function starter(body: (alive: (line: string, quietMs?: number) => void, signal: AbortSignal) => Promise<void>): {
  start: ModelStarter;
  givenUp: () => number;
} {
  let givenUp = 0;
  const start: ModelStarter = async (bytes, name, _options, context) => {
    context.onProgress(LOADING);
    context.signal.addEventListener("abort", () => givenUp++);
    await body(context.alive, context.signal);
    return {
      model: { id: name, sha256: `sha256:${bytes.sha}`, size: bytes.file.size, summary: bytes.summary },
      runtime: "fake",
      device: "CPU",
      contextWindow: 512,
      generate: never,
      unload: async () => undefined,
    } satisfies LoadedModel;
  };
  return { start, givenUp: () => givenUp };
}

const quickly = starter(async () => undefined);
const workerWith = (): ReturnType<typeof fakeWorker> =>
  fakeWorker(async (_s, onProgress) => {
    onProgress(DOWNLOADING);
    return BYTES;
  });
const hangingWorker = () =>
  fakeWorker(async (_s, onProgress) => {
    onProgress(DOWNLOADING);
    return never<ModelBytes>();
  });

/** The outcomes of the load measures added since `from`. */
function measuredSince(from: number): LoadMeasureDetail[] {
  return performance
    .getEntriesByName(LOAD_MEASURE)
    .slice(from)
    .map((e) => (e as PerformanceMeasure).detail as LoadMeasureDetail);
}

describe("a llama.cpp load in the browser that goes silent", () => {
  it("silent while getting the bytes: tried once more in a fresh worker; silent again, it fails with model_load_failed, says where it stopped, and ends both workers", async () => {
    const fakes = [hangingWorker(), hangingWorker()];
    let started = 0;
    const measures = performance.getEntriesByName(LOAD_MEASURE).length;
    const backend = createBrowserLlamaBackend({
      createWorker: () => fakes[started++]!.worker,
      device: "cpu",
      stallMs: 1000,
      start: quickly.start,
    });
    const seen: { text: string; progress: number }[] = [];
    const err = await backend
      .load(source, { contextSize: 512, onProgress: (p) => seen.push({ text: p.text, progress: p.progress }) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeError);
    expect((err as EdgeError).code).toBe("model_load_failed");
    expect((err as EdgeError).details).toMatchObject({ stage: "stalled", stalled_ms: 1000 });
    expect((err as EdgeError).message).toContain(`no progress for 1 s after “${DOWNLOADING.text}”`);
    const downloading = { text: DOWNLOADING.text, progress: 0.35 };
    expect(seen).toEqual([downloading, { text: RETRY, progress: 0.35 }, downloading]);
    expect(started).toBe(2);
    await sleep(50);
    expect(fakes.map((f) => f.ended())).toEqual([true, true]);
    expect(measuredSince(measures).map((m) => m.outcome)).toEqual(["stalled", "stalled"]);
    expect(measuredSince(measures)[0]!.longestSilenceMs).toBeGreaterThanOrEqual(1000);
  });

  it("a worker that never answers is replaced, and the second one's bytes load; progress never goes back", async () => {
    const good = workerWith();
    const fakes = [hangingWorker(), good];
    let started = 0;
    const backend = createBrowserLlamaBackend({
      createWorker: () => fakes[started++]!.worker,
      device: "cpu",
      stallMs: 1000,
      start: quickly.start,
    });
    const seen: number[] = [];
    const loaded = await backend.load(source, { contextSize: 512, onProgress: (p) => seen.push(p.progress) });
    expect(loaded.model.id).toBe("m.gguf");
    expect(seen).toEqual([0.35, 0.35, 0.35, 0.75]);
    // The bytes are on the page: both workers are ended.
    await sleep(50);
    expect([fakes[0]!.ended(), good.ended()]).toEqual([true, true]);
  });

  it("silent inside llama.cpp: that load is given up and started again from the bytes already checked (no second download)", async () => {
    let starts = 0;
    const hangOnce = starter(async (_alive, signal) => {
      if (starts++ === 0) await new Promise((r) => signal.addEventListener("abort", r));
    });
    let workers = 0;
    const backend = createBrowserLlamaBackend({
      createWorker: () => (workers++, workerWith().worker),
      device: "cpu",
      stallMs: 1000,
      start: hangOnce.start,
    });
    const texts: string[] = [];
    const loaded = await backend.load(source, { contextSize: 512, onProgress: (p) => texts.push(p.text) });
    expect(loaded.model.sha256).toBe(`sha256:${BYTES.sha}`);
    expect(texts).toEqual([DOWNLOADING.text, LOADING.text, RETRY, LOADING.text]);
    expect([workers, starts, hangOnce.givenUp()]).toEqual([1, 2, 1]);
  });

  it("a load that gives signs of life more often than the limit is never cut short: progress reports, then llama.cpp's log lines", async () => {
    const fake = fakeWorker(async (_s, onProgress) => {
      // 1.5 s of reports every 50 ms, then 1.5 s of log lines: three times the limit in all. A test
      // process paused for most of a second (a loaded machine) still sees a sign within it.
      for (let i = 1; i <= 30; i++) {
        await sleep(50);
        onProgress({ progress: i / 61, text: `Downloading ${i} %`, phase: "download" });
      }
      return BYTES;
    });
    const logging = starter(async (alive) => {
      for (let i = 0; i < 30; i++) {
        await sleep(50);
        alive(`llama_model_loader: line ${i}`);
      }
    });
    const measures = performance.getEntriesByName(LOAD_MEASURE).length;
    const backend = createBrowserLlamaBackend({
      createWorker: () => fake.worker,
      device: "cpu",
      stallMs: 1000,
      start: logging.start,
    });
    const loaded = await backend.load(source, { contextSize: 512 });
    expect(loaded.model.id).toBe("m.gguf");
    expect(logging.givenUp()).toBe(0);
    const [measure] = measuredSince(measures);
    expect(measure).toMatchObject({ outcome: "loaded" });
    expect(measure!.signs).toBeGreaterThan(60);
    expect(measure!.longestSilenceMs).toBeLessThan(1000);
  });

  it("a sign may allow a longer silence after it (llama.cpp computing once its worker runs), and that silence is not cut short", async () => {
    const computing = starter(async (alive) => {
      alive("llama_model_loader: loaded meta data", 3000);
      await sleep(1500);
    });
    const backend = createBrowserLlamaBackend({
      createWorker: () => workerWith().worker,
      device: "cpu",
      stallMs: 1000,
      start: computing.start,
    });
    const loaded = await backend.load(source, { contextSize: 512 });
    expect([loaded.model.id, computing.givenUp()]).toEqual(["m.gguf", 0]);
  });

  it("a worker that crashes while getting the bytes fails the load with model_load_failed (stage worker), with its reason", async () => {
    const fake = hangingWorker();
    const backend = createBrowserLlamaBackend({
      createWorker: () => fake.worker,
      device: "cpu",
      stallMs: 5000,
      start: quickly.start,
    });
    const loading = backend.load(source, { contextSize: 512 }).catch((e: unknown) => e);
    await sleep(50);
    fake.crash();
    const err = (await loading) as EdgeError;
    expect([err.code, err.details]).toEqual(["model_load_failed", { reason: "out of memory", stage: "worker" }]);
    expect(fake.ended()).toBe(true);
  });

  it("a cancel ends the load with aborted, and the worker is ended (after up to 2 s for a download to remove what it wrote)", async () => {
    const fake = hangingWorker();
    const backend = createBrowserLlamaBackend({
      createWorker: () => fake.worker,
      device: "cpu",
      stallMs: 5000,
      start: quickly.start,
    });
    const controller = new AbortController();
    const loading = backend.load(source, { contextSize: 512, signal: controller.signal }).catch((e: unknown) => e);
    await sleep(50);
    controller.abort();
    expect(((await loading) as EdgeError).code).toBe("aborted");
    expect(fake.ended()).toBe(true);
  });
});

// The page side of the browser llama.cpp backend with a worker that stops reporting progress: the
// load is tried once more in a fresh worker, then fails with model_load_failed (stage "stalled")
// and the workers are ended, instead of waiting for ever; a load that keeps reporting is never cut short. The worker here is a comlink endpoint
// on a MessageChannel (the real worker runs wllama in a browser: e2e/llamacpp*.spec.ts).
import * as Comlink from "comlink";
import { describe, expect, it } from "vitest";
import { EdgeError } from "../../../contract/errors.ts";
import { createBrowserLlamaBackend } from "./backend.ts";
import type { LlamaWorkerApi, WorkerLoaded } from "./protocol.ts";

const LOADED: WorkerLoaded = {
  model: { id: "m.gguf", sha256: `sha256:${"0".repeat(64)}`, size: 1, summary: {} as WorkerLoaded["model"]["summary"] },
  runtime: "fake",
  device: "CPU",
  contextWindow: 512,
  threads: 1,
};

/** A Worker whose API is `api`, and whether it was terminated. */
function fakeWorker(api: Pick<LlamaWorkerApi, "load">): { worker: Worker; ended: () => boolean } {
  const { port1, port2 } = new MessageChannel();
  Comlink.expose({ ...api, abort: () => undefined, unload: async () => undefined }, port2);
  let ended = false;
  const worker = {
    postMessage: (msg: unknown, transfer?: Transferable[]) => port1.postMessage(msg, transfer ?? []),
    addEventListener: (type: string, listener: EventListener) => port1.addEventListener(type, listener),
    removeEventListener: (type: string, listener: EventListener) => port1.removeEventListener(type, listener),
    start: () => port1.start(),
    terminate: () => {
      ended = true;
      port1.close();
      port2.close();
    },
  } as unknown as Worker;
  return { worker, ended: () => ended };
}

const source = { kind: "url" as const, url: "https://models.example/m.gguf" };

describe("a llama.cpp load in the browser that stops reporting progress", () => {
  const hanging = () =>
    fakeWorker({
      load: async (_s, _o, onProgress) => {
        onProgress({ progress: 0.75, text: "Loading m.gguf into llama.cpp (CPU, 1 thread)…", phase: "compile" });
        return new Promise<WorkerLoaded>(() => undefined); // never answers
      },
    });
  const RETRY = "The model load stopped making progress; starting it again in a fresh worker…";

  it("is tried once more in a fresh worker; stalled again, it fails with model_load_failed, says where it stopped, and ends both workers", async () => {
    const fakes = [hanging(), hanging()];
    let started = 0;
    const backend = createBrowserLlamaBackend({ createWorker: () => fakes[started++]!.worker, device: "cpu", stallMs: 1000 });
    const seen: { text: string; progress: number }[] = [];
    const err = await backend.load(source, { contextSize: 512, onProgress: (p) => seen.push({ text: p.text, progress: p.progress }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeError);
    expect((err as EdgeError).code).toBe("model_load_failed");
    expect((err as EdgeError).details).toMatchObject({ stage: "stalled", stalled_ms: 1000 });
    expect((err as EdgeError).message).toContain("no progress for 1 s after “Loading m.gguf into llama.cpp (CPU, 1 thread)…”");
    const loading = { text: "Loading m.gguf into llama.cpp (CPU, 1 thread)…", progress: 0.75 };
    expect(seen).toEqual([loading, { text: RETRY, progress: 0.75 }, loading]);
    expect(started).toBe(2);
    expect(fakes.map((f) => f.ended())).toEqual([true, true]);
  });

  it("a worker that never starts is replaced, and the second one loads; progress never goes back", async () => {
    const good = fakeWorker({
      load: async (_s, _o, onProgress) => {
        onProgress({ progress: 0.1, text: "Reading m.gguf", phase: "download" });
        return LOADED;
      },
    });
    const fakes = [hanging(), good];
    let started = 0;
    const backend = createBrowserLlamaBackend({ createWorker: () => fakes[started++]!.worker, device: "cpu", stallMs: 1000 });
    const seen: number[] = [];
    const loaded = await backend.load(source, { contextSize: 512, onProgress: (p) => seen.push(p.progress) });
    expect(loaded.model.id).toBe("m.gguf");
    expect(seen).toEqual([0.75, 0.75, 0.75]);
    expect([fakes[0]!.ended(), good.ended()]).toEqual([true, false]);
  });

  it("a load that reports progress more often than the limit is never cut short", async () => {
    const fake = fakeWorker({
      load: async (_s, _o, onProgress) => {
        // 3 s in all, three times the limit, a report every 50 ms: a test process paused for most of
        // a second (a loaded machine) still sees a report within the limit.
        for (let i = 1; i <= 60; i++) {
          await new Promise((r) => setTimeout(r, 50));
          onProgress({ progress: i / 61, text: `Downloading ${i} %`, phase: "download" });
        }
        return LOADED;
      },
    });
    const backend = createBrowserLlamaBackend({ createWorker: () => fake.worker, device: "cpu", stallMs: 1000 });
    const loaded = await backend.load(source, { contextSize: 512 });
    expect(loaded.model.id).toBe("m.gguf");
    expect(fake.ended()).toBe(false);
  });
});

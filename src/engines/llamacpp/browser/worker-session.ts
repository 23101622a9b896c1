// The page's side of Edge's llama.cpp worker (workers/llamacpp.worker.ts): one worker per load
// attempt, started when first asked, gets the model's bytes and checks them off the page (a download
// streamed into the store while it is hashed, or a file from disk hashed; the GGUF header read) and
// fetches wllama's own files; the page gets Blobs (structured clones: nothing is copied). A worker
// that cannot start or crashes fails the load with model_load_failed.
import * as Comlink from "comlink";
import { EdgeError } from "../../../contract/errors.ts";
import { raceSignal } from "../../../contract/abort.ts";
import { loadAbortedError, type LoadProgress } from "../../engine.ts";
import { installEdgeErrorTransfer } from "./comlink-errors.ts";
import type { FileProgress, LlamaWorkerApi, ModelBytes, WorkerModelSource } from "./protocol.ts";
import { WorkerLoss } from "./worker-loss.ts";

export function createLlamaWorker(): Worker {
  return new Worker(new URL("../../../../workers/llamacpp.worker.ts", import.meta.url), {
    type: "module",
    name: "edge-llamacpp",
  });
}

export interface WorkerSession {
  bytes(source: WorkerModelSource, onProgress: (p: LoadProgress) => void): Promise<ModelBytes>;
  file(url: string, onBytes: (p: FileProgress) => void): Promise<Blob>;
  /** End the worker (cancelled, its download first gets up to 2 s to remove what it wrote). */
  end(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function workerFailed(reason: string): EdgeError {
  return EdgeError.withTableFix(
    "model_load_failed",
    { reason, stage: "worker" },
    `The llama.cpp worker failed: ${reason}.`,
  );
}

/** One started worker: its comlink handle, its loss, the calls still running. */
class WorkerLink {
  private readonly remote: Comlink.Remote<LlamaWorkerApi>;
  private readonly loss = new WorkerLoss();
  private readonly running = new Set<Promise<unknown>>();
  private readonly onAbort = () => void this.remote.abort();

  constructor(
    private readonly worker: Worker,
    private readonly signal: AbortSignal,
  ) {
    installEdgeErrorTransfer();
    this.remote = Comlink.wrap<LlamaWorkerApi>(worker);
    worker.addEventListener("error", (ev) => {
      ev.preventDefault();
      this.loss.lost(ev.message || "the llama.cpp worker stopped (it could not start, or it crashed)");
    });
    signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** `work` on the worker; model_load_failed if the worker is lost, aborted once the signal fires. */
  call<T>(work: (remote: Comlink.Remote<LlamaWorkerApi>) => Promise<T>): Promise<T> {
    const guarded = this.loss.guard(work(this.remote), workerFailed);
    this.running.add(guarded);
    void guarded.catch(() => undefined).finally(() => this.running.delete(guarded));
    return raceSignal(guarded, this.signal, loadAbortedError);
  }

  async end(): Promise<void> {
    const reason: unknown = this.signal.reason;
    if (reason instanceof EdgeError && reason.code === "aborted")
      await Promise.race([Promise.allSettled(this.running), sleep(2000)]);
    this.signal.removeEventListener("abort", this.onAbort);
    this.remote[Comlink.releaseProxy]();
    this.worker.terminate();
  }
}

/** A worker for one load attempt, started by `create` when first asked; `signal` stops its work
 *  (its reason is the error the attempt ends with). */
export function workerSession(create: () => Worker, signal: AbortSignal): WorkerSession {
  let link: WorkerLink | undefined;
  const open = (): WorkerLink => (link ??= new WorkerLink(create(), signal));
  return {
    bytes: (source, onProgress) => open().call((remote) => remote.bytes(source, Comlink.proxy(onProgress))),
    file: (url, onBytes) => open().call((remote) => remote.file(url, Comlink.proxy(onBytes))),
    end: async () => link?.end(),
  };
}

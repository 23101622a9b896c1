// Host side of the runner sandbox: a long-lived opaque-origin frame (sandbox-frame.ts) that
// starts one classic worker per job. The page fetches Pyodide's files itself (same origin, so a
// service worker can serve them offline) and keeps them; each frame gets a copy, compiles the
// wasm once and keeps a memory snapshot; each job's worker boots from those.
//
// A sandbox that heals: tool code can kill the frame's whole renderer process (exhausting the JS
// heap does). The frame's heartbeat notices within a few seconds; every worker of that frame
// fails (the pool host reports the in-flight job as runner_crashed), the frame is removed, and
// a new one is started at once from the bytes the page kept. Jobs spawned meanwhile wait for it.
//
// Trust: messages on a job port are whatever the worker sent, i.e. possibly tool output. They
// are handed to the pool host as `unknown` and validated there (job id, shape, HMAC).
import type { HostToWorker } from "../../../workers/protocol.ts";
import { sha256Text } from "../../contract/hash.ts";
import { frameSrcdoc } from "./frame-script.ts";
import { SandboxFrame, type FrameAssets, type FrameOptions, type WorkerScheme } from "./sandbox-frame.ts";
import { EdgeError } from "../../contract/errors.ts";

/** Pyodide's files the page fetches, relative to `pyodideBaseUrl` (its JavaScript is in the
 *  worker bundle). */
const SANDBOX_PYODIDE_FILES = ["pyodide.asm.wasm", "python_stdlib.zip"] as const;

export interface SandboxOptions {
  /** Where the app serves Pyodide's files (same origin). Default `${BASE_URL}pyodide/`. */
  pyodideBaseUrl?: string;
  /** The runner worker as one classic script (default: the bundle from `virtual:edge-runner-worker`). */
  workerCode?: string;
  /** Where the hidden frame is attached (default document.body). */
  container?: HTMLElement;
  fetch?: typeof fetch;
  /** Heartbeat period (default 500 ms) and the silence after which a frame is lost (default 5 000 ms). */
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
  /** Limit for starting a frame (default 30 000 ms). */
  frameStartTimeoutMs?: number;
}

export interface SandboxTimings {
  /** Fetching Pyodide's files in the page. */
  fetchMs: number;
  /** Creating the first frame and compiling the wasm inside it. */
  frameMs: number;
  compileMs: number;
}

/** How the sandbox has fared since the page loaded. */
export interface SandboxHealth {
  /** Frames started so far (1 = never replaced). */
  frames: number;
  /** Frames lost (crashed, hung, or failed to start). */
  lost: number;
  lastLoss?: { reason: string; at: number };
  /** Start time of the latest replacement frame (create → wasm compiled), ms. */
  lastRestartMs?: number;
  /** The slowest heartbeat answer of any frame so far, ms. */
  slowestPongMs: number;
  /** Where the current frame starts its workers from (sandbox-frame.ts). */
  workerScheme?: WorkerScheme;
}

/** One job's worker as seen from the page. */
export interface SandboxJob {
  readonly id: string;
  post(message: HostToWorker, transfer?: Transferable[]): void;
  onMessage(handler: (message: unknown) => void): void;
  onError(handler: (error: Error) => void): void;
  terminate(): void;
}

/** How every job of a lost frame ends: the worker died with the frame, through no fault of its own. */
export class FrameLostError extends Error {}

interface JobState {
  onError?: (e: Error) => void;
  pendingError?: Error;
}

/** One frame's lifetime as the jobs see it: the jobs it runs and the snapshots it holds. */
interface Generation {
  readonly frame: Promise<SandboxFrame>;
  ready?: SandboxFrame;
  lost: boolean;
  readonly jobs: Map<string, JobState>;
  readonly snapshotIds: WeakMap<Uint8Array, string>;
}

function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function defaultPyodideBaseUrl(): string {
  const base = (import.meta.env?.BASE_URL as string | undefined) ?? "/";
  return new URL(`${base}pyodide/`, location.href).href;
}

async function fetchBytes(fetchFn: typeof fetch, url: string): Promise<Uint8Array> {
  const res = await fetchFn(url);
  if (!res.ok) throw pyodideMissing(url, res.status);
  return new Uint8Array(await res.arrayBuffer());
}

/** A Pyodide file the sandbox could not fetch: the page serves no Pyodide at pyodideBaseUrl. */
function pyodideMissing(url: string, status: number): EdgeError {
  return new EdgeError(
    "runner_boot_failed",
    { url, status },
    `The Python runner could not start: could not load ${url}: HTTP ${status}. Serve Pyodide's files at that address (or pass pyodideBaseUrl pointing at them), then reload the page.`,
  );
}

function failJob(job: JobState, error: Error): void {
  if (job.onError) job.onError(error);
  else job.pendingError = error;
}

export class RunnerSandbox {
  private generation: Generation | undefined;
  private disposed = false;
  private readonly stats: SandboxHealth = { frames: 0, lost: 0, slowestPongMs: 0 };
  readonly timings: SandboxTimings = { fetchMs: 0, frameMs: 0, compileMs: 0 };

  private constructor(
    private readonly assets: FrameAssets,
    private readonly frameOptions: FrameOptions,
    /** sha256 over Pyodide's lock file and the runner worker bundle: what a snapshot depends on. */
    readonly runtimeFingerprint: string,
  ) {}

  /** Pyodide's pyodide-lock.json as the runner boots with it (also the package lock). */
  get lockFileContents(): string {
    return this.assets.lockFileContents;
  }

  /** Fetch Pyodide, create the frame, compile the wasm in it. */
  static async create(options: SandboxOptions = {}): Promise<RunnerSandbox> {
    const fetchFn = options.fetch ?? fetch.bind(globalThis);
    const base = options.pyodideBaseUrl ?? defaultPyodideBaseUrl();
    const workerCodePromise = options.workerCode
      ? Promise.resolve(options.workerCode)
      : import("virtual:edge-runner-worker").then((m) => m.default);

    const t0 = performance.now();
    const [[wasm, stdlib], lockFileContents, workerCode] = await Promise.all([
      Promise.all(SANDBOX_PYODIDE_FILES.map((name) => fetchBytes(fetchFn, base + name))),
      fetchFn(base + "pyodide-lock.json").then((r) => {
        if (!r.ok) throw pyodideMissing(`${base}pyodide-lock.json`, r.status);
        return r.text();
      }),
      workerCodePromise,
    ]);
    const fetchMs = performance.now() - t0;
    const assets: FrameAssets = {
      srcdoc: await frameSrcdoc(),
      files: { "python_stdlib.zip": stdlib! },
      wasm: wasm!,
      lockFileContents,
      workerCode,
    };
    const frameOptions: FrameOptions = {
      container: options.container ?? document.body,
      startTimeoutMs: options.frameStartTimeoutMs,
      heartbeatMs: options.heartbeatMs,
      heartbeatTimeoutMs: options.heartbeatTimeoutMs,
    };
    const sandbox = new RunnerSandbox(assets, frameOptions, await sha256Text(`${lockFileContents}\n${workerCode}`));
    const first = await sandbox.current().frame;
    Object.assign(sandbox.timings, { fetchMs, frameMs: first.startMs, compileMs: first.compileMs });
    return sandbox;
  }

  /** The live generation, or a new one (a new frame) when there is none. */
  private current(): Generation {
    if (this.disposed) throw new Error("runner sandbox was disposed");
    if (this.generation && !this.generation.lost) return this.generation;
    const restart = this.stats.frames > 0;
    this.stats.frames++;
    const gen: Generation = {
      frame: SandboxFrame.start(this.assets, this.frameOptions, {
        workerError: (jobId, message) => {
          const job = gen.jobs.get(jobId);
          if (job) failJob(job, new Error(message));
        },
        lost: (reason) => this.lose(gen, reason, true),
      }),
      lost: false,
      jobs: new Map(),
      snapshotIds: new WeakMap(),
    };
    this.generation = gen;
    gen.frame.then(
      (frame) => {
        gen.ready = frame;
        if (restart) this.stats.lastRestartMs = frame.startMs;
        if (gen.lost) frame.dispose(); // the sandbox was disposed while this frame started
      },
      // The cause alone: the job's runner_boot_failed message adds the remedy (factory.ts).
      (err: unknown) =>
        this.lose(
          gen,
          err instanceof EdgeError && typeof err.details.cause === "string"
            ? err.details.cause
            : err instanceof Error
              ? err.message
              : String(err),
          false,
        ),
    );
    return gen;
  }

  /** Every job of a lost frame fails; a frame lost while running is replaced at once (a frame
   *  that failed to start is retried by the next spawn, never in a loop). */
  private lose(gen: Generation, reason: string, replace: boolean): void {
    if (gen.lost) return;
    gen.lost = true;
    if (gen.ready) {
      this.stats.slowestPongMs = Math.max(this.stats.slowestPongMs, gen.ready.slowestPongMs);
      gen.ready.dispose();
    }
    if (!this.disposed) {
      this.stats.lost++;
      this.stats.lastLoss = { reason, at: Date.now() };
    }
    const error = new FrameLostError(reason);
    for (const job of gen.jobs.values()) failJob(job, error);
    gen.jobs.clear();
    if (replace && !this.disposed) this.current();
  }

  /** Start one worker for one job. Its id is random and never reused. */
  spawn(): SandboxJob {
    const gen = this.current();
    const id = randomId();
    const channel = new MessageChannel();
    const port = channel.port1;
    const state: JobState = {};
    gen.jobs.set(id, state);
    let ended = false;
    // Messages posted on `port` wait in it until the frame has the other end.
    gen.frame.then(
      (frame) => {
        if (!ended && !gen.lost) frame.post({ type: "spawn", jobId: id, port: channel.port2 }, [channel.port2]);
      },
      () => undefined, // lose() has failed this job
    );
    return {
      id,
      post(message: HostToWorker, transfer: Transferable[] = []) {
        if (ended) return;
        if (message.type === "boot") {
          // Pyodide's bytes are filled in by the frame; the snapshot goes over once per frame and
          // is then referred to by id (it is ~30 MB and the pool host keeps reusing the same array).
          const { snapshot, ...boot } = message;
          let snap: { id: string; bytes?: Uint8Array } | undefined;
          if (snapshot) {
            let snapshotId = gen.snapshotIds.get(snapshot);
            if (snapshotId) snap = { id: snapshotId };
            else {
              snapshotId = randomId();
              gen.snapshotIds.set(snapshot, snapshotId);
              snap = { id: snapshotId, bytes: snapshot };
            }
          }
          port.postMessage({ kind: "boot", boot: { ...boot, pyodide: { kind: "bytes", files: {} } }, snapshot: snap });
        } else {
          port.postMessage({ kind: "relay", message }, transfer);
        }
      },
      onMessage(handler) {
        port.onmessage = (event: MessageEvent) => {
          if (!ended) handler(event.data as unknown);
        };
      },
      onError(handler) {
        state.onError = handler;
        if (state.pendingError) handler(state.pendingError);
      },
      terminate() {
        if (ended) return;
        ended = true;
        gen.jobs.delete(id);
        port.onmessage = null;
        port.close();
        if (gen.ready && !gen.lost) gen.ready.post({ type: "terminate", jobId: id });
      },
    };
  }

  /** Frames started and lost, the latest loss and how long its replacement took to start. */
  get health(): SandboxHealth {
    const current = this.generation?.ready?.slowestPongMs ?? 0;
    const workerScheme = this.generation?.ready?.workerScheme;
    return {
      ...this.stats,
      slowestPongMs: Math.max(this.stats.slowestPongMs, current),
      ...(workerScheme ? { workerScheme } : {}),
    };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.generation) this.lose(this.generation, "runner sandbox was disposed", false);
  }
}

// Host side of the runner sandbox: one long-lived opaque-origin frame that starts one classic
// worker per job. The page fetches Pyodide's files itself (same origin, so a service worker can
// serve them offline) and transfers the bytes to the frame; the frame compiles the wasm once and
// keeps a memory snapshot; each job's worker boots from those.
//
// Trust: messages from the frame's control port are the frame's own (it is our script, pinned by
// hash); messages on a job port are whatever the worker sent, i.e. possibly tool output. They
// are handed to the pool host as `unknown` and validated there (job id, shape, HMAC).
import type { HostToWorker } from "../../../workers/protocol.ts";
import { sha256Text } from "../../contract/hash.ts";
import { frameSrcdoc } from "./frame-script.ts";

/** Pyodide's files the page fetches, relative to `pyodideBaseUrl` (its JavaScript is in the
 *  worker bundle). */
export const SANDBOX_PYODIDE_FILES = ["pyodide.asm.wasm", "python_stdlib.zip"] as const;

export interface SandboxOptions {
  /** Where the app serves Pyodide's files (same origin). Default `${BASE_URL}pyodide/`. */
  pyodideBaseUrl?: string;
  /** The runner worker as one classic script (default: the bundle from `virtual:edge-runner-worker`). */
  workerCode?: string;
  /** Where the hidden frame is attached (default document.body). */
  container?: HTMLElement;
  fetch?: typeof fetch;
}

export interface SandboxTimings {
  /** Fetching Pyodide's files in the page. */
  fetchMs: number;
  /** Creating the frame and compiling the wasm inside it. */
  frameMs: number;
  compileMs: number;
}

type ControlMessage =
  | { type: "connected" }
  | { type: "inited"; compileMs: number }
  | { type: "init-failed"; message: string }
  | { type: "frame-error"; message: string }
  | { type: "worker-error"; jobId: string; message: string };

/** One job's worker as seen from the page. */
export interface SandboxJob {
  readonly id: string;
  post(message: HostToWorker, transfer?: Transferable[]): void;
  onMessage(handler: (message: unknown) => void): void;
  onError(handler: (error: Error) => void): void;
  terminate(): void;
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
  if (!res.ok) throw new Error(`could not load ${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

export class RunnerSandbox {
  private readonly jobs = new Map<string, { onError?: (e: Error) => void; pendingError?: Error }>();
  private readonly snapshotIds = new WeakMap<Uint8Array, string>();
  private readonly frameErrors: string[] = [];
  private disposed = false;

  private constructor(
    private readonly frame: HTMLIFrameElement,
    private readonly control: MessagePort,
    readonly timings: SandboxTimings,
    /** sha256 over Pyodide's lock file and the runner worker bundle: what a snapshot depends on. */
    readonly runtimeFingerprint: string,
  ) {
    control.onmessage = (event: MessageEvent<ControlMessage>) => this.onControl(event.data);
  }

  /** Fetch Pyodide, create the frame, compile the wasm in it. */
  static async create(options: SandboxOptions = {}): Promise<RunnerSandbox> {
    const fetchFn = options.fetch ?? fetch.bind(globalThis);
    const base = options.pyodideBaseUrl ?? defaultPyodideBaseUrl();
    const workerCodePromise = options.workerCode
      ? Promise.resolve(options.workerCode)
      : import("virtual:edge-runner-worker").then((m) => m.default);

    const t0 = performance.now();
    const [files, lockFileContents, workerCode] = await Promise.all([
      Promise.all(SANDBOX_PYODIDE_FILES.map(async (name) => [name, await fetchBytes(fetchFn, base + name)] as const)),
      fetchFn(base + "pyodide-lock.json").then((r) => {
        if (!r.ok) throw new Error(`could not load ${base}pyodide-lock.json: HTTP ${r.status}`);
        return r.text();
      }),
      workerCodePromise,
    ]);
    const fetchMs = performance.now() - t0;

    const t1 = performance.now();
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.setAttribute("aria-hidden", "true");
    frame.setAttribute("tabindex", "-1");
    frame.title = "Edge tool runner sandbox";
    frame.dataset.edgeRunnerSandbox = "";
    frame.style.cssText = "position:absolute;width:0;height:0;border:0;visibility:hidden";
    frame.srcdoc = await frameSrcdoc();
    const loaded = new Promise<void>((resolve) => frame.addEventListener("load", () => resolve(), { once: true }));
    (options.container ?? document.body).append(frame);
    await loaded;

    const channel = new MessageChannel();
    const first = (type: string) =>
      new Promise<ControlMessage>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`runner sandbox frame did not answer (${type})`)), 30_000);
        channel.port1.onmessage = (event: MessageEvent<ControlMessage>) => {
          clearTimeout(timer);
          resolve(event.data);
        };
      });
    const connected = first("connect");
    // The frame's origin is opaque, so "*" is the only target origin that reaches it; the port
    // it receives is private to us.
    frame.contentWindow!.postMessage({ type: "edge-sandbox-connect" }, "*", [channel.port2]);
    if ((await connected).type !== "connected") throw new Error("runner sandbox frame did not connect");

    const wasm = files.find(([n]) => n === "pyodide.asm.wasm")![1];
    const keep: Record<string, Uint8Array> = {};
    for (const [name, bytes] of files) if (name !== "pyodide.asm.wasm") keep[name] = bytes;
    const inited = first("init");
    channel.port1.postMessage({ type: "init", workerCode, files: keep, lockFileContents, wasm }, [
      wasm.buffer as ArrayBuffer,
      ...Object.values(keep).map((b) => b.buffer as ArrayBuffer),
    ]);
    const reply = await inited;
    if (reply.type !== "inited") {
      frame.remove();
      throw new Error(`runner sandbox frame could not start: ${"message" in reply ? reply.message : reply.type}`);
    }
    const fingerprint = await sha256Text(`${lockFileContents}\n${workerCode}`);
    return new RunnerSandbox(frame, channel.port1, { fetchMs, frameMs: performance.now() - t1, compileMs: reply.compileMs }, fingerprint);
  }

  private onControl(msg: ControlMessage): void {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "worker-error") {
      const job = this.jobs.get(String(msg.jobId));
      if (!job) return;
      const error = new Error(String(msg.message));
      if (job.onError) job.onError(error);
      else job.pendingError = error;
    } else if (msg.type === "frame-error") {
      this.frameErrors.push(String(msg.message));
    }
  }

  /** Start one worker for one job. Its id is random and never reused. */
  spawn(): SandboxJob {
    if (this.disposed) throw new Error("runner sandbox was disposed");
    const id = randomId();
    const channel = new MessageChannel();
    const port = channel.port1;
    const state: { onError?: (e: Error) => void; pendingError?: Error } = {};
    this.jobs.set(id, state);
    this.control.postMessage({ type: "spawn", jobId: id, port: channel.port2 }, [channel.port2]);
    let ended = false;
    const sandbox = this;
    return {
      id,
      post(message: HostToWorker, transfer: Transferable[] = []) {
        if (ended) return;
        if (message.type === "boot") {
          // Pyodide's bytes are filled in by the frame; the snapshot goes over once and is then
          // referred to by id (it is ~30 MB and the pool host keeps reusing the same array).
          const { snapshot, ...boot } = message;
          let snap: { id: string; bytes?: Uint8Array } | undefined;
          if (snapshot) {
            let snapshotId = sandbox.snapshotIds.get(snapshot);
            if (snapshotId) snap = { id: snapshotId };
            else {
              snapshotId = randomId();
              sandbox.snapshotIds.set(snapshot, snapshotId);
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
        sandbox.jobs.delete(id);
        port.onmessage = null;
        port.close();
        if (!sandbox.disposed) sandbox.control.postMessage({ type: "terminate", jobId: id });
      },
    };
  }

  /** Errors the frame reported about itself (not about a job). */
  get errors(): readonly string[] {
    return this.frameErrors;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.control.close();
    this.frame.remove();
  }
}

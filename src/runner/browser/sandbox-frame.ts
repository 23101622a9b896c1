// One sandbox frame, from `<iframe>` to removal: create it, connect its control port, send it
// Pyodide's bytes and the worker bundle, then watch it (heartbeat.ts) until it is lost or
// disposed. RunnerSandbox (sandbox.ts) owns the frames and replaces a lost one.
//
// Trust: messages on the control port are the frame's own (our script, pinned by hash).
import { Heartbeat } from "./heartbeat.ts";
import { EdgeError } from "../../contract/errors.ts";

/** What every frame is started with; the page keeps it so a lost frame can be re-created. */
export interface FrameAssets {
  srcdoc: string;
  /** Pyodide's files other than the wasm (the stdlib zip), by name. */
  files: Record<string, Uint8Array>;
  wasm: Uint8Array;
  lockFileContents: string;
  /** The runner worker bundle: one classic script. */
  workerCode: string;
}

export interface FrameOptions {
  container: HTMLElement;
  /** Limit for creating, connecting and initialising the frame (default 30 000 ms). */
  startTimeoutMs?: number;
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
}

export interface FrameListener {
  /** The frame reports that a job's worker failed (start error, uncaught error, bad message). */
  workerError(jobId: string, message: string): void;
  /** The frame stopped answering, or reported an error about itself; it is already removed. */
  lost(reason: string): void;
}

type ControlMessage =
  | { type: "connected" }
  | { type: "inited"; compileMs: number; workerScheme: WorkerScheme }
  | { type: "init-failed"; message: string }
  | { type: "frame-error"; message: string }
  | { type: "worker-error"; jobId: string; message: string }
  | { type: "pong"; seq: number };

const DEFAULT_START_TIMEOUT_MS = 30_000;

/** Where the frame starts its workers from: blob: URLs, or data: URLs where the browser refuses
 *  those (WebKit in a cross-origin-isolated page; frame-script.ts). */
export type WorkerScheme = "blob" | "data";

/** A copy of the bytes, transferred: the page keeps its own for the next frame. */
function copyFiles(assets: FrameAssets): {
  files: Record<string, Uint8Array>;
  wasm: Uint8Array;
  transfer: ArrayBuffer[];
} {
  const files: Record<string, Uint8Array> = {};
  for (const [name, bytes] of Object.entries(assets.files)) files[name] = bytes.slice();
  const wasm = assets.wasm.slice();
  return { files, wasm, transfer: [wasm.buffer, ...Object.values(files).map((b) => b.buffer as ArrayBuffer)] };
}

/** What a person can do in a browser when the runner cannot start (the error table's sentence
 *  also speaks of reinstalling a package, which means nothing in a page). */
export const BROWSER_BOOT_FIX =
  "Reload the page; if it keeps failing, look in the browser's developer console (Web Inspector in Safari) for the frame or worker it blocked, or open the page in another browser.";

/** The sandbox frame did not start: the runner cannot boot (`what` is the cause, as `details.cause`). */
function frameFailed(what: string, reason: string): EdgeError {
  return new EdgeError(
    "runner_boot_failed",
    { reason, cause: what },
    `The Python runner could not start: ${what}. ${BROWSER_BOOT_FIX}`,
  );
}

export class SandboxFrame {
  private readonly heartbeat: Heartbeat;
  private disposed = false;

  private constructor(
    private readonly iframe: HTMLIFrameElement,
    private readonly control: MessagePort,
    private readonly listener: FrameListener,
    /** Creating the frame until its wasm is compiled (ms), and the compile alone. */
    readonly startMs: number,
    readonly compileMs: number,
    readonly workerScheme: WorkerScheme,
    options: FrameOptions,
  ) {
    this.heartbeat = new Heartbeat({
      intervalMs: options.heartbeatMs,
      timeoutMs: options.heartbeatTimeoutMs,
      ping: (seq) => this.control.postMessage({ type: "ping", seq }),
      onLost: (silentMs) =>
        this.lose(
          `the runner sandbox frame stopped answering for ${Math.round(silentMs)} ms (its process crashed or hung, e.g. out of memory)`,
        ),
    });
  }

  /** Create, connect and initialise a frame. Rejects (and removes the frame) on failure or
   *  timeout; once started, what happens to it goes to `listener`. */
  static async start(assets: FrameAssets, options: FrameOptions, listener: FrameListener): Promise<SandboxFrame> {
    const t0 = performance.now();
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.setAttribute("aria-hidden", "true");
    iframe.setAttribute("tabindex", "-1");
    iframe.title = "Edge tool runner sandbox";
    iframe.dataset.edgeRunnerSandbox = "";
    iframe.style.cssText = "position:absolute;width:0;height:0;border:0;visibility:hidden";
    iframe.srcdoc = assets.srcdoc;
    const channel = new MessageChannel();
    const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const started = new Promise<{ compileMs: number; workerScheme: WorkerScheme }>((resolve, reject) => {
        timer = setTimeout(
          () => reject(frameFailed(`the runner sandbox frame did not start within ${timeoutMs} ms`, "start_timeout")),
          timeoutMs,
        );
        channel.port1.onmessage = (event: MessageEvent<ControlMessage>) => {
          const msg = event.data;
          if (msg?.type === "connected") {
            const { files, wasm, transfer } = copyFiles(assets);
            const init = {
              type: "init",
              workerCode: assets.workerCode,
              files,
              lockFileContents: assets.lockFileContents,
              wasm,
            };
            channel.port1.postMessage(init, transfer);
          } else if (msg?.type === "inited") {
            resolve({ compileMs: msg.compileMs, workerScheme: msg.workerScheme === "data" ? "data" : "blob" });
          } else {
            const why = msg && "message" in msg ? msg.message : String(msg?.type);
            reject(frameFailed(`the runner sandbox frame could not start: ${why}`, "frame_error"));
          }
        };
      });
      iframe.addEventListener(
        "load",
        // The frame's origin is opaque, so "*" is the only target origin that reaches it; the port
        // it receives is private to us.
        () => iframe.contentWindow?.postMessage({ type: "edge-sandbox-connect" }, "*", [channel.port2]),
        { once: true },
      );
      options.container.append(iframe);
      const { compileMs, workerScheme } = await started;
      const frame = new SandboxFrame(
        iframe,
        channel.port1,
        listener,
        performance.now() - t0,
        compileMs,
        workerScheme,
        options,
      );
      channel.port1.onmessage = (event: MessageEvent<ControlMessage>) => frame.onControl(event.data);
      frame.heartbeat.start();
      return frame;
    } catch (err) {
      channel.port1.close();
      iframe.remove();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  post(message: unknown, transfer: Transferable[] = []): void {
    if (!this.disposed) this.control.postMessage(message, transfer);
  }

  /** The slowest heartbeat answer so far (ms). */
  get slowestPongMs(): number {
    return this.heartbeat.slowestPongMs;
  }

  private onControl(msg: ControlMessage): void {
    if (!msg || typeof msg !== "object" || this.disposed) return;
    if (msg.type === "pong") this.heartbeat.pong(Number(msg.seq));
    else if (msg.type === "worker-error") this.listener.workerError(String(msg.jobId), String(msg.message));
    // Our own script failed on a control message: its state is unknown, so it is replaced.
    else if (msg.type === "frame-error") this.lose(`the runner sandbox frame failed: ${String(msg.message)}`);
  }

  private lose(reason: string): void {
    if (this.disposed) return;
    this.dispose();
    this.listener.lost(reason);
  }

  /** Stop watching and remove the frame (its process ends with it, and every worker in it). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.heartbeat.stop();
    this.control.onmessage = null;
    this.control.close();
    this.iframe.remove();
  }
}

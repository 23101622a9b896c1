// The browser's RunnerWorkerFactory: every worker the pool host spawns is a classic worker inside
// the long-lived sandbox frame. The pool host never touches a Worker directly.
import type { PyodideAssets } from "../../../workers/protocol.ts";
import type { RunnerWorkerFactory, RunnerWorkerHandle } from "../worker-handle.ts";
import { FrameLostError, type RunnerSandbox } from "./sandbox.ts";
import { BROWSER_BOOT_FIX } from "./sandbox-frame.ts";

/** What goes in boot messages: the frame replaces it with the Pyodide bytes it holds. */
const FRAME_HELD_ASSETS: PyodideAssets = { kind: "bytes", files: {} };

export function sandboxWorkerFactory(sandbox: RunnerSandbox): RunnerWorkerFactory {
  return {
    pyodideAssets: () => FRAME_HELD_ASSETS,
    bootFailureFix: BROWSER_BOOT_FIX,
    spawn(): RunnerWorkerHandle {
      const job = sandbox.spawn();
      let exitHandler: ((reason: string, withFrame: boolean) => void) | undefined;
      let exited: { reason: string; withFrame: boolean } | undefined;
      const exit = (reason: string, withFrame: boolean): void => {
        if (exited !== undefined) return;
        exited = { reason, withFrame };
        exitHandler?.(reason, withFrame);
      };
      // A worker error (uncaught exception, failed start, out of memory) is its end: a browser
      // worker has no exit event, so the frame's error report is the exit. A lost frame ends
      // every worker in it (sandbox.ts).
      job.onError((error) => {
        job.terminate();
        const lost = error instanceof FrameLostError;
        exit(lost ? error.message : `runner worker error: ${error.message}`, lost);
      });
      return {
        post: (msg, transfer) => job.post(msg, transfer),
        onMessage: (handler) => job.onMessage(handler),
        onExit: (handler) => {
          exitHandler = handler;
          if (exited !== undefined) handler(exited.reason, exited.withFrame);
        },
        terminate: () => job.terminate(),
      };
    },
  };
}

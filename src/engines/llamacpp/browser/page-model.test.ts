// wllama's logger on the page: every line it or llama.cpp logs is a sign of life for the stall
// watch, errors are kept for the coded error, and its worker's error event (wllama passes its
// worker's onerror to the logger) is that worker's loss: what waits on it fails at once.
import { describe, expect, it } from "vitest";
import { EdgeError } from "../../../contract/errors.ts";
import { lineSigns, wllamaLogger } from "./page-model.ts";
import { LLAMA_STEP_MS } from "./stall-watch.ts";
import { errorLog } from "./worker-errors.ts";
import { WorkerLoss } from "./worker-loss.ts";

describe("wllama's logger", () => {
  it("counts each line as a sign of life and keeps the errors", () => {
    const log = errorLog();
    const lines: string[] = [];
    const logger = wllamaLogger(log, (l) => lines.push(l), new WorkerLoss());
    logger.debug("Loading model...");
    logger.log("llama_model_loader: loaded meta data with 26 key-value pairs");
    logger.warn("Not using compat mode");
    logger.error("ggml: out of memory");
    expect(lines).toEqual([
      "Loading model...",
      "llama_model_loader: loaded meta data with 26 key-value pairs",
      "Not using compat mode",
      "ggml: out of memory",
    ]);
    expect(log.since(0)).toEqual(["ggml: out of memory"]);
  });

  it("an error event from wllama's worker is its loss: guarded work fails with the reason, and the event is handled", async () => {
    const loss = new WorkerLoss();
    const logger = wllamaLogger(errorLog(), () => undefined, loss);
    const pending = loss.guard(new Promise(() => undefined), (reason) => new EdgeError("engine_lost", { reason }));
    const event = new Event("error", { cancelable: true });
    logger.error(event);
    await expect(pending).rejects.toMatchObject({
      code: "engine_lost",
      details: { reason: "wllama's worker stopped (it could not start, or it crashed)" },
    });
    expect(event.defaultPrevented).toBe(true);
    await expect(
      loss.guard(Promise.resolve(1), (reason) => new EdgeError("engine_lost", { reason })),
    ).rejects.toMatchObject({ code: "engine_lost" });
  });

  it("gives llama.cpp its longer silence only once wllama's worker has spoken (a worker that never starts says nothing), and no sign after the load", () => {
    const seen: Array<[string, number | undefined]> = [];
    const signs = lineSigns((sign, quietMs) => seen.push([sign, quietMs]));
    signs.line("Not using compat mode");
    signs.line('Loading "wllama.wasm" from "blob:http://127.0.0.1:4173/0b6c"');
    signs.line("print_info: file size   = 92.10 MiB (5.74 BPW)");
    signs.end();
    signs.line("late");
    expect(seen).toEqual([
      ["Not using compat mode", undefined],
      ['Loading "wllama.wasm" from "blob:http://127.0.0.1:4173/0b6c"', LLAMA_STEP_MS],
      ["print_info: file size   = 92.10 MiB (5.74 BPW)", LLAMA_STEP_MS],
    ]);
  });
});

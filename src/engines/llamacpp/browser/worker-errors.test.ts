// The worker's failures as coded errors, with llama.cpp's own reason where it logged one.
import { WllamaAbortError, WllamaError } from "@wllama/wllama";
import { describe, expect, it } from "vitest";
import { completionError, errorLog } from "./worker-errors.ts";

const live = new AbortController().signal;

describe("completionError", () => {
  it("an abort is not a failure", () => {
    expect(completionError(new WllamaAbortError(), live)).toBeUndefined();
    const aborted = new AbortController();
    aborted.abort();
    expect(completionError(new Error("x"), aborted.signal)).toBeUndefined();
  });

  it("a prompt beyond the window is context_window_exceeded with both numbers", () => {
    const e = completionError(
      new WllamaError("the request (5000 tokens) exceeds the available context size (4096 tokens)"),
      live,
    );
    expect(e?.code).toBe("context_window_exceeded");
    expect(e?.details).toMatchObject({ promptTokens: 5000, contextWindow: 4096 });
  });

  it("bytes that are not UTF-8 (wllama's strict JSON dump) are named, not reported as an out-of-bounds array", () => {
    const log = errorLog();
    log.logger.error("@@ERROR@@ earlier failure");
    const mark = log.mark();
    log.logger.error("[json.exception.type_error.316] invalid UTF-8 byte at index 3: 0xB0");
    const e = completionError(
      new RangeError("attempting to construct out-of-bounds Uint8Array on ArrayBuffer"),
      live,
      log.since(mark),
    );
    expect(e?.code).toBe("generation_failed");
    expect(e?.details).toMatchObject({ cause: "invalid_utf8" });
    expect(e?.message).toContain("not valid UTF-8");
    expect(String(e?.details.native)).not.toContain("earlier failure");
  });

  it("another failure carries the last native error line", () => {
    const log = errorLog();
    const mark = log.mark();
    log.logger.error("ggml: out of memory");
    const e = completionError(new Error("boom"), live, log.since(mark));
    expect(e?.message).toBe(
      "llama.cpp failed while generating: boom (ggml: out of memory). Try again, or reload the model.",
    );
  });

  it("keeps at most the last 20 lines", () => {
    const log = errorLog();
    for (let i = 0; i < 30; i++) log.logger.error(`line ${i}`);
    expect(log.since(0)).toHaveLength(20);
    expect(log.since(0)[19]).toBe("line 29");
  });
});

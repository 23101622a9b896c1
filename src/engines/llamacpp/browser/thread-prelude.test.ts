// The thread prelude (thread-prelude.ts): in llama.cpp's thread workers, and only there, a thread's
// entry is a plain call, so that Firefox ends the threads of an unloaded model without an error; and
// the facts about wllama 3.13's glue it rests on. The browser proof is the Firefox real-weight
// journey (e2e/browsers/real-model-journey.ts), which fails on any console error.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { THREAD_PRELUDE, withThreadPrelude } from "./thread-prelude.ts";

const wllamaDir = path.dirname(createRequire(import.meta.url).resolve("@wllama/wllama/package.json"));
const glue = readFileSync(path.join(wllamaDir, "src/wasm/wllama.js"), "utf8");

/** The Emscripten glue wllama 3.13 embeds in its bundle (WLLAMA_EMSCRIPTEN_CODE, a string literal). */
function embeddedGlue(): string {
  const bundle = readFileSync(path.join(wllamaDir, "esm/index.js"), "utf8");
  const start = bundle.indexOf("var WLLAMA_EMSCRIPTEN_CODE = ");
  expect(start).toBeGreaterThan(-1);
  const line = bundle.slice(start, bundle.indexOf("\n", start));
  return new Function(`${line}; return WLLAMA_EMSCRIPTEN_CODE;`)() as string;
}

/** The prelude run in a worker named `name`; the WebAssembly object it leaves. */
function runIn(name: string): {
  promising: (fn: (...a: unknown[]) => unknown) => (...a: unknown[]) => Promise<unknown>;
} {
  const original = () => {
    throw new Error("the engine's WebAssembly.promising");
  };
  const wasm = { promising: original };
  new Function("self", "WebAssembly", THREAD_PRELUDE)({ name }, wasm);
  return wasm as never;
}

describe("the thread prelude", () => {
  it("in a thread worker, runs a thread's entry as a plain call: at once, its result or its throw as the promise", async () => {
    const wasm = runIn("em-pthread");
    const calls: unknown[][] = [];
    const entry = wasm.promising((...args) => {
      calls.push(args);
      return 7;
    });
    const result = entry.call(null, 42n);
    expect(calls).toEqual([[42n]]); // ran before anything was awaited: no suspendable stack
    await expect(result).resolves.toBe(7);
    // pthread_exit unwinds by throwing "unwind"; the glue's `await invokeEntryPoint` catches it.
    await expect(
      wasm.promising(() => {
        throw "unwind";
      })(),
    ).rejects.toBe("unwind");
  });

  it("leaves every other worker alone: wllama's own worker keeps JSPI for the calls that suspend", () => {
    for (const name of ["", "edge-llm", "pthread"])
      expect(() => runIn(name).promising(() => 1)).toThrow("the engine's WebAssembly.promising");
  });

  it("comes first, and wllama's rename of the glue's `var Module` still finds the glue's own", () => {
    expect(THREAD_PRELUDE).not.toContain("var Module");
    const given = withThreadPrelude(glue);
    expect(given.startsWith(THREAD_PRELUDE)).toBe(true);
    expect(given.replace("var Module", "var ___Module")).toBe(
      THREAD_PRELUDE + glue.replace("var Module", "var ___Module"),
    );
  });
});

describe("wllama 3.13's glue, as the prelude assumes it", () => {
  it("the file Edge serves is the glue wllama embeds: the same default build runs", () => {
    expect(embeddedGlue()).toBe(glue);
  });

  it("names its thread workers em-pthread, tells them by that name, and enters each thread through WebAssembly.promising", () => {
    expect(glue).toContain('new Worker(pthreadMainJs,{workerData:"em-pthread",name:"em-pthread"})');
    expect(glue).toContain('var ENVIRONMENT_IS_PTHREAD=ENVIRONMENT_IS_WORKER&&self.name?.startsWith("em-pthread")');
    expect(glue).toContain("WebAssembly.promising(getWasmTableEntry(ptr)).call(null,BigInt(a1))");
  });

  it("suspends only in the model file's read and WebGPU's wait, never in a CPU thread's work", () => {
    // The imports that may suspend: those matching its pattern, and those marked isAsync.
    expect(glue).toContain("var importPattern=/^(invoke_.*|__asyncjs__.*)$/");
    expect(glue.match(/[\w$]+\.isAsync=true/g)?.sort()).toEqual([
      "_emwgpuWaitAny.isAsync=true",
      "invokeEntryPoint.isAsync=true",
    ]);
    expect(glue.match(/function __asyncjs__\w+/g)).toEqual(["function __asyncjs__js_file_read"]);
  });
});

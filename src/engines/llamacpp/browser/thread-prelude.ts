// Firefox and llama.cpp's threads. wllama 3.13's default build (Memory64 + JSPI) runs each of
// llama.cpp's threads in a worker of its own ("em-pthread"), started by wllama's worker, and
// Emscripten's glue enters every thread through `WebAssembly.promising(entry)`. llama.cpp's thread
// pool keeps its threads for the model's lifetime, waiting inside that entry. Unloading a model
// terminates wllama's worker, and with it those threads: Firefox (ESR 153) then reports, for each
// termination that finds a thread inside a `promising` call, "uncaught exception: undefined" to the
// page's console within 100 ms. No error event precedes it — not on the thread's global, not on
// its Worker object in wllama's worker (terminating the threads from there first changes nothing) —
// so no handler can catch it; a thread that is not inside `promising` ends silently.
//
// A thread never suspends: the glue's only suspending imports read the model file and wait for
// WebGPU, both called by wllama's worker, which drives the graph (the pool's threads run CPU work
// only). So in a thread worker, and only there, `promising` is replaced by the plain call wllama's
// own glue uses where JSPI is missing (its JSPI_STUB): the entry runs exactly as before, its result
// or its throw is the same promise, and the termination is silent. Were a thread ever to suspend, it
// would fail loudly (a SuspendError), not hang. Models run at the same speed (docs/engines.md,
// "Known faults"). wllama's own worker keeps JSPI; unload() waits for its step in progress to end
// before ending it (page-model.ts), as ending it mid-step is reported the same way.
//
// It runs first in every worker wllama starts from the code Edge hands it (page-model.ts): wllama's
// worker runs it inside a function and passes (its name is not "em-pthread"); each thread worker runs
// it as the first lines of its script, before the glue. It must not declare `var Module`: wllama
// renames the first one in the code it is given (the glue's own).

/** The glue's own test for a thread worker (ENVIRONMENT_IS_PTHREAD): its name. */
const IS_THREAD = `typeof self === "object" && typeof self.name === "string" && self.name.startsWith("em-pthread")`;

export const THREAD_PRELUDE = `if (${IS_THREAD}) {
  WebAssembly.promising = function (fn) {
    return function (...args) {
      try {
        return Promise.resolve(fn(...args));
      } catch (e) {
        return Promise.reject(e);
      }
    };
  };
}
`;

/** wllama's worker script (its Emscripten glue) with the prelude first. */
export function withThreadPrelude(glue: string): string {
  return THREAD_PRELUDE + glue;
}

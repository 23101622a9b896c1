// Hide JSPI from wllama's feature check (see llamacpp-compat.worker.ts).
delete (WebAssembly as { Suspending?: unknown }).Suspending;

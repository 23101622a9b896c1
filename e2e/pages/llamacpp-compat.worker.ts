// The llama.cpp worker as Safari (or any browser without JSPI) sees it: WebAssembly.Suspending is
// hidden (first import: modules run in import order) before the worker starts, so wllama takes its
// compat build (Asyncify, no Memory64) from the app's own origin. Chromium cannot turn JSPI off by
// a flag, hence this test-only entry. Static imports: messages sent before a later-installed
// listener would be lost.
import "./no-jspi.ts";
import "../../workers/llamacpp.worker.ts";

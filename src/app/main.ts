// Placeholder playground: starts the sandboxed runner, discovers /examples/tools.py in it and
// shows the inspect report as text. The real playground (editor, chat, model) replaces this.
//
// With `?debug` in the URL the page exposes `window.__edge` (the runner host and helpers) for
// the browser tests. It grants nothing the page's own scripts could not do.
import { createBrowserRunnerHost, type BrowserRunnerHost, type BrowserRunnerHostOptions } from "../runner/browser/index.ts";
import { callTool, type ToolCallReport } from "../toolset/call.ts";
import { freezeToolset, type FrozenToolset } from "../toolset/freeze.ts";
import { inspect, memorySource, type InspectReport } from "../toolset/inspect.ts";
import type { Selection } from "../contract/types.ts";

const EXAMPLE_URL = "/examples/tools.py";

export interface EdgeDebugHook {
  host: BrowserRunnerHost;
  /** Another sandboxed host with its own options (benchmarks, spare/snapshot variants). */
  createHost(options?: BrowserRunnerHostOptions): Promise<BrowserRunnerHost>;
  inspect(source: string, filename?: string, selection?: Selection): Promise<InspectReport>;
  freeze(source: string, filename?: string): Promise<FrozenToolset>;
  call(toolset: FrozenToolset, name: string, args: unknown, timeoutMs?: number): Promise<ToolCallReport>;
  /** Freeze then call, for tests that cannot pass a FrozenToolset across the page boundary. */
  freezeAndCall(source: string, name: string, args: unknown, timeoutMs?: number, filename?: string): Promise<ToolCallReport>;
}

declare global {
  interface Window {
    __edge?: EdgeDebugHook;
    __edgeReady?: Promise<void>;
  }
}

function el(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} missing`);
  return node;
}

function setStatus(text: string, state: "busy" | "ok" | "error"): void {
  const status = el("status");
  status.textContent = text;
  status.dataset.state = state;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const host = await createBrowserRunnerHost();
  const t = host.timings;
  setStatus("Runner sandbox started; discovering the example…", "busy");

  const hook: EdgeDebugHook = {
    host,
    createHost: (options) => createBrowserRunnerHost(options),
    inspect: (source, filename = "tools.py", selection = {}) => inspect(memorySource(filename, source), { host, ...selection }),
    freeze: (source, filename = "tools.py") => freezeToolset(memorySource(filename, source), host),
    call: (toolset, name, args, timeoutMs) => callTool(toolset, host, name, args, { timeoutMs }),
    freezeAndCall: async (source, name, args, timeoutMs, filename = "tools.py") =>
      callTool(await freezeToolset(memorySource(filename, source), host), host, name, args, { timeoutMs }),
  };
  if (new URLSearchParams(location.search).has("debug")) window.__edge = hook;

  const res = await fetch(EXAMPLE_URL);
  if (!res.ok) throw new Error(`could not load ${EXAMPLE_URL}: HTTP ${res.status}`);
  const text = await res.text();
  const t1 = performance.now();
  const report = await hook.inspect(text, "tools.py");
  const discoverMs = performance.now() - t1;

  el("inspect").textContent = JSON.stringify(report, null, 2);
  const stats = host.stats();
  el("timings").textContent =
    `Pyodide files fetched in ${Math.round(t.fetchMs)} ms; sandbox frame + wasm compile ${Math.round(t.frameMs)} ms; ` +
    `first discovery ${Math.round(discoverMs)} ms (worker boot ${stats.lastBootMs ?? "?"} ms); page to report ${Math.round(performance.now() - t0)} ms.`;
  setStatus(
    report.ok
      ? `Discovered ${report.tools.length} tool(s); active set ${report.active_set_sha256 ?? "—"}.`
      : `The example did not validate: ${report.errors.map((e) => e.code).join(", ")}.`,
    report.ok ? "ok" : "error",
  );
}

window.__edgeReady = main().catch((err: unknown) => {
  setStatus(`The runner could not start: ${err instanceof Error ? err.message : String(err)}`, "error");
  console.error(err);
});

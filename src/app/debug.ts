// The `?debug` hook for the browser tests (e2e/{boot,calls,parity,placeholder,sandbox}.spec.ts):
// `window.__edge` (the page's runner host and helpers) and `window.__edgeReady` (resolves once the
// page has inspected the example). It grants nothing the page's own scripts could not do.
import {
  createBrowserRunnerHost,
  type BrowserRunnerHost,
  type BrowserRunnerHostOptions,
} from "../runner/browser/index.ts";
import { callTool, type ToolCallReport } from "../toolset/call.ts";
import { freezeToolset, type FrozenToolset } from "../toolset/freeze.ts";
import { inspect, memorySource, type InspectReport } from "../toolset/inspect.ts";
import type { Selection } from "../contract/types.ts";

export interface EdgeDebugHook {
  host: BrowserRunnerHost;
  /** Another sandboxed host with its own options (benchmarks, spare/snapshot variants). */
  createHost(options?: BrowserRunnerHostOptions): Promise<BrowserRunnerHost>;
  inspect(source: string, filename?: string, selection?: Selection): Promise<InspectReport>;
  freeze(source: string, filename?: string): Promise<FrozenToolset>;
  call(toolset: FrozenToolset, name: string, args: unknown, timeoutMs?: number): Promise<ToolCallReport>;
  /** Freeze then call, for tests that cannot pass a FrozenToolset across the page boundary. */
  freezeAndCall(
    source: string,
    name: string,
    args: unknown,
    timeoutMs?: number,
    filename?: string,
  ): Promise<ToolCallReport>;
}

declare global {
  interface Window {
    __edge?: EdgeDebugHook;
    __edgeReady?: Promise<void>;
  }
}

function isDebug(): boolean {
  return new URLSearchParams(location.search).has("debug");
}

function debugHook(host: BrowserRunnerHost): EdgeDebugHook {
  return {
    host,
    createHost: (options) => createBrowserRunnerHost(options),
    inspect: (source, filename = "tools.py", selection = {}) =>
      inspect(memorySource(filename, source), { host, ...selection }),
    freeze: (source, filename = "tools.py") => freezeToolset(memorySource(filename, source), host),
    call: (toolset, name, args, timeoutMs) => callTool(toolset, host, name, args, { timeoutMs }),
    freezeAndCall: async (source, name, args, timeoutMs, filename = "tools.py") =>
      callTool(await freezeToolset(memorySource(filename, source), host), host, name, args, { timeoutMs }),
  };
}

/** Install the hook when the URL has `?debug`. */
export function installDebugHook(host: BrowserRunnerHost): void {
  if (isDebug()) window.__edge = debugHook(host);
}

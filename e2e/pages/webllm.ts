// Test page for e2e/webllm.spec.ts: the real tool loop in Chromium — WebLLMEngine, web-llm's
// page-side client, a real module worker running Edge's worker code and web-llm's handler, the
// sandboxed Python runner — with only the model replaced (webllm-fake.worker.ts). Driven through
// window.__webllm.
import type { AppConfig, ModelRecord } from "@mlc-ai/web-llm";
import { EdgeError } from "../../src/contract/errors.ts";
import { createChatSession } from "../../src/chat/session.ts";
import type { ChatRun, ChatSession } from "../../src/chat/types.ts";
import { WebLLMEngine, importWebLLM } from "../../src/engines/webllm.ts";
import { runNotes } from "../../src/app/run-notes.ts";
import { createBrowserRunnerHost, type BrowserRunnerHost } from "../../src/runner/browser/index.ts";
import { freezeToolset, type FrozenToolset } from "../../src/toolset/freeze.ts";
import { memorySource } from "../../src/toolset/inspect.ts";
import type { FakeWorkerConfig } from "./webllm-fake.worker.ts";

const MODEL = "Qwen3-1.7B-q4f16_1-MLC";
const TOOLS = `from edgestudio.tools import edge_tool


@edge_tool
def report(kb: int) -> dict:
    """Rows of the report, about kb kilobytes of JSON."""
    rows = []
    size = 2
    i = 0
    while size < kb * 1000:
        row = {"id": i, "name": f"item {i}", "note": f"row {i} of the report, status ok, value {(i * 37) % 1000}"}
        size += len(str(row)) + 2
        rows.append(row)
        i += 1
    return {"rows": rows}
`;

// The sandboxed runner and the frozen tools only when a test uses tools (a cold Pyodide start is
// the slowest step here), once per page.
let runnerHost: Promise<BrowserRunnerHost> | undefined;
const host = (): Promise<BrowserRunnerHost> => (runnerHost ??= createBrowserRunnerHost());
let frozen: Promise<FrozenToolset> | undefined;
const toolset = async (): Promise<FrozenToolset> =>
  (frozen ??= freezeToolset(memorySource("tools.py", TOOLS), await host()));
let engine: WebLLMEngine | undefined;
let session: ChatSession | undefined;

export interface OpenOptions extends Omit<FakeWorkerConfig, "kind"> {
  /** Python tools in the sandboxed runner (the report tool). */
  tools?: boolean;
  contextWindow?: number;
  /** max_tokens of the session's generations. */
  maxTokens?: number;
  /** Pin a wrong SRI hash on the model's config. */
  wrongIntegrity?: boolean;
}

export interface RunSummary {
  outcome: ChatRun["outcome"];
  code: string | null;
  message?: string;
  answer?: string;
  generations: number;
  calls: { tool_name: string; status: string }[];
  context?: ChatRun["receipt"]["context"];
  engine_stats?: ChatRun["engine_stats"];
  truncated: boolean;
}

async function appConfigWith(wrongIntegrity: boolean): Promise<AppConfig> {
  const { prebuiltAppConfig } = await importWebLLM();
  const integrity = { config: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" };
  const model_list = prebuiltAppConfig.model_list.map(
    (r): ModelRecord => (r.model_id === MODEL && wrongIntegrity ? { ...r, integrity } : r),
  );
  return { ...prebuiltAppConfig, model_list };
}

async function open(o: OpenOptions = {}): Promise<{ ok: boolean; code?: string; contextWindow?: number }> {
  await engine?.unload();
  // The worker reads only its own fields.
  const config: FakeWorkerConfig = { kind: "fake.config", ...o };
  engine = new WebLLMEngine({
    modelId: MODEL,
    appConfig: await appConfigWith(o.wrongIntegrity === true),
    ...(o.contextWindow ? { chatOptions: { context_window_size: o.contextWindow } } : {}),
    createWorker: () => {
      const w = new Worker(new URL("./webllm-fake.worker.ts", import.meta.url), {
        type: "module",
        name: "edge-llm-fake",
      });
      w.postMessage(config);
      return w;
    },
  });
  try {
    await engine.load();
  } catch (e) {
    return { ok: false, code: e instanceof EdgeError ? e.code : String(e) };
  }
  const limits = o.maxTokens ? { maxTokens: o.maxTokens } : {};
  session = o.tools
    ? await createChatSession({
        engine,
        host: await host(),
        tools: { kind: "toolset", toolset: await toolset() },
        ...limits,
      })
    : await createChatSession({ engine, ...limits });
  return { ok: true, ...(engine.info().contextWindow ? { contextWindow: engine.info().contextWindow } : {}) };
}

async function chat(prompt: string, abortAfterTokens?: number): Promise<RunSummary> {
  if (!session) throw new Error("open() first");
  let generations = 0;
  let tokens = 0;
  const controller = new AbortController();
  const run = await session.chat(prompt, {
    signal: controller.signal,
    onToken: () => {
      if (++tokens === abortAfterTokens) controller.abort();
    },
    onEvent: (e) => {
      if (e.type === "model_output") generations++;
    },
  });
  // Shown as the playground shows it under an answer.
  document.getElementById("notes")!.replaceChildren(...runNotes(run));
  return {
    outcome: run.outcome,
    code: run.receipt.code,
    ...(run.error ? { message: run.error.message } : {}),
    ...(run.answer !== undefined ? { answer: run.answer } : {}),
    generations,
    calls: run.receipt.calls.map((c) => ({ tool_name: c.tool_name, status: c.status })),
    ...(run.receipt.context ? { context: run.receipt.context } : {}),
    ...(run.engine_stats ? { engine_stats: run.engine_stats } : {}),
    truncated: run.truncated === true,
  };
}

/** Whether web-llm's config cache holds the model's mlc-chat-config.json. */
async function configCached(): Promise<boolean> {
  const cache = await caches.open("webllm/config");
  return (await cache.keys()).some((r) => r.url.includes(MODEL) && r.url.endsWith("mlc-chat-config.json"));
}

const api = { open, chat, configCached, loaded: () => engine?.loaded ?? false };
declare global {
  interface Window {
    __webllm?: typeof api;
  }
}
window.__webllm = api;
document.getElementById("status")!.textContent = "ready";

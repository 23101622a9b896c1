// How a chat session is put together, the same in every environment: the environment's root
// (src/assembly/node.ts, src/assembly/browser.ts) supplies its receipt store, its runner host and
// its confirmation broker; a front door says only what it was asked for (the engine, the tools,
// the options). Python tools get the runner host and a broker bound to their source and selection;
// facts and manifest surfaces need neither.
import type { ChatSession, ChatSessionOptions, ChatTools, ConfirmationBroker, ToolSurface } from "../chat/types.ts";
import type { Selection } from "../contract/types.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import type { RunnerHost, ToolSource } from "../runner/host.ts";
import type { ApprovalHandler, ToolRuntime } from "../runtime/index.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";

/** A session's tools: a Python tools source (frozen when the session starts), an already frozen
 *  toolset (frozen under `selection`), or a surface (local facts, a tools manifest). */
export type SessionTools =
  | { readonly kind: "python"; readonly source: ToolSource; readonly selection?: Selection }
  | { readonly kind: "frozen"; readonly toolset: FrozenToolset; readonly selection?: Selection }
  | { readonly kind: "surface"; readonly surface: ToolSurface };

/** Built-in tools over the workspace: the runtime they are registered in and their write approval. */
export interface SessionBuiltins {
  runtime: ToolRuntime;
  approval: ApprovalHandler;
}

/** What a front door asks for; the stores, the runner host and the broker come from the root. */
export interface SessionRequest
  extends Omit<ChatSessionOptions, "tools" | "host" | "store" | "confirmations" | "runtime" | "approval"> {
  tools?: SessionTools;
  builtins?: Partial<SessionBuiltins>;
}

/** What one environment's root gives every session it builds. */
export interface SessionParts {
  readonly receipts: ReceiptStore;
  /** The runner host (started on first use: a session without Python tools never starts it). */
  runnerHost(): Promise<RunnerHost>;
  /** The broker that turns a commit tool's call into a pending action, bound to the tools' source. */
  broker(source: ToolSource, selection: Selection | undefined): ConfirmationBroker;
}

function chatTools(tools: SessionTools): ChatTools {
  if (tools.kind === "python")
    return { kind: "file", source: tools.source, ...(tools.selection ? { selection: tools.selection } : {}) };
  if (tools.kind === "frozen") return { kind: "toolset", toolset: tools.toolset };
  return { kind: "surface", surface: tools.surface };
}

/** The session a root builds for a request: the one place a session's parts are wired. */
export async function assembleSession(parts: SessionParts, request: SessionRequest): Promise<ChatSession> {
  const { tools, builtins, ...options } = request;
  // Imported here: a root that only serves tools (`edge mcp serve`) loads no chat loop.
  const { createChatSession } = await import("../chat/session.ts");
  const python = tools?.kind === "python" ? tools.source : tools?.kind === "frozen" ? tools.toolset.source : null;
  const selection = tools && tools.kind !== "surface" ? tools.selection : undefined;
  return createChatSession({
    ...options,
    store: parts.receipts,
    ...(tools ? { tools: chatTools(tools) } : {}),
    ...(python ? { host: await parts.runnerHost(), confirmations: parts.broker(python, selection) } : {}),
    ...(builtins?.runtime ? { runtime: builtins.runtime } : {}),
    ...(builtins?.approval ? { approval: builtins.approval } : {}),
  });
}

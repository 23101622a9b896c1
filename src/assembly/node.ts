// The composition root in Node: the one place `edge chat` and `edge mcp serve` (and any program
// that embeds Edge in Node) get their parts from — the stores under $EDGE_DATA_DIR (receipts,
// pending actions, facts), purging expired pending actions, the runner host, the confirmation
// broker and the confirm step, the engine and the tools (a tools file, a facts store, a manifest).
// A front door translates its own inputs (flags, a protocol) into a request here and renders what
// comes back.
import { readFile } from "node:fs/promises";
import type { ChatSession } from "../chat/types.ts";
import { nodeConfirmationBroker } from "../confirm/node-broker.ts";
import { confirm, purgeExpired, reject, type ConfirmContext } from "../confirm/confirm.ts";
import { createNodePendingStore, type NodePendingStore } from "../confirm/store-node.ts";
import type { ConfirmOutcome } from "../confirm/types.ts";
import { EdgeError } from "../contract/errors.ts";
import type { Selection } from "../contract/types.ts";
import type { Engine } from "../engines/engine.ts";
import type { ModelSource } from "../engines/llamacpp/backend.ts";
import type { FactsStore } from "../facts/store.ts";
import type { FactsSurface } from "../facts/surface.ts";
import type { McpServiceOptions, McpToolService } from "../mcp/service.ts";
import { directCall, type DirectCallOptions, type DirectCallOutcome } from "../chat/direct-call.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import { createNodeReceiptStore } from "../receipts/store-node.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import type { ToolSource } from "../runner/host.ts";
import type { PoolRunnerHost } from "../runner/pool.ts";
import { freezeToolset, type FrozenToolset } from "../toolset/freeze.ts";
import { assembleSession, type SessionParts, type SessionRequest, type SessionTools } from "./session.ts";
import { toolsFileSource } from "./tools-source.ts";

/** A tools file on disk (its project: the folder, or `root`), as the CLI names it. */
export interface NodeToolsFile {
  file: string;
  root?: string;
  selection?: Selection;
}

/** A session's tools in Node: a tools file, a local facts store's lookup, a tools manifest's
 *  lookups (a file), or what another root already built. */
export type NodeTools =
  | ({ kind: "file" } & NodeToolsFile)
  | { kind: "facts"; store: string }
  | { kind: "manifest"; path: string }
  | SessionTools;

export interface NodeSessionRequest extends Omit<SessionRequest, "tools"> {
  tools?: NodeTools;
}

/** The engine: a GGUF model run by llama.cpp, or the scripted replay of a model's outputs. */
export type NodeEngineChoice =
  | { kind: "llamacpp"; model: ModelSource; contextSize?: number; threads?: number }
  | { kind: "scripted"; outputs: readonly string[]; contextWindow?: number };

export interface NodeEngine {
  engine: Engine;
  /** Call before each prompt: the scripted replay starts again from its first output. */
  beforePrompt(): void;
}

export interface NodeEdgeOptions {
  /** Booted runners kept ready for the next call (default 1; 0 when no Python tool will run). */
  spares?: number;
  /** A runner host of the caller's instead (the one-shot commands pass the runner keeper's:
   *  src/cli/runners.ts); the root closes it. */
  host?: PoolRunnerHost;
}

/** One checked call of a tool of a frozen tools file, outside a chat (`edge tools call`). */
export interface NodeDirectCall {
  tools: NodeToolsFile;
  toolset: FrozenToolset;
  name: string;
  args: unknown;
  options?: Pick<DirectCallOptions, "call" | "extra">;
}

/** What an MCP server over one tools file needs besides its transport. */
export interface NodeToolService extends Pick<McpServiceOptions, "workspace" | "timeoutMs" | "log"> {
  tools: NodeToolsFile;
}

export interface NodeEdge {
  readonly host: PoolRunnerHost;
  readonly receipts: ReceiptStore;
  readonly pending: NodePendingStore;
  /** Purge expired pending actions (arguments wiped); a failure is reported, never thrown. */
  purgeExpired(onError: (err: unknown) => void): Promise<void>;
  /** Make an engine (its code imported now; the model loads on engine.load()). */
  engine(choice: NodeEngineChoice): Promise<NodeEngine>;
  /** The tools file's project on disk, re-read for every job. */
  toolsSource(tools: NodeToolsFile): ToolSource;
  freeze(tools: NodeToolsFile): Promise<FrozenToolset>;
  session(request: NodeSessionRequest): Promise<ChatSession>;
  /** Run a pending action once (its token, binding, expiry, the re-frozen tools file). */
  confirm(
    id: string,
    token: string,
    options: Pick<ConfirmContext, "signal" | "workspace" | "timeoutMs" | "origin" | "confirmedVia">,
  ): Promise<ConfirmOutcome>;
  reject(id: string): Promise<ConfirmOutcome>;
  /** A direct call: argument checks, a fresh runner, result checks, one receipt; a commit tool
   *  becomes a pending action instead of running. */
  call(request: NodeDirectCall): Promise<DirectCallOutcome>;
  /** The tools an MCP server offers: the file frozen now, each call through this root's parts. */
  toolService(options: NodeToolService): Promise<McpToolService>;
  close(): Promise<void>;
}

export function createNodeEdge(options: NodeEdgeOptions = {}): NodeEdge {
  const host = options.host ?? createNodeRunnerHost({ spares: options.spares ?? 1 });
  const receipts = createNodeReceiptStore();
  const pending = createNodePendingStore();
  // Imported on first use, like the engines: `edge mcp serve` loads no facts or engine code.
  let facts: Promise<FactsStore> | undefined;
  const factsStore = (): Promise<FactsStore> =>
    (facts ??= import("../facts/store-node.ts").then((m) => m.createNodeFactsStore()));
  const toolsSource = (t: NodeToolsFile): ToolSource => toolsFileSource(t.file, t.root);
  const freeze = (t: NodeToolsFile): Promise<FrozenToolset> => freezeToolset(toolsSource(t), host, t.selection ?? {});
  const sourceOfRecord = (record: { tools_file: string; tools_root?: string }) =>
    toolsFileSource(record.tools_file, record.tools_root);

  const parts = (file: NodeToolsFile | null): SessionParts => ({
    receipts,
    runnerHost: async () => host,
    // The CLI's broker: the record names the tools file by absolute path and the ticket carries the
    // exact `edge tools confirm` command for this installation.
    broker: (source, selection) =>
      nodeConfirmationBroker(file?.file ?? source.name, selection ?? {}, pending, file?.root),
  });

  const surfaceOf = async (tools: NodeTools): Promise<SessionTools> => {
    if (tools.kind === "file")
      return { kind: "python", source: toolsSource(tools), ...(tools.selection ? { selection: tools.selection } : {}) };
    if (tools.kind === "facts" || tools.kind === "manifest")
      return { kind: "surface", surface: await nodeFactsSurface(tools, await factsStore()) };
    return tools;
  };

  return {
    host,
    receipts,
    pending,
    async purgeExpired(onError) {
      await purgeExpired(pending).catch(onError);
    },
    engine: makeNodeEngine,
    toolsSource,
    freeze,
    async session(request) {
      const { tools, ...rest } = request;
      const file = tools?.kind === "file" ? tools : null;
      return assembleSession(parts(file), { ...rest, ...(tools ? { tools: await surfaceOf(tools) } : {}) });
    },
    confirm: (id, token, o) => confirm(id, token, { ...o, store: pending, host, source: sourceOfRecord, receipts }),
    reject: (id) => reject(id, { store: pending }),
    call: (c) =>
      directCall(c.toolset, host, c.name, c.args, {
        ...c.options,
        broker: parts(c.tools).broker(c.toolset.source, c.tools.selection),
        receipts,
      }),
    async toolService(o) {
      // Imported here: a one-shot command that builds this root loads no MCP code.
      const [{ createMcpToolService }, toolset] = await Promise.all([import("../mcp/service.ts"), freeze(o.tools)]);
      return createMcpToolService({
        toolset,
        host,
        broker: parts(o.tools).broker(toolset.source, o.tools.selection),
        receipts,
        pending,
        source: sourceOfRecord,
        ...(o.workspace ? { workspace: o.workspace } : {}),
        ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
        log: o.log,
      });
    },
    close: () => host.close(),
  };
}

/** A local facts store's lookup, or a tools manifest's lookups (the manifest read from its file). */
export async function nodeFactsSurface(
  tools: { kind: "facts"; store: string } | { kind: "manifest"; path: string },
  store?: FactsStore,
): Promise<FactsSurface> {
  const [{ factsStoreSurface, toolsManifestSurface }, facts] = await Promise.all([
    import("../facts/surface.ts"),
    store ?? import("../facts/store-node.ts").then((m) => m.createNodeFactsStore()),
  ]);
  if (tools.kind === "facts") return factsStoreSurface(facts, tools.store);
  let raw: Uint8Array;
  try {
    raw = await readFile(tools.path);
  } catch (err) {
    throw new EdgeError(
      "invalid_tools_manifest",
      { path: tools.path },
      `The tools manifest ${tools.path} could not be read: ${(err as Error).message}. Check the path and its permissions.`,
    );
  }
  return toolsManifestSurface(facts, raw);
}

/** Make the engine a front door chose (the root's `engine()`; `edge learn run` makes it alone). */
export async function makeNodeEngine(choice: NodeEngineChoice): Promise<NodeEngine> {
  if (choice.kind === "scripted") {
    const { outputs } = choice;
    const { ScriptPlayer } = await import("../chat/script.ts");
    const player = new ScriptPlayer(
      () => outputs,
      choice.contextWindow !== undefined ? { contextWindow: choice.contextWindow } : {},
    );
    return { engine: player.engine, beforePrompt: () => player.startPrompt() };
  }
  const { createNodeLlamaCppEngine } = await import("../engines/llamacpp/node/index.ts");
  const engine = createNodeLlamaCppEngine({
    model: choice.model,
    ...(choice.contextSize !== undefined ? { contextSize: choice.contextSize } : {}),
    ...(choice.threads !== undefined ? { threads: choice.threads } : {}),
  });
  return { engine, beforePrompt: () => undefined };
}

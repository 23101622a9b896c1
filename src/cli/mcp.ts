// `edge mcp serve FILE`: the frozen tools of FILE to any MCP client, over stdio (the default) or
// Streamable HTTP on loopback (--http 127.0.0.1:PORT, a bearer token printed at start). The server
// is src/mcp; this wires Edge's Node pieces into it: the runner host, pending actions, receipts,
// the workspace. SIGHUP re-freezes the file (and tells clients the tool list changed).
import { parseArgs } from "node:util";
import { nodeConfirmationBroker } from "../confirm/node-broker.ts";
import { purgeExpired } from "../confirm/confirm.ts";
import { createNodePendingStore } from "../confirm/store-node.ts";
import { warmSchemaChecks } from "../contract/ajv.ts";
import { toErrorJson } from "../contract/errors.ts";
import { randomHex } from "../contract/hash.ts";
import type { Selection } from "../contract/types.ts";
import { parseLoopbackAddress, serveHttp } from "../mcp/http.ts";
import type { HttpLimits } from "../mcp/http-limits.ts";
import { createMcpToolService, type McpToolService } from "../mcp/service.ts";
import { serveStdio } from "../mcp/stdio.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import { toolsFileSource } from "./tools-source.ts";
import type { PoolRunnerHost } from "../runner/pool.ts";
import { createNodeReceiptStore } from "../receipts/store-node.ts";
import { freezeToolset } from "../toolset/freeze.ts";
import { escapeLine, EXIT_OK, UsageError, type CliIO } from "./io.ts";

interface ServeOptions {
  file: string;
  root: string | undefined;
  selection: Selection;
  http: string | undefined;
  timeoutMs: number | undefined;
  workspace: string | undefined;
  limits: Partial<HttpLimits>;
}

function parse(argv: string[]): ServeOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      "tools-root": { type: "string" },
      tool: { type: "string", multiple: true },
      "tool-tag": { type: "string", multiple: true },
      http: { type: "string" },
      "timeout-ms": { type: "string" },
      workspace: { type: "string" },
      "max-sessions": { type: "string" },
      "session-idle-ms": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError("mcp serve needs exactly one tools FILE.");
  const timeoutMs = positiveInteger(values["timeout-ms"], "--timeout-ms");
  const maxSessions = positiveInteger(values["max-sessions"], "--max-sessions");
  const sessionIdleMs = positiveInteger(values["session-idle-ms"], "--session-idle-ms");
  if ((maxSessions ?? sessionIdleMs) !== undefined && values.http === undefined) throw new UsageError("--max-sessions and --session-idle-ms bound the sessions of --http; over stdio there is one client.");
  const limits: Partial<HttpLimits> = { ...(maxSessions !== undefined ? { maxSessions } : {}), ...(sessionIdleMs !== undefined ? { sessionIdleMs } : {}) };
  return { file: positionals[0]!, root: values["tools-root"], selection: { tool: values.tool, toolTag: values["tool-tag"] }, http: values.http, timeoutMs, workspace: values.workspace, limits };
}

function positiveInteger(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${option} must be a positive integer.`);
  return n;
}

export async function mcpServe(argv: string[], io: CliIO): Promise<number> {
  const o = parse(argv);
  const address = o.http !== undefined ? parseLoopbackAddress(o.http) : null;
  // Client names, tool names and messages are untrusted: a line break in them must not start a line.
  const log = (line: string): void => io.err(`edge mcp: ${escapeLine(line)}\n`);
  // A long-lived server: one booted spare keeps the next call's runner ready (each still used once).
  const signals = stopSignals();
  const host = createNodeRunnerHost({ spares: 1 });
  void host.started().then(warmSchemaChecks);
  try {
    const { cliWorkspace } = await import("./workspace-session.ts");
    const ws = await cliWorkspace(o.workspace, undefined, false);
    const source = toolsFileSource(o.file, o.root);
    const toolset = await freezeToolset(source, host, o.selection);
    const pending = createNodePendingStore();
    await purgeExpired(pending).catch((err) => log(`could not purge expired pending actions: ${String(err)}`));
    const service = createMcpToolService({
      toolset,
      host,
      // The confirm command goes only to stderr (service.ts); it names this installation by path.
      broker: nodeConfirmationBroker(o.file, o.selection, pending, o.root),
      receipts: createNodeReceiptStore(),
      pending,
      source: (record) => toolsFileSource(record.tools_file, record.tools_root),
      ...(ws.workspace ? { workspace: ws.workspace } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
      log,
    });
    const names = toolset.active.map((t) => `${t.schema.name} (${t.schema.execution_level})`).join(", ");
    log(`froze ${o.file}: ${toolset.active.length} tool(s): ${names}; tools_file_sha256 ${toolset.tools_file_sha256}, active_set_sha256 ${toolset.active_set_sha256}`);
    const stopRefreeze = onSighup(() => refreeze(service, host, o, log));
    try {
      if (address) {
        const token = randomHex(32);
        const http = await serveHttp(service, address, token, { limits: o.limits, log });
        log(`serving Streamable HTTP at ${http.url} (loopback only)`);
        log(`bearer token: ${token}   (send the header "Authorization: Bearer ${token}"; a restart makes a new token)`);
        await signals.stopped;
        await http.close();
      } else {
        const stdio = await serveStdio(service);
        log("serving over stdio");
        await Promise.race([stdio.gone, signals.stopped]);
        await stdio.close();
      }
      // Calls still running were aborted by the close; their receipts are written before we exit.
      await service.idle();
      log("stopped");
      return EXIT_OK;
    } finally {
      stopRefreeze();
    }
  } finally {
    await host.close();
    signals.dispose();
  }
}

/** Re-freeze on the person's explicit request: a file that fails to freeze keeps the old set. */
async function refreeze(service: McpToolService, host: PoolRunnerHost, o: ServeOptions, log: (line: string) => void): Promise<void> {
  try {
    const next = await freezeToolset(toolsFileSource(o.file, o.root), host, o.selection);
    service.replace(next);
    log(`re-froze ${o.file} (SIGHUP): ${next.active.length} tool(s), tools_file_sha256 ${next.tools_file_sha256}; clients were told the tool list changed`);
  } catch (err) {
    log(`re-freezing ${o.file} failed, the tools frozen before stay in use: ${toErrorJson(err).code}: ${toErrorJson(err).message}`);
  }
}

function onSighup(handler: () => void): () => void {
  if (process.platform === "win32") return () => undefined;
  process.on("SIGHUP", handler);
  return () => void process.off("SIGHUP", handler);
}

/** SIGINT or SIGTERM stop the server. The listeners stay until the very end: while they are there,
 *  the runner module's own hooks leave the signal to us (src/runner/node-process.ts). */
function stopSignals(): { stopped: Promise<void>; dispose(): void } {
  let resolve!: () => void;
  const stopped = new Promise<void>((r) => (resolve = r));
  const done = (): void => resolve();
  process.on("SIGINT", done);
  process.on("SIGTERM", done);
  return {
    stopped,
    dispose: () => {
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
    },
  };
}

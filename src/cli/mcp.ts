// `edge mcp serve FILE`: the frozen tools of FILE to any MCP client, over stdio (the default) or
// Streamable HTTP on loopback (--http 127.0.0.1:PORT, a bearer token printed at start). The server
// is src/mcp; this wires Edge's Node pieces into it: the runner host, pending actions, receipts,
// the workspace. SIGHUP re-freezes the file (and tells clients the tool list changed).
import { parseArgs } from "node:util";
import { createNodeEdge, type NodeEdge, type NodeToolsFile } from "../assembly/node.ts";
import { warmSchemaChecks } from "../contract/ajv.ts";
import { toErrorJson } from "../contract/errors.ts";
import { randomHex } from "../contract/hash.ts";
import type { Selection } from "../contract/types.ts";
import { parseLoopbackAddress, serveHttp } from "../mcp/http.ts";
import type { HttpLimits } from "../mcp/http-limits.ts";
import type { McpToolService } from "../mcp/service.ts";
import { serveStdio } from "../mcp/stdio.ts";
import { escapeLine, EXIT_OK, UsageError, type CliIO } from "./io.ts";

interface ServeOptions {
  tools: NodeToolsFile & { selection: Selection };
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
  if ((maxSessions ?? sessionIdleMs) !== undefined && values.http === undefined)
    throw new UsageError(
      "--max-sessions and --session-idle-ms bound the sessions of --http; over stdio there is one client.",
    );
  const limits: Partial<HttpLimits> = {
    ...(maxSessions !== undefined ? { maxSessions } : {}),
    ...(sessionIdleMs !== undefined ? { sessionIdleMs } : {}),
  };
  const root = values["tools-root"];
  const tools = {
    file: positionals[0]!,
    ...(root !== undefined ? { root } : {}),
    selection: { tool: values.tool, toolTag: values["tool-tag"] },
  };
  return { tools, http: values.http, timeoutMs, workspace: values.workspace, limits };
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
  const edge = createNodeEdge({ spares: 1 });
  void edge.host.started().then(warmSchemaChecks);
  try {
    const { cliWorkspace } = await import("./workspace-session.ts");
    const ws = await cliWorkspace(o.workspace, undefined, false);
    await edge.purgeExpired((err) => log(`could not purge expired pending actions: ${String(err)}`));
    // The confirm command goes only to stderr (service.ts); it names this installation by path.
    const service = await edge.toolService({
      tools: o.tools,
      log,
      ...(ws.workspace ? { workspace: ws.workspace } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    });
    const toolset = service.toolset();
    const names = toolset.active.map((t) => `${t.schema.name} (${t.schema.execution_level})`).join(", ");
    log(
      `froze ${o.tools.file}: ${toolset.active.length} tool(s): ${names}; tools_file_sha256 ${toolset.tools_file_sha256}, active_set_sha256 ${toolset.active_set_sha256}`,
    );
    const stopRefreeze = onSighup(() => refreeze(service, edge, o, log));
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
    await edge.close();
    signals.dispose();
  }
}

/** Re-freeze on the person's explicit request: a file that fails to freeze keeps the old set. */
async function refreeze(
  service: McpToolService,
  edge: NodeEdge,
  o: ServeOptions,
  log: (line: string) => void,
): Promise<void> {
  try {
    const next = await edge.freeze(o.tools);
    service.replace(next);
    log(
      `re-froze ${o.tools.file} (SIGHUP): ${next.active.length} tool(s), tools_file_sha256 ${next.tools_file_sha256}; clients were told the tool list changed`,
    );
  } catch (err) {
    log(
      `re-freezing ${o.tools.file} failed, the tools frozen before stay in use: ${toErrorJson(err).code}: ${toErrorJson(err).message}`,
    );
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

// One MCP connection (a stdio client, or one Streamable HTTP session) on the official SDK's
// Server: tools/list and tools/call over the shared McpToolService. No protocol code of our own.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type ClientCapabilities,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { ReceiptOrigin } from "../receipts/types.ts";
import { EDGE_RUNTIME_VERSION } from "../contract/version.ts";
import type { AskPerson, ConfirmAnswer, ConfirmQuestion, McpToolService } from "./service.ts";

const INSTRUCTIONS =
  "Edge runs these Python tools in a fresh, hash-checked sandboxed runner per call, checks every argument and result against the tool's schema, and writes a receipt for every call. Tools marked destructive are commit tools: they run only after the person confirms (asked through this client when it supports elicitation; otherwise the person runs the confirm command the server prints on its own standard error, which is never sent to this client).";

export interface McpConnection {
  server: Server;
  /** Stop one running call (its HTTP response went away): the runner is killed, the receipt says aborted. */
  abortRequest(id: RequestId): void;
}

export function createMcpConnection(service: McpToolService): McpConnection {
  const server = new Server(
    { name: "edge", version: EDGE_RUNTIME_VERSION },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );
  const aborts = new Map<RequestId, AbortController>();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: service.tools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const own = new AbortController();
    aborts.set(extra.requestId, own);
    try {
      const ask = canElicit(server.getClientCapabilities()) ? askThrough(server, extra.requestId) : undefined;
      return await service.call(request.params.name, request.params.arguments ?? {}, {
        origin: originOf(server),
        signal: AbortSignal.any([extra.signal, own.signal]),
        ...(ask ? { ask } : {}),
      });
    } finally {
      aborts.delete(extra.requestId);
    }
  });
  const stop = service.onToolsChanged(() => void server.sendToolListChanged().catch(() => undefined));
  const previousClose = server.onclose;
  server.onclose = () => {
    stop();
    previousClose?.();
  };
  return { server, abortRequest: (id) => aborts.get(id)?.abort() };
}

function originOf(server: Server): ReceiptOrigin {
  const info = server.getClientVersion();
  return { surface: "mcp", client: { name: info?.name ?? "unknown", version: info?.version ?? "unknown" } };
}

/** Form elicitation: declared as `form`, or an empty `elicitation: {}` (form, for older clients). */
function canElicit(caps: ClientCapabilities | undefined): boolean {
  const e = caps?.elicitation as { form?: unknown; url?: unknown } | undefined;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/** Ask the person through the client: one boolean, bound to the pending action's hashes and expiry. */
function askThrough(server: Server, relatedRequestId: RequestId): AskPerson {
  return async (q: ConfirmQuestion, signal: AbortSignal): Promise<ConfirmAnswer> => {
    const r = q.record;
    const timeout = Date.parse(r.expires_at) - Date.now() - 1000;
    if (!(timeout > 0)) return "unavailable";
    const message = [
      `Edge: ${q.tool_name} is a commit tool (it has side effects); it runs only if you confirm.`,
      `Arguments: ${JSON.stringify(r.arguments)}`,
      `Pending action ${r.id}, expires ${r.expires_at}.`,
      `Bound to tools_file_sha256 ${r.tools_file_sha256}, tool_schema_sha256 ${r.tool_schema_sha256}, args_sha256 ${r.args_sha256}, binding_sha256 ${r.binding_sha256}.`,
      `Confirm to run it once now; decline to reject it.`,
    ].join("\n");
    const result = await server.request(
      {
        method: "elicitation/create",
        params: {
          message,
          requestedSchema: {
            type: "object",
            properties: {
              confirm: {
                type: "boolean",
                title: `Run ${q.tool_name} once`,
                description: `Run ${q.tool_name} with the arguments shown (pending action ${r.id}).`,
              },
            },
            required: ["confirm"],
          },
        },
      },
      ElicitResultSchema,
      // On the call's own response stream (Streamable HTTP), as the spec asks of nested requests.
      { signal, timeout, relatedRequestId },
    );
    if (result.action === "accept") return result.content?.confirm === true ? "accept" : "decline";
    // decline, or cancel (dismissed): rejected, so it can never run later by accident.
    return "decline";
  };
}

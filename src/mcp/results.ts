// Edge's outcomes as MCP tool results. A result carries structuredContent (the validated result
// object) and the same JSON as text; a failure is a tool error (isError) whose text and _meta carry
// Edge's code. A failure has no structuredContent: clients check it against the tool's
// outputSchema even on errors.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ErrorJson } from "../contract/errors.ts";
import type { JsonObject } from "../contract/types.ts";
import { META } from "./tools-list.ts";

export interface ReceiptRef {
  receipt_id?: string;
}

export function okResult(result: JsonObject, ref: ReceiptRef): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(result) }],
    structuredContent: result,
    ...(ref.receipt_id ? { _meta: { [`${META}receipt_id`]: ref.receipt_id } } : {}),
  };
}

function errorOf(e: ErrorJson): ErrorJson {
  const { code, message, tool, parameter, line, file } = e;
  return {
    code,
    message,
    ...(tool ? { tool } : {}),
    ...(parameter ? { parameter } : {}),
    ...(line ? { line } : {}),
    ...(file ? { file } : {}),
  } as ErrorJson;
}

export function errorResult(e: ErrorJson, ref: ReceiptRef, more: Record<string, unknown> = {}): CallToolResult {
  const error = errorOf(e);
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify({ ok: false, error, ...more, ...ref }) }],
    _meta: { [`${META}error`]: error, ...(ref.receipt_id ? { [`${META}receipt_id`]: ref.receipt_id } : {}) },
  };
}

export interface PendingInfo {
  id: string;
  expires_at: string;
}

/**
 * A commit tool that did not run: the pending action's id and what the person must do. Never the
 * token, nor the confirm command that holds it: whatever reaches the client can reach the model
 * (clients forward content whatever its audience), and the token is what proves the person's
 * decision, so it goes only to the server's own stderr.
 */
export function pendingResult(e: ErrorJson, pending: PendingInfo, ref: ReceiptRef): CallToolResult {
  const base = errorResult(e, ref, { pending_action: { id: pending.id, expires_at: pending.expires_at } });
  return {
    ...base,
    content: [
      ...base.content,
      {
        type: "text",
        text:
          `Nothing ran. Pending action ${pending.id} waits for the person until ${pending.expires_at}: ` +
          "the command that confirms it (with its single-use token) is printed only on the standard error of `edge mcp serve` (its terminal, or the server log the MCP client keeps); " +
          "the person runs it in a terminal to run the tool once, or the reject command printed beside it to refuse it. This client never receives the token.",
        annotations: { audience: ["user", "assistant"], priority: 1 },
      },
    ],
    _meta: { ...base._meta, [`${META}pending_action`]: { id: pending.id, expires_at: pending.expires_at } },
  };
}

// Inline confirmation in `edge chat --interactive` (stdin is a terminal): a commit tool's pending
// action is shown and asked y/N. Yes runs it through the same confirm step as
// `edge tools confirm` (token, binding, re-frozen tools, one fresh runner, its own receipt); no,
// Ctrl-C or end of input rejects it, so it can never run later by accident.
import type { JsonObject } from "../contract/types.ts";
import type { PendingTicket } from "../chat/types.ts";
import type { NodeEdge } from "../assembly/node.ts";
import { outcomeLine } from "./confirm.ts";
import { formatError, type CliIO } from "./io.ts";
import type { Terminal } from "./terminal.ts";
import type { CliWorkspace } from "./workspace-session.ts";

export interface InlineConfirm {
  io: CliIO;
  term: Terminal;
  /** The root whose pending store, runner host and receipts the session used. */
  edge: NodeEdge;
  ws: CliWorkspace;
  ticket: PendingTicket;
  call: { tool_name: string; arguments: JsonObject };
  signal: AbortSignal;
}

export async function settleInline({ io, term, edge, ws, ticket, call, signal }: InlineConfirm): Promise<void> {
  io.err(`${call.tool_name} is a commit tool; it has not run. Arguments: ${JSON.stringify(call.arguments)}\n`);
  const answer = await term.read(`Run ${call.tool_name} now? [y/N] `);
  if (answer.kind !== "line" || !/^y(es)?$/i.test(answer.text.trim())) {
    const out = await edge.reject(ticket.id);
    io.err(
      out.ok
        ? `not run: pending action ${ticket.id} rejected.\n`
        : `pending action ${ticket.id}: ${out.status ?? "not found"}\n`,
    );
    return;
  }
  const out = await edge.confirm(ticket.id, ticket.confirmation_token, {
    confirmedVia: "terminal",
    signal,
    ...(ws.workspace ? { workspace: ws.workspace } : {}),
  });
  if (out.result !== undefined) io.out(`${JSON.stringify(out.result, null, 2)}\n`);
  if (out.error) io.err(`failed closed: ${formatError(out.error).trim()}\n`);
  io.err(outcomeLine(out));
}

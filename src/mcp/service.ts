// The tools an MCP server offers, over Edge's own runtime: one frozen toolset shared by every
// connection, each call a direct call (src/chat/direct-call.ts: argument checks, a fresh
// hash-checked runner, result checks, one receipt), scheduled by the same rule as the chat loop
// (Python tools are a barrier: PYTHON_TOOLS_CONCURRENCY_SAFE). A commit tool never runs on the
// client's word: it becomes a pending action; a person confirms it through the client
// (elicitation, then the same confirm() as `edge tools confirm`) or with the printed command.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { directCall, type DirectCallOutcome } from "../chat/direct-call.ts";
import { PYTHON_TOOLS_CONCURRENCY_SAFE } from "../chat/python-tools.ts";
import type { ReceiptOrigin } from "../receipts/types.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import type { ConfirmationBroker } from "../chat/types.ts";
import { confirm, reject } from "../confirm/confirm.ts";
import type { PendingAction } from "../confirm/types.ts";
import type { PendingStore } from "../confirm/store.ts";
import { errorJson, type ErrorJson } from "../contract/errors.ts";
import { randomHex } from "../contract/hash.ts";
import type { RunnerHost, ToolSource } from "../runner/host.ts";
import { DEFAULT_MAX_CONCURRENCY } from "../runtime/runtime.ts";
import { createCallGate, type CallGate } from "../runtime/schedule.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";
import { errorResult, okResult, pendingResult } from "./results.ts";
import { mcpTools } from "./tools-list.ts";

/** What the person is asked before a commit tool runs (the pending action as stored). */
export interface ConfirmQuestion {
  tool_name: string;
  record: PendingAction;
}
/** accept: run it once; decline: reject it (it can never run); unavailable: nobody answered, it stays pending. */
export type ConfirmAnswer = "accept" | "decline" | "unavailable";
export type AskPerson = (question: ConfirmQuestion, signal: AbortSignal) => Promise<ConfirmAnswer>;

export interface McpServiceOptions {
  toolset: FrozenToolset;
  host: RunnerHost;
  broker: ConfirmationBroker;
  receipts: ReceiptStore;
  pending: PendingStore;
  /** The tools source confirm() re-reads for a pending action. */
  source: (record: PendingAction) => ToolSource;
  workspace?: WorkspaceSource;
  timeoutMs?: number;
  /** One line for the person running the server (stderr). */
  log(line: string): void;
}

export interface CallContext {
  origin: ReceiptOrigin;
  /** Aborts when the client cancels the call or goes away: the runner is stopped. */
  signal: AbortSignal;
  /** Present when the client can ask its person (MCP elicitation). */
  ask?: AskPerson;
}

export interface McpToolService {
  tools(): Tool[];
  toolset(): FrozenToolset;
  call(name: string, args: unknown, ctx: CallContext): Promise<CallToolResult>;
  /** The person re-froze the tools file explicitly: later calls use this set; listeners are told. */
  replace(toolset: FrozenToolset): void;
  onToolsChanged(listener: () => void): () => void;
  /** Settles once no call is in flight (their receipts are written). */
  idle(): Promise<void>;
}

export function createMcpToolService(options: McpServiceOptions): McpToolService {
  let toolset = options.toolset;
  const gate = createCallGate(DEFAULT_MAX_CONCURRENCY);
  const inflight = new Set<Promise<unknown>>();
  const listeners = new Set<() => void>();
  const { log } = options;

  const runCall = async (name: string, args: unknown, ctx: CallContext): Promise<CallToolResult> => {
    const frozen = toolset;
    const who = `${ctx.origin.client.name} ${ctx.origin.client.version}`;
    log(`call ${name} (${who})`);
    const out = await gate.run(PYTHON_TOOLS_CONCURRENCY_SAFE, () =>
      directCall(frozen, options.host, name, args, {
        broker: options.broker,
        receipts: options.receipts,
        receiptId: `mcp_${randomHex(12)}`,
        call: {
          signal: ctx.signal,
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          ...(options.workspace ? { workspace: options.workspace } : {}),
        },
        extra: { via: "mcp_tools_call" },
        origin: ctx.origin,
      }),
    );
    report(name, out, frozen);
    const ref = out.receipt ? { receipt_id: out.receipt.id } : {};
    if (out.pending) return settlePending(options, gate, name, out, ctx);
    if (out.report.ok && out.report.result && !out.receiptError) return okResult(out.report.result, ref);
    if (out.report.ok && out.receiptError)
      return errorResult(
        {
          ...out.receiptError,
          message: `The tool ran, but its receipt could not be saved: ${out.receiptError.message}`,
        },
        ref,
      );
    return errorResult(out.report.error ?? errorJson("runner_crashed"), ref);
  };

  const report = (name: string, out: DirectCallOutcome, frozen: FrozenToolset): void => {
    const r = out.report;
    const code = out.pending ? "pending_confirmation" : r.ok ? "ok" : r.error?.code;
    log(`  ${name} → ${code} in ${Math.round(r.duration_ms)} ms${out.receipt ? `, receipt ${out.receipt.id}` : ""}`);
    if (out.receiptError) log(`  no receipt was written: ${out.receiptError.code}: ${out.receiptError.message}`);
    if (r.error?.code === "tools_file_changed") {
      log(
        `${frozen.filename} (or a file beside it) changed after this server froze it at start: every call fails closed with tools_file_changed until you restart \`edge mcp serve\` (or send it SIGHUP to re-freeze). ${r.error.message}`,
      );
    }
  };

  return {
    tools: () => mcpTools(toolset),
    toolset: () => toolset,
    call(name, args, ctx) {
      const p = runCall(name, args, ctx);
      inflight.add(p);
      const forget = (): void => void inflight.delete(p);
      p.then(forget, forget);
      return p;
    },
    replace(next) {
      toolset = next;
      for (const l of listeners) l();
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async idle() {
      while (inflight.size) await Promise.allSettled([...inflight]);
    },
  };
}

/** A commit tool's pending action: ask through the client, else tell the client what the person must do. */
async function settlePending(
  options: McpServiceOptions,
  gate: CallGate,
  name: string,
  out: DirectCallOutcome,
  ctx: CallContext,
): Promise<CallToolResult> {
  const { log } = options;
  const ticket = out.pending!;
  const ref = out.receipt ? { receipt_id: out.receipt.id } : {};
  const info = { id: ticket.id, expires_at: ticket.expires_at };
  const required = out.report.error ?? errorJson("tool_confirmation_required", { tool: name });
  const record = ctx.ask ? await options.pending.get(ticket.id).catch(() => undefined) : undefined;
  const answer: ConfirmAnswer =
    record && ctx.ask
      ? await ctx.ask({ tool_name: name, record }, ctx.signal).catch(() => "unavailable" as const)
      : "unavailable";
  if (answer === "unavailable") {
    // The only place the token goes: this server's stderr, never the client.
    log(
      `  ${name} is a commit tool and has not run: pending action ${ticket.id} (expires ${ticket.expires_at}). To run it once, run in a terminal: ${String(ticket.confirm_command ?? "")}`,
    );
    if (ticket.reject_command) log(`  To refuse it: ${String(ticket.reject_command)}`);
    return pendingResult(required, info, ref);
  }
  if (answer === "decline") {
    const rejected = await reject(ticket.id, { store: options.pending });
    log(
      `  ${name}: the client answered no to the elicitation; pending action ${ticket.id} ${rejected.ok ? "rejected" : (rejected.status ?? "not found")}`,
    );
    const e: ErrorJson = rejected.ok
      ? errorJson("confirmation_rejected", {
          message: `The client declined ${name} when asked (elicitation); pending action ${ticket.id} was rejected and nothing ran. Call the tool again if it is still wanted.`,
          tool: name,
        })
      : (rejected.error ?? errorJson("confirmation_rejected", { tool: name }));
    return errorResult(e, ref, { pending_action: { id: ticket.id, status: rejected.status } });
  }
  // The same step as `edge tools confirm`: token, binding, expiry, re-frozen source, claim, one runner.
  // The receipt records confirmed_via "elicitation": the client answered; whether a person saw the
  // question is the client's word, which Edge cannot check (docs/mcp.md).
  const confirmed = await gate.run(PYTHON_TOOLS_CONCURRENCY_SAFE, () =>
    confirm(ticket.id, ticket.confirmation_token, {
      store: options.pending,
      host: options.host,
      source: options.source,
      receipts: options.receipts,
      signal: ctx.signal,
      origin: ctx.origin,
      confirmedVia: "elicitation",
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.workspace ? { workspace: options.workspace } : {}),
    }),
  );
  log(
    `  ${name}: the client answered yes to the elicitation (Edge cannot tell whether a person saw it) → ${confirmed.status}${confirmed.receipt_id ? `, receipt ${confirmed.receipt_id}` : ""}`,
  );
  const confirmRef = { receipt_id: confirmed.receipt_id ?? ref.receipt_id };
  if (confirmed.ok && confirmed.result) return okResult(confirmed.result, confirmRef);
  return errorResult(confirmed.error ?? errorJson("runner_crashed"), confirmRef, {
    pending_action: { id: ticket.id, status: confirmed.status },
  });
}

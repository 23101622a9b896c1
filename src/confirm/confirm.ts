// confirm / reject / purge (docs/contract.md §6). Every check fails closed BEFORE the claim;
// the claim is one atomic store step pending → claimed; a claimed action is never run again.
//
//   token (constant time) → status → expiry → stored arguments/binding/MAC → no confirm receipt for
//   it in the receipt chain yet (a restored pending file cannot replay its token) → re-freeze the
//   tools source (bytes hash, active set, the tool's schema hash) → CLAIM → one fresh runner
//   (callTool: arguments re-validated, output_schema checked on the real result) → confirm
//   receipt → done | failed (+ receipt id).
import { ERRORS } from "../contract/error-table.ts";
import { errorJson, fixOf, toErrorJson, type ErrorCode, type ErrorJson } from "../contract/errors.ts";
import { randomHex, sha256Json, timingSafeEqual, type Sha256 } from "../contract/hash.ts";
import type { RunnerHost, ToolSource } from "../runner/host.ts";
import { callTool, type ToolCallReport } from "../toolset/call.ts";
import type { WorkspaceSource } from "../toolset/workspace.ts";
import { freezeToolset, type FrozenToolset } from "../toolset/freeze.ts";
import { firstChangedFile, manifestOf } from "../toolset/project.ts";
import { directCallReceiptBody } from "../chat/receipt-direct.ts";
import type { ConfirmedVia, Receipt, ReceiptBody, ReceiptOrigin } from "../receipts/types.ts";
import type { ReceiptStore } from "../receipts/store.ts";
import { bindingMac, bindingSha256, isExpired, isPendingId, selectionOf, tokenMatches } from "./pending.ts";
import { DEFAULT_RETENTION_MS, type ConfirmOutcome, type PendingAction, type PendingStatus } from "./types.ts";
import type { PendingStore } from "./store.ts";

export interface ConfirmContext {
  store: PendingStore;
  /** Runs the tool (a fresh runner per call). */
  host: RunnerHost;
  /** The tools source to re-read: the page passes the one its session used; the CLI opens record.tools_file. */
  source: ToolSource | ((record: PendingAction) => ToolSource);
  /** Where the confirm receipt goes. Without one, nothing is chained (the record still gets no receipt id). */
  receipts?: ReceiptStore;
  /** Injectable clock (ms since the epoch). */
  now?: () => number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Observe the steps (UI progress, tests). */
  onStep?: (step: "verified" | "claimed" | "ran" | "finished") => void;
  /** The workspace a read_local commit tool sees at /workspace when it finally runs. */
  workspace?: WorkspaceSource;
  /** Who asked, when a protocol client did (`edge mcp serve`): recorded on the confirm receipt. */
  origin?: ReceiptOrigin;
  /** How the decision reached Edge, recorded on the confirm receipt as it is, never upgraded to "a
   *  person": "terminal" (the token typed or a y/N answered in Edge's own terminal), "page" (the
   *  playground's or widget's card), "elicitation" (an MCP client answered; whether a person saw
   *  the question is the client's word). */
  confirmedVia: ConfirmedVia;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function refused(
  id: string,
  status: PendingStatus | null,
  code: ErrorCode,
  message?: string,
  extra: Record<string, unknown> = {},
): ConfirmOutcome {
  return { ok: false, id, status, error: errorJson(code, { ...(message ? { message } : {}), ...extra }) };
}

/** The code for a record that is no longer pending. */
function notPendingCode(status: PendingStatus): ErrorCode {
  if (status === "rejected") return "confirmation_rejected";
  if (status === "expired") return "confirmation_expired";
  return "confirmation_already_claimed";
}

/** Re-check what the record claims about itself: arguments hash, binding hash, and the token's MAC. */
async function integrityProblem(record: PendingAction, token: string): Promise<string | null> {
  if (record.arguments === null || record.arguments_wiped) return "arguments were wiped";
  let argsSha: Sha256;
  try {
    argsSha = await sha256Json(record.arguments);
  } catch {
    return "stored arguments are not JSON";
  }
  if (argsSha !== record.args_sha256) return "stored arguments do not match args_sha256";
  if ((await bindingSha256(record)) !== record.binding_sha256) return "binding_sha256 does not cover the stored fields";
  if (!timingSafeEqual(await bindingMac(token, record.binding_sha256), String(record.binding_mac)))
    return "binding_sha256 was not made with this action's token";
  return null;
}

/** Re-read and re-freeze the tools source; compare with what was bound. */
async function refreeze(
  record: PendingAction,
  ctx: ConfirmContext,
): Promise<{ toolset: FrozenToolset } | { error: ErrorJson }> {
  const source = typeof ctx.source === "function" ? ctx.source(record) : ctx.source;
  let toolset: FrozenToolset;
  try {
    toolset = await freezeToolset(source, ctx.host, selectionOf(record.selection), ctx.signal);
  } catch (err) {
    return { error: toErrorJson(err) };
  }
  const tool = toolset.active.find((t) => t.schema.name === record.tool_name);
  const schemaChanged = !tool || tool.schema_sha256 !== record.tool_schema_sha256;
  if (toolset.tools_file_sha256 !== record.tools_file_sha256) {
    return {
      error: errorJson("tools_file_changed", {
        message: `${source.name} changed after this action was created (${record.tools_file_sha256} → ${toolset.tools_file_sha256}${schemaChanged ? `, and the schema of ${record.tool_name} changed` : ""}); nothing ran. Ask again in chat.`,
        tool: record.tool_name,
        tool_schema_changed: schemaChanged,
      }),
    };
  }
  if (record.tools_bundle_sha256 !== undefined && toolset.tools_bundle_sha256 !== record.tools_bundle_sha256) {
    const file = firstChangedFile(record.tools_files ?? {}, manifestOf(toolset.project).files);
    return {
      error: errorJson("tools_file_changed", {
        message: `${file ? `${file} in the tools project of ${source.name}` : `A file of the tools project of ${source.name}`} changed after this action was created (tools_bundle_sha256 ${record.tools_bundle_sha256} → ${toolset.tools_bundle_sha256}); nothing ran. Ask again in chat.`,
        tool: record.tool_name,
        ...(file ? { file } : {}),
      }),
    };
  }
  if (toolset.active_set_sha256 !== record.active_set_sha256) {
    return {
      error: errorJson("confirmation_binding_mismatch", {
        message: `${ERRORS.confirmation_binding_mismatch} (the active tool set differs)`,
        reason: "active_set",
      }),
    };
  }
  if (schemaChanged) {
    return {
      error: errorJson("confirmation_binding_mismatch", {
        message: `${ERRORS.confirmation_binding_mismatch} (the schema of ${record.tool_name} differs)`,
        reason: "tool_schema",
        tool: record.tool_name,
      }),
    };
  }
  if (tool.schema.execution_level !== record.execution_level) {
    return { error: errorJson("confirmation_binding_mismatch", { reason: "execution_level", tool: record.tool_name }) };
  }
  return { toolset };
}

/**
 * Confirm a pending action with its token. Never throws for a refusal: the outcome carries the
 * code. At most once: only the caller whose claim moved the record pending → claimed runs it.
 */
export async function confirm(id: string, token: string, ctx: ConfirmContext): Promise<ConfirmOutcome> {
  const now = ctx.now ?? Date.now;
  try {
    if (!isPendingId(id)) return refused(String(id), null, "pending_action_not_found");
    const record = await ctx.store.get(id);
    if (!record) return refused(id, null, "pending_action_not_found");
    // 1. Token, in constant time, before anything about the record is revealed.
    if (!(await tokenMatches(token, record.token_sha256))) return refused(id, null, "confirmation_token_invalid");
    // 2. Status.
    if (record.status !== "pending") return refused(id, record.status, notPendingCode(record.status));
    // 3. Expiry (the record is marked expired and its arguments wiped now, not only by the purge).
    if (isExpired(record, now())) {
      const { current } = await ctx.store.update(id, (cur) => (cur.status === "pending" ? expire(cur, now()) : null));
      return refused(id, current?.status ?? null, "confirmation_expired");
    }
    // 4. What storage holds is what was bound, and bound with this token.
    const problem = await integrityProblem(record, token);
    if (problem)
      return refused(
        id,
        record.status,
        "confirmation_binding_mismatch",
        `${ERRORS.confirmation_binding_mismatch} (${problem})`,
        { reason: problem },
      );
    // 5. Not run before: a confirm receipt for this action in the append-only chain outweighs the
    // record's mutable status (a pending file restored from a backup or a sync conflict).
    const replayed = await confirmedBefore(id, ctx.receipts);
    if (replayed) return refuseReplay(id, replayed, ctx.store);
    // 6. The tools source still is what was frozen, with the same tool schema.
    const frozen = await refreeze(record, ctx);
    if ("error" in frozen) return { ok: false, id, status: record.status, error: frozen.error };
    ctx.onStep?.("verified");

    // 7. Claim: one atomic step, re-checking status, expiry and the binding we verified.
    const claimedAt = now();
    const claim = await ctx.store.update(id, (cur) =>
      cur.status === "pending" &&
      !isExpired(cur, claimedAt) &&
      cur.binding_sha256 === record.binding_sha256 &&
      cur.binding_mac === record.binding_mac
        ? { ...cur, status: "claimed", claimed_at: iso(claimedAt) }
        : null,
    );
    if (!claim.written) {
      const cur = claim.current;
      if (!cur) return refused(id, null, "pending_action_not_found");
      if (cur.status !== "pending") return refused(id, cur.status, notPendingCode(cur.status));
      if (isExpired(cur, claimedAt)) return refused(id, cur.status, "confirmation_expired");
      return refused(
        id,
        cur.status,
        "confirmation_binding_mismatch",
        `${ERRORS.confirmation_binding_mismatch} (changed while confirming)`,
        { reason: "changed_while_confirming" },
      );
    }
    ctx.onStep?.("claimed");

    // 8. Run once, in a fresh runner; callTool re-validates the arguments and the host checks output_schema.
    const callId = `call_${randomHex(12)}`;
    const report = await callTool(frozen.toolset, ctx.host, record.tool_name, record.arguments, {
      callId,
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
      ...(ctx.workspace ? { workspace: ctx.workspace } : {}),
    });
    ctx.onStep?.("ran");

    // 9. Receipt, then the final status with the receipt id.
    let receiptId: string | undefined;
    let receiptError: ErrorJson | undefined;
    if (ctx.receipts) {
      try {
        receiptId = (await ctx.receipts.append(confirmReceipt(claim.written, frozen.toolset, report, now(), ctx))).id;
      } catch (err) {
        receiptError = toErrorJson(err);
      }
    }
    const finishedAt = now();
    const status: PendingStatus = report.ok ? "done" : "failed";
    const final = await ctx.store.update(id, (cur) =>
      cur.status === "claimed"
        ? {
            ...cur,
            status,
            finished_at: iso(finishedAt),
            ...(receiptId ? { receipt_id: receiptId } : {}),
            ...(report.result_sha256 ? { result_sha256: report.result_sha256 } : {}),
            ...(report.error ? { code: report.error.code } : receiptError ? { code: receiptError.code } : {}),
          }
        : null,
    );
    ctx.onStep?.("finished");
    const error = report.error ?? receiptError;
    return {
      ok: report.ok && !receiptError,
      id,
      status: final.written?.status ?? final.current?.status ?? status,
      ...(report.ok ? { result: report.result } : {}),
      ...(receiptId ? { receipt_id: receiptId } : {}),
      ...(error
        ? {
            error:
              receiptError && report.ok
                ? {
                    ...receiptError,
                    message: `The tool ran, but its receipt could not be saved: ${receiptError.message}`,
                  }
                : error,
          }
        : {}),
    };
  } catch (err) {
    // Storage failures before the claim: nothing ran. After it: the record stays claimed (visible).
    const e = toErrorJson(err);
    const current = await ctx.store.get(id).catch(() => undefined);
    return { ok: false, id, status: current?.status ?? null, error: e };
  }
}

function expire(record: PendingAction, nowMs: number): PendingAction {
  return { ...record, status: "expired", expired_at: iso(nowMs), arguments: null, arguments_wiped: true };
}

/** One id per pending action: a second confirm receipt for it cannot even be appended (the stores
 *  refuse a duplicate id), and whether it ran is one lookup by id. */
function confirmReceiptId(pendingId: string): string {
  return `confirm_${pendingId}`;
}

async function confirmedBefore(id: string, receipts: ReceiptStore | undefined): Promise<Receipt | undefined> {
  if (!receipts) return undefined;
  const receiptId = confirmReceiptId(id);
  if (receipts.has && !(await receipts.has(receiptId))) return undefined;
  return receipts.get(receiptId);
}

/** The action ran before (its confirm receipt is in the chain): refused, and the record told so. */
async function refuseReplay(id: string, receipt: Receipt, store: PendingStore): Promise<ConfirmOutcome> {
  const status: PendingStatus = receipt.outcome === "failed_closed" ? "failed" : "done";
  const healed = await store
    .update(id, (cur) =>
      cur.status === "pending" ? { ...cur, status, receipt_id: receipt.id, finished_at: receipt.created_at } : null,
    )
    .catch(() => undefined);
  const message = `Pending action ${id} already ran at ${receipt.created_at} (confirm receipt ${receipt.id}, seq ${receipt.seq}) although its stored record said pending; it was not run again. ${fixOf("confirmation_replayed")}`;
  return refused(id, healed?.written?.status ?? healed?.current?.status ?? status, "confirmation_replayed", message, {
    receipt_id: receipt.id,
  });
}

function confirmReceipt(
  record: PendingAction,
  toolset: FrozenToolset,
  report: ToolCallReport,
  nowMs: number,
  ctx: ConfirmContext,
): ReceiptBody {
  const body = directCallReceiptBody(toolset, report, {
    kind: "confirm",
    id: confirmReceiptId(record.id),
    ...(ctx.origin ? { origin: ctx.origin } : {}),
    executionLevel: record.execution_level,
    createdAt: iso(nowMs),
    extra: {
      pending_action_id: record.id,
      binding_sha256: record.binding_sha256,
      chat_run_id: record.run_id,
      chat_call_id: record.call_id,
      claimed_at: record.claimed_at ?? null,
      ...(report.error ? { reason: report.error.message } : {}),
    },
  });
  return { ...body, confirmed_via: ctx.confirmedVia };
}

/** Reject a pending action: it can never be confirmed afterwards; its arguments are wiped. */
export async function reject(id: string, ctx: { store: PendingStore; now?: () => number }): Promise<ConfirmOutcome> {
  const now = ctx.now ?? Date.now;
  try {
    if (!isPendingId(id)) return refused(String(id), null, "pending_action_not_found");
    const at = now();
    const r = await ctx.store.update(id, (cur) =>
      cur.status === "pending"
        ? { ...cur, status: "rejected", rejected_at: iso(at), arguments: null, arguments_wiped: true }
        : null,
    );
    if (r.written) return { ok: true, id, status: "rejected" };
    if (!r.current) return refused(id, null, "pending_action_not_found");
    return refused(id, r.current.status, notPendingCode(r.current.status));
  } catch (err) {
    return { ok: false, id, status: null, error: toErrorJson(err) };
  }
}

export interface PurgeReport {
  /** pending → expired. */
  expired: string[];
  /** Arguments wiped (includes the newly expired). */
  wiped: string[];
  /** Records deleted after the retention period. */
  deleted: string[];
}

/**
 * Expired actions lose their arguments (they may be sensitive): pending ones become `expired`,
 * finished/claimed ones keep their status. Records in a final state are deleted `retentionMs`
 * after they expired. A `claimed` record is never deleted: it marks a possible side effect.
 */
export async function purgeExpired(
  store: PendingStore,
  options: { now?: () => number; retentionMs?: number } = {},
): Promise<PurgeReport> {
  const now = (options.now ?? Date.now)();
  const retention = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const out: PurgeReport = { expired: [], wiped: [], deleted: [] };
  for (const rec of await store.list()) {
    if (!isExpired(rec, now)) continue;
    if (
      rec.status !== "claimed" &&
      rec.status !== "pending" &&
      isExpired({ expires_at: iso(Date.parse(rec.expires_at) + retention) }, now)
    ) {
      await store.delete(rec.id);
      out.deleted.push(rec.id);
      continue;
    }
    if (rec.status === "pending" || !rec.arguments_wiped) {
      const r = await store.update(rec.id, (cur) => {
        if (!isExpired(cur, now)) return null;
        if (cur.status === "pending") return expire(cur, now);
        return cur.arguments_wiped ? null : { ...cur, arguments: null, arguments_wiped: true };
      });
      if (r.written) {
        if (rec.status === "pending" && r.written.status === "expired") out.expired.push(rec.id);
        out.wiped.push(rec.id);
      }
    }
  }
  return out;
}

/** Purge now and then every `intervalMs` (default 30 s). Returns a stop function. */
export function startPurging(
  store: PendingStore,
  options: { now?: () => number; retentionMs?: number; intervalMs?: number; onError?: (err: unknown) => void } = {},
): () => void {
  const run = (): void => {
    purgeExpired(store, options).catch((err) => options.onError?.(err));
  };
  run();
  const timer = setInterval(run, options.intervalMs ?? 30_000);
  return () => clearInterval(timer);
}

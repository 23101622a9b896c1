// How `edge chat` shows one run: the --json document, or lines for people (the answer on stdout,
// notes and the receipt id on stderr). Shared by one-shot chat and `edge chat --interactive`.
// Text from the model, tools and errors is untrusted: the io given here is the one runCli wraps
// with terminalSafe (io.ts), so control characters in it show as escapes.
import type { ChatRun, PendingTicket } from "../chat/types.ts";
import { formatError, type CliIO } from "./io.ts";
import type { CliWorkspace } from "./workspace-session.ts";

/** The --json document of one run (one-shot: the whole stdout; interactive: one line per turn). */
export function runJson(run: ChatRun, ws: CliWorkspace): Record<string, unknown> {
  return {
    ok: run.ok,
    outcome: run.outcome,
    ...(run.answer !== undefined && run.outcome === "answered" ? { answer: run.answer } : {}),
    ...(run.outcome === "return_direct" ? { result: run.result } : {}),
    ...(run.truncated ? { truncated: true } : {}),
    ...(run.finish_reason ? { finish_reason: run.finish_reason } : {}),
    ...(run.engine_stats ? { engine_stats: run.engine_stats } : {}),
    run_id: run.run_id,
    receipt: run.receipt,
    // The CLI's one failure shape (io.ts failureJson): error, and errors listing it.
    ...(run.error
      ? {
          error: { code: run.error.code, message: run.error.message },
          errors: [{ code: run.error.code, message: run.error.message }],
        }
      : {}),
    ...(run.pending_action ? { pending_action: pendingJson(run.pending_action) } : {}),
    ...(ws.info ? { workspace: ws.info } : {}),
  };
}

export function printWorkspaceNotes(io: CliIO, ws: CliWorkspace): void {
  for (const s of ws.info?.skipped ?? [])
    io.err(
      `workspace: skipped ${s.path} (a symbolic link to ${s.target ?? "a missing target"}, outside or duplicating the folder: ${s.code})\n`,
    );
}

/**
 * One run for people. `answerShown`: the answer was already streamed (interactive), so only the
 * notes follow. `pending`: false when the caller settles the pending action itself (inline y/N).
 */
export function printRunText(
  io: CliIO,
  run: ChatRun,
  options: { answerShown?: boolean; pending?: boolean } = {},
): void {
  if (run.outcome === "answered" && !options.answerShown) io.out(`${run.answer ?? ""}\n`);
  if (run.truncated)
    io.err("note: the answer was cut off at the token limit (finish_reason: length); it is incomplete.\n");
  else if (run.outcome === "return_direct") io.out(`${JSON.stringify(run.result, null, 2)}\n`);
  const restore = imprintRestoreLine(run.receipt) ?? contractStartLine(run.receipt);
  if (restore) io.err(restore);
  if (run.pending_action) {
    if (options.pending !== false) {
      io.out(
        `${run.pending_action.id} needs confirmation before it runs (expires ${run.pending_action.expires_at}):\n  ${String(run.pending_action.confirm_command)}\n`,
      );
    }
  } else if (run.error) io.err(`failed closed: ${formatError(run.error).trim()}\n`);
  const st = run.engine_stats;
  const speed = st
    ? `${st.time_to_first_token_ms !== undefined ? `, first token ${st.time_to_first_token_ms} ms` : ""}${st.decode_tokens_per_s !== undefined ? `, ${st.decode_tokens_per_s} tokens/s` : ""}`
    : "";
  const refused = (run.receipt.refused_calls ?? []).map(
    (r) => `${r.code}${r.tool_name ? ` ${r.tool_name}` : ""} → ${r.then.replace("_", " ")}`,
  );
  const refusedText = refused.length ? `, refused calls: ${refused.length} (${refused.join("; ")})` : "";
  io.err(
    `outcome: ${run.outcome}, tool calls: ${run.receipt.calls.length}${refusedText}${speed}, receipt: ${run.run_id}\n`,
  );
}

/** One line for people: how a restored imprint's prefix reached the model, and why not from its state. */
function imprintRestoreLine(receipt: ChatRun["receipt"]): string | null {
  const p = receipt.imprint_prefix;
  if (!receipt.imprint_restore || !p) return null;
  const how =
    p.prefix_cache === "state_file"
      ? `restored from its saved model state (${p.prefix_tokens} tokens, none evaluated)`
      : p.prefix_cache === "engine"
        ? `prefix evaluated (${p.prefix_tokens_evaluated} of ${p.prefix_tokens} tokens)`
        : "prefix sent as text";
  const why = p.state_fallback ? `; saved state not used: ${p.state_fallback.code} (${p.state_fallback.reason})` : "";
  return `imprint ${receipt.imprint_id}: ${how}${why}\n`;
}

/** One line when the saved conversation start could not be used or kept (nothing when it was). */
function contractStartLine(receipt: ChatRun["receipt"]): string | null {
  const p = receipt.contract_prefix;
  const notUsed = p?.state_fallback
    ? `saved conversation start not used: ${p.state_fallback.code} (${p.state_fallback.reason})`
    : null;
  const notSaved = p?.state_save_failed
    ? `conversation start not saved: ${p.state_save_failed.code} (${p.state_save_failed.reason})`
    : null;
  const parts = [notUsed, notSaved].filter((t) => t !== null);
  return parts.length ? `${parts.join("; ")}\n` : null;
}

export function pendingJson(p: PendingTicket): Record<string, unknown> {
  return {
    id: p.id,
    expires_at: p.expires_at,
    confirmation_token: p.confirmation_token,
    confirm_command: p.confirm_command,
    ...(p.reject_command ? { reject_command: p.reject_command } : {}),
    ...(p.pending_action_path ? { pending_action_path: p.pending_action_path } : {}),
  };
}

// `edge tools confirm ID|PATH --token TOKEN` and `edge tools pending list|show|reject|purge`: the
// Node side of the confirmation flow (docs/contract.md §6). Pending actions are 0600 files under
// $EDGE_DATA_DIR/pending; expired ones are purged (arguments wiped) whenever a command starts.
import { errorJson } from "../contract/errors.ts";
import { parseArgs } from "node:util";
import { purgeExpired, reject } from "../confirm/confirm.ts";
import { createNodePendingStore, pendingIdFromArgument, type NodePendingStore } from "../confirm/store-node.ts";
import { viewOf } from "../confirm/pending.ts";
import type { ConfirmOutcome } from "../confirm/types.ts";
import { createNodeEdge } from "../assembly/node.ts";
import { EXIT_FAILED, EXIT_OK, formatError, printJson, table, UsageError, type CliIO } from "./io.ts";
import { oneShotRunnerHost } from "./runners.ts";

export { confirmCommand, nodeConfirmationBroker } from "../confirm/node-broker.ts";

/** Purge on start-up; a purge failure never blocks the command (it is reported on stderr). */
async function startUp(io: CliIO): Promise<NodePendingStore> {
  const store = createNodePendingStore();
  try {
    await purgeExpired(store);
  } catch (err) {
    io.err(`edge: could not purge expired pending actions: ${String(err)}\n`);
  }
  return store;
}

function printOutcome(io: CliIO, out: ConfirmOutcome, json: boolean): number {
  if (json) {
    printJson(io, {
      ok: out.ok,
      status: out.status,
      ...(out.result !== undefined ? { result: out.result } : {}),
      ...(out.receipt_id ? { receipt_id: out.receipt_id } : {}),
      ...(out.error
        ? {
            error: { code: out.error.code, message: out.error.message },
            errors: [{ code: out.error.code, message: out.error.message }],
          }
        : {}),
    });
  } else {
    if (out.result !== undefined) io.out(`${JSON.stringify(out.result, null, 2)}\n`);
    if (out.error) io.err(`failed closed: ${formatError(out.error).trim()}\n`);
    io.err(outcomeLine(out));
  }
  return out.ok ? EXIT_OK : EXIT_FAILED;
}

/** The last line a confirm prints: the action's status, or why it has none — an action refused
 *  before it ran (a wrong token) still exists and is still pending. */
export function outcomeLine(out: ConfirmOutcome): string {
  const status =
    out.status ?? (out.error?.code === "pending_action_not_found" ? "no such action" : "not run, still pending");
  return `${out.id}: ${status}${out.receipt_id ? `, receipt ${out.receipt_id}` : ""}\n`;
}

export async function confirmCommandCli(argv: string[], io: CliIO): Promise<number> {
  // A token given as a separate word is always the token (older tokens may start with "-").
  const args = argv.flatMap((a, i) =>
    a === "--token" && i + 1 < argv.length ? [] : argv[i - 1] === "--token" && i > 0 ? [`--token=${a}`] : [a],
  );
  const { values, positionals } = parseArgs({
    args,
    options: {
      token: { type: "string" },
      "timeout-ms": { type: "string" },
      workspace: { type: "string" },
      json: { type: "boolean" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1)
    throw new UsageError("tools confirm needs exactly one pending action ID (or its file path).");
  if (!values.token) throw new UsageError("tools confirm needs --token TOKEN (printed with the pending action).");
  let timeoutMs: number | undefined;
  if (values["timeout-ms"] !== undefined) {
    timeoutMs = Number(values["timeout-ms"]);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
      throw new UsageError("--timeout-ms must be a positive integer.");
  }
  // The call's runner at once; the re-discovery's too when no kept discovery answers (runners.ts).
  const edge = createNodeEdge({ host: oneShotRunnerHost({ discoveries: "use", call: true }, (line) => io.err(line)) });
  try {
    await edge.purgeExpired((err: unknown) =>
      io.err(`edge: could not purge expired pending actions: ${String(err)}\n`),
    );
    // Loaded on use, as in tools.ts: the workspace code only when a confirmation runs.
    const { cliWorkspace } = await import("./workspace-session.ts");
    const ws = await cliWorkspace(values.workspace, undefined, false);
    const id = pendingIdFromArgument(positionals[0]!) ?? positionals[0]!;
    const out = await edge.confirm(id, values.token, {
      confirmedVia: "terminal",
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(ws.workspace ? { workspace: ws.workspace } : {}),
    });
    return printOutcome(io, out, values.json === true);
  } finally {
    await edge.close();
  }
}

function parsePending(sub: string, argv: string[], positionals: number) {
  const { values, positionals: got } = parseArgs({
    args: argv,
    options: { json: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (got.length !== positionals)
    throw new UsageError(
      positionals ? `tools pending ${sub} needs one ID.` : `tools pending ${sub} takes no arguments.`,
    );
  return { json: values.json === true, arg: got[0] ?? "" };
}

export async function pendingList(argv: string[], io: CliIO): Promise<number> {
  const { json } = parsePending("list", argv, 0);
  const store = await startUp(io);
  const views = (await store.list()).map(viewOf);
  if (json) printJson(io, { ok: true, pending: views });
  else if (!views.length) io.out("no pending actions\n");
  else {
    const rows = [["ID", "STATUS", "TOOL", "LEVEL", "EXPIRES_AT", "ARGUMENTS"]];
    for (const v of views)
      rows.push([
        v.id,
        v.status,
        v.tool_name,
        v.execution_level,
        v.expires_at,
        v.arguments ? JSON.stringify(v.arguments) : "(wiped)",
      ]);
    io.out(table(rows));
  }
  return EXIT_OK;
}

export async function pendingShow(argv: string[], io: CliIO): Promise<number> {
  const { json, arg } = parsePending("show", argv, 1);
  const store = await startUp(io);
  const id = pendingIdFromArgument(arg);
  const rec = id ? await store.get(id) : undefined;
  if (!rec)
    return printOutcome(io, { ok: false, id: arg, status: null, error: errorJson("pending_action_not_found") }, json);
  printJson(io, json ? { ok: true, pending: viewOf(rec) } : viewOf(rec));
  return EXIT_OK;
}

export async function pendingReject(argv: string[], io: CliIO): Promise<number> {
  const { json, arg } = parsePending("reject", argv, 1);
  const store = await startUp(io);
  const id = pendingIdFromArgument(arg) ?? arg;
  return printOutcome(io, await reject(id, { store }), json);
}

export async function pendingPurge(argv: string[], io: CliIO): Promise<number> {
  const { json } = parsePending("purge", argv, 0);
  const report = await purgeExpired(createNodePendingStore());
  if (json) printJson(io, { ok: true, ...report });
  else
    io.out(
      `expired: ${report.expired.length}, arguments wiped: ${report.wiped.length}, deleted: ${report.deleted.length}\n`,
    );
  return EXIT_OK;
}

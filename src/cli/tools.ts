// `edge tools validate|inspect|call`. A direct call writes a receipt (kind tool_call, as the
// playground's "Try a tool"); a commit tool becomes a pending action instead of running.
import { parseArgs } from "node:util";
import { directCallReceiptBody } from "../chat/receipt-direct.ts";
import type { Receipt } from "../chat/receipt-types.ts";
import type { ConfirmationBroker, PendingTicket } from "../chat/session.ts";
import { errorJson, toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { randomHex, sha256Json } from "../contract/hash.ts";
import type { JsonObject } from "../contract/types.ts";
import { createNodeRunnerHost, fileSource } from "../runner/node.ts";
import { createNodeReceiptStore } from "../store/node-receipts.ts";
import { callTool, checkToolArgs, findActiveTool, type ToolCallReport } from "../toolset/call.ts";
import { freezeToolset, type FrozenToolset } from "../toolset/freeze.ts";
import { inspect, validate } from "../toolset/inspect.ts";
import { pendingJson } from "./chat-print.ts";
import { nodeConfirmationBroker } from "./confirm.ts";
import { EXIT_FAILED, EXIT_OK, formatError, printJson, table, UsageError, type CliIO } from "./io.ts";
import { manifestCommand, readIfManifest } from "./facts.ts";

const selectionOptions = {
  tool: { type: "string", multiple: true },
  "tool-tag": { type: "string", multiple: true },
  json: { type: "boolean" },
} as const;

export const toolsValidate = (argv: string[], io: CliIO): Promise<number> => inspectOrValidate("validate", argv, io);
export const toolsInspect = (argv: string[], io: CliIO): Promise<number> => inspectOrValidate("inspect", argv, io);

async function inspectOrValidate(sub: "validate" | "inspect", argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { ...selectionOptions, "learn-sample": { type: "string" } }, allowPositionals: true, strict: true });
  const file = onePositional(positionals, "FILE");
  // A tools manifest (JSON) is validated without any runner: it names built-in lookups only.
  const manifest = await readIfManifest(file);
  if (manifest) return manifestCommand(sub, file, manifest, { learnSample: values["learn-sample"], json: values.json === true, selection: values.tool !== undefined || values["tool-tag"] !== undefined }, io);
  if (values["learn-sample"] !== undefined) throw new UsageError("--learn-sample is checked against a tools manifest (a .json file).");
  const host = createNodeRunnerHost({ spares: 0 });
  try {
    const options = { host, tool: values.tool, toolTag: values["tool-tag"] };
    const source = fileSource(file);
    if (sub === "validate") {
      const report = await validate(source, options);
      if (values.json) printJson(io, report);
      else {
        io.out(`${report.ok ? "valid" : "INVALID"}: ${file}\n`);
        io.out(`  tools: ${report.tool_count}, active: ${report.active_count}, tools_file_sha256: ${report.tools_file_sha256 ?? "-"}\n`);
        printProblems(io, report.errors, report.warnings);
      }
      return report.ok ? EXIT_OK : EXIT_FAILED;
    }
    const report = await inspect(source, options);
    if (values.json) printJson(io, report);
    else {
      io.out(`${report.ok ? "valid" : "INVALID"}: ${file}\n`);
      io.out(`  tools_file_sha256:        ${report.tools_file_sha256 ?? "-"}\n`);
      io.out(`  schema_generator_version: ${report.schema_generator_version ?? "-"}\n`);
      io.out(`  active_set_sha256:        ${report.active_set_sha256 ?? "-"}\n\n`);
      const rows = [["TOOL", "ACTIVE", "LEVEL", "PARAMETERS", "TAGS", "SCHEMA_SHA256"]];
      for (const t of report.tools) {
        const params = Object.keys((t.schema.parameters.properties ?? {}) as object).join(",") || "-";
        rows.push([t.name, report.active_tools.includes(t.name) ? "yes" : "no", t.schema.execution_level, params, t.intent_tags.join(",") || "-", t.schema_sha256]);
      }
      if (report.tools.length) io.out(table(rows));
      printProblems(io, report.errors, report.warnings);
    }
    return report.ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    await host.close();
  }
}

export async function toolsCall(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { args: { type: "string" }, "timeout-ms": { type: "string" }, json: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 2) throw new UsageError("tools call needs FILE and TOOL.");
  const [file, toolName] = positionals as [string, string];
  let args: unknown = {};
  if (values.args !== undefined) {
    try {
      args = JSON.parse(values.args);
    } catch (err) {
      throw new UsageError(`--args is not valid JSON: ${(err as Error).message}`);
    }
  }
  let timeoutMs: number | undefined;
  if (values["timeout-ms"] !== undefined) {
    timeoutMs = Number(values["timeout-ms"]);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError("--timeout-ms must be a positive integer.");
  }
  // One spare: the call's runner boots while discovery runs.
  const host = createNodeRunnerHost({ spares: 1 });
  try {
    const selection = { tool: [toolName] };
    const toolset = await freezeToolset(fileSource(file), host, selection);
    const level = findActiveTool(toolset, toolName).schema.execution_level;
    const receiptId = `try_${randomHex(12)}`;
    // A commit tool never runs from a direct call either: it becomes a pending action, confirmed
    // with the printed command (SPEC §6), exactly as when chat reaches it.
    const { report, pending } =
      level === "commit"
        ? await requestConfirmation(toolset, toolName, args, nodeConfirmationBroker(file, selection), receiptId)
        : { report: await callTool(toolset, host, toolName, args, { timeoutMs }), pending: undefined };
    const body = directCallReceiptBody(toolset, report, { kind: "tool_call", id: receiptId, executionLevel: level, extra: { via: "cli_tools_call" }, ...(pending ? { pending } : {}) });
    let receipt: Receipt | undefined;
    let receiptError: ErrorJson | undefined;
    try {
      receipt = await createNodeReceiptStore().append(body);
    } catch (err) {
      receiptError = toErrorJson(err);
    }
    printCall(io, values.json === true, report, pending, receipt, receiptError);
    return report.ok && !receiptError ? EXIT_OK : EXIT_FAILED;
  } finally {
    await host.close();
  }
}

function printCall(io: CliIO, json: boolean, report: ToolCallReport, pending: PendingTicket | undefined, receipt: Receipt | undefined, receiptError: ErrorJson | undefined): void {
  const receiptFields = receipt ? { receipt_id: receipt.id, receipt_sha256: receipt.receipt_sha256 } : { receipt_error: receiptError };
  if (json) {
    const { call_id: _callId, tools_file_sha256_verified: _verified, diagnostics, ...rest } = report;
    printJson(io, {
      ...rest,
      ...(pending ? { outcome: "pending_confirmation", pending_action: pendingJson(pending) } : {}),
      ...(diagnostics ? { diagnostics } : {}),
      ...receiptFields,
    });
    return;
  }
  if (pending) {
    io.out(`${pending.id} needs confirmation before it runs (expires ${pending.expires_at}):\n  ${String(pending.confirm_command)}\n`);
  } else if (report.ok) {
    io.out(`${JSON.stringify(report.result, null, 2)}\n`);
    io.err(`ok: ${report.tool_name} in ${report.duration_ms} ms, result_sha256 ${report.result_sha256}, runner_secret_verified ${report.runner_secret_verified}\n`);
  } else {
    io.err(`failed closed: ${formatError(report.error!).trim()}\n`);
    const tb = report.diagnostics?.traceback;
    if (typeof tb === "string") io.err(`${tb}\n`);
  }
  if (report.stderr) io.err(`--- tool stderr ---\n${report.stderr}\n`);
  io.err(receipt ? `receipt: ${receipt.id}\n` : `no receipt was written: ${formatError(receiptError!).trim()}\n`);
}

/** A commit tool's direct call: check the arguments, then store a pending action instead of running it. */
async function requestConfirmation(
  toolset: FrozenToolset,
  name: string,
  args: unknown,
  broker: ConfirmationBroker,
  runId: string,
): Promise<{ report: ToolCallReport; pending?: PendingTicket }> {
  const tool = findActiveTool(toolset, name);
  const callId = `call_${randomHex(12)}`;
  const base = { tool_name: name, call_id: callId, tool_schema_sha256: tool.schema_sha256, tools_file_sha256_verified: false, runner_secret_verified: false, duration_ms: 0, stderr: "" };
  let valid: JsonObject;
  try {
    valid = checkToolArgs(tool, args);
  } catch (err) {
    return { report: { ...base, ok: false, args_sha256: null, error: toErrorJson(err) } };
  }
  const pending = await broker.request({
    run_id: runId,
    call_id: callId,
    tool_name: name,
    arguments: valid,
    execution_level: "commit",
    tool_schema_sha256: tool.schema_sha256,
    tools_file_sha256: toolset.tools_file_sha256,
    active_set_sha256: toolset.active_set_sha256,
  });
  const error = errorJson("tool_confirmation_required", { message: `${name} is a commit tool: it runs only after you confirm pending action ${pending.id}.`, tool: name });
  return { report: { ...base, ok: false, args_sha256: await sha256Json(valid), error }, pending };
}

function onePositional(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`Expected exactly one ${what}.`);
  return positionals[0]!;
}

function printProblems(io: CliIO, errors: ErrorJson[], warnings: ErrorJson[]): void {
  if (errors.length) io.out(`errors:\n${errors.map(formatError).join("\n")}\n`);
  if (warnings.length) io.out(`warnings:\n${warnings.map(formatError).join("\n")}\n`);
}

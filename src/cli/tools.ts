// `edge tools validate|inspect|call`. A direct call writes a receipt (kind tool_call, as the
// playground's "Try a tool"); a commit tool becomes a pending action instead of running.
import { parseArgs } from "node:util";
import { createNodeEdge } from "../assembly/node.ts";
import type { Receipt } from "../receipts/types.ts";
import type { PendingTicket } from "../chat/types.ts";
import type { ErrorJson } from "../contract/errors.ts";
import { toolsFileSource } from "../assembly/tools-source.ts";
import { findActiveTool, type ToolCallReport } from "../toolset/call.ts";
import { READ_LOCAL } from "../toolset/workspace.ts";
import { inspect, validate, type InspectReport } from "../toolset/inspect.ts";
import { pendingJson } from "./chat-print.ts";
import {
  escapeLine,
  EXIT_FAILED,
  EXIT_OK,
  failureJson,
  formatError,
  printJson,
  table,
  UsageError,
  type CliIO,
} from "./io.ts";
import { readIfManifest } from "./manifest-file.ts";
import { oneShotRunnerHost } from "./runners.ts";

const selectionOptions = {
  "tools-root": { type: "string" },
  tool: { type: "string", multiple: true },
  "tool-tag": { type: "string", multiple: true },
  json: { type: "boolean" },
} as const;

export const toolsValidate = (argv: string[], io: CliIO): Promise<number> => inspectOrValidate("validate", argv, io);
export const toolsInspect = (argv: string[], io: CliIO): Promise<number> => inspectOrValidate("inspect", argv, io);

async function inspectOrValidate(sub: "validate" | "inspect", argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...selectionOptions, "learn-sample": { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const file = onePositional(positionals, "FILE");
  // A tools manifest (JSON) is validated without any runner: it names built-in lookups only.
  const manifest = await readIfManifest(file);
  if (manifest)
    return (await import("./facts.ts")).manifestCommand(
      sub,
      file,
      manifest,
      {
        learnSample: values["learn-sample"],
        json: values.json === true,
        selection: values.tool !== undefined || values["tool-tag"] !== undefined,
      },
      io,
    );
  if (values["learn-sample"] !== undefined)
    throw new UsageError("--learn-sample is checked against a tools manifest (a .json file).");
  // The discovery's runner starts booting now, while the file is read and hashed.
  const host = oneShotRunnerHost({ discoveries: "refresh", call: false }, (line) => io.err(line));
  try {
    const options = { host, tool: values.tool, toolTag: values["tool-tag"] };
    const source = toolsFileSource(file, values["tools-root"]);
    if (sub === "validate") {
      const report = await validate(source, options);
      if (values.json) printJson(io, reportJson(report));
      else {
        io.out(`${report.ok ? "valid" : "INVALID"}: ${file}\n`);
        io.out(
          `  tools: ${report.tool_count}, active: ${report.active_count}, tools_file_sha256: ${report.tools_file_sha256 ?? "-"}, tools_bundle_sha256: ${report.tools_bundle_sha256 ?? "-"}\n`,
        );
        printProblems(io, report.errors, report.warnings);
      }
      return report.ok ? EXIT_OK : EXIT_FAILED;
    }
    const report = await inspect(source, options);
    if (values.json) printJson(io, reportJson(report));
    else {
      io.out(`${report.ok ? "valid" : "INVALID"}: ${file}\n`);
      io.out(`  tools_file_sha256:        ${report.tools_file_sha256 ?? "-"}\n`);
      io.out(`  tools_bundle_sha256:      ${report.tools_bundle_sha256 ?? "-"} (${projectLine(report)})\n`);
      if (report.python_packages.length)
        io.out(
          `  python_packages:          ${report.python_packages.map((p) => `${p.name} ${p.version}`).join(", ")}\n`,
        );
      io.out(`  schema_generator_version: ${report.schema_generator_version ?? "-"}\n`);
      io.out(`  active_set_sha256:        ${report.active_set_sha256 ?? "-"}\n\n`);
      const rows = [["TOOL", "ACTIVE", "LEVEL", "PARAMETERS", "TAGS", "SCHEMA_SHA256"]];
      for (const t of report.tools) {
        const params = Object.keys((t.schema.parameters.properties ?? {}) as object).join(",") || "-";
        rows.push([
          t.name,
          report.active_tools.includes(t.name) ? "yes" : "no",
          t.schema.execution_level,
          params,
          t.intent_tags.join(",") || "-",
          t.schema_sha256,
        ]);
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
    options: {
      args: { type: "string" },
      "timeout-ms": { type: "string" },
      workspace: { type: "string" },
      "tools-root": { type: "string" },
      json: { type: "boolean" },
    },
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
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
      throw new UsageError("--timeout-ms must be a positive integer.");
  }
  // A runner starts booting now, while the file is read and hashed: the call's, when a kept
  // discovery of these bytes answers; else the discovery's, and the call's starts beside it.
  const edge = createNodeEdge({ host: oneShotRunnerHost({ discoveries: "use", call: true }, (line) => io.err(line)) });
  try {
    // A read_local tool sees the workspace: --workspace DIR (opened first: a folder that is not
    // there is refused before anything runs), else the stored workspace (as chat), opened only for
    // a read_local tool. Loaded on use: no other call loads the workspace code.
    const openWorkspace = async (dir: string | undefined) =>
      (await import("./workspace-session.ts")).cliWorkspace(dir, undefined, false);
    const given = values.workspace !== undefined ? await openWorkspace(values.workspace) : undefined;
    const root = values["tools-root"];
    const tools = { file, ...(root !== undefined ? { root } : {}), selection: { tool: [toolName] } };
    const toolset = await edge.freeze(tools);
    // The tool is in the set (the selection names it); a commit tool never runs from a direct call
    // either: it becomes a pending action, confirmed with the printed command (docs/contract.md §6), exactly as
    // when chat reaches it.
    const tool = findActiveTool(toolset, toolName);
    const ws = given ?? (tool.permissions.includes(READ_LOCAL) ? await openWorkspace(undefined) : {});
    const { report, pending, receipt, receiptError } = await edge.call({
      tools,
      toolset,
      name: toolName,
      args,
      options: {
        call: { timeoutMs, ...(ws.workspace ? { workspace: ws.workspace } : {}) },
        extra: { via: "cli_tools_call" },
      },
    });
    printCall(io, values.json === true, report, pending, receipt, receiptError);
    return report.ok && !receiptError ? EXIT_OK : EXIT_FAILED;
  } finally {
    await edge.close();
  }
}

function printCall(
  io: CliIO,
  json: boolean,
  report: ToolCallReport,
  pending: PendingTicket | undefined,
  receipt: Receipt | undefined,
  receiptError: ErrorJson | undefined,
): void {
  const receiptFields = receipt
    ? { receipt_id: receipt.id, receipt_sha256: receipt.receipt_sha256 }
    : { receipt_error: receiptError };
  if (json) {
    const { call_id: _callId, tools_file_sha256_verified: _verified, diagnostics, ...rest } = report;
    const doc = {
      ...rest,
      ...(pending ? { outcome: "pending_confirmation", pending_action: pendingJson(pending) } : {}),
      ...(diagnostics ? { diagnostics } : {}),
      ...receiptFields,
    };
    printJson(io, report.error ? failureJson(report.error, [report.error], doc) : doc);
    return;
  }
  if (pending) {
    io.out(
      `${pending.id} needs confirmation before it runs (expires ${pending.expires_at}):\n  ${String(pending.confirm_command)}\n`,
    );
  } else if (report.ok) {
    io.out(`${JSON.stringify(report.result, null, 2)}\n`);
    io.err(
      `ok: ${report.tool_name} in ${report.duration_ms} ms, result_sha256 ${report.result_sha256}, runner_secret_verified ${report.runner_secret_verified}\n`,
    );
  } else {
    io.err(`failed closed: ${formatError(report.error!).trim()}\n`);
    const tb = report.diagnostics?.traceback;
    if (typeof tb === "string") io.err(`${tb}\n`);
  }
  if (report.stderr) io.err(`--- tool stderr ---\n${report.stderr}\n`);
  io.err(receipt ? `receipt: ${receipt.id}\n` : `no receipt was written: ${formatError(receiptError!).trim()}\n`);
}

/** "3 files, 2 skipped (.git, __pycache__) in /home/me/proj". */
function projectLine(report: InspectReport): string {
  // File names are the project writer's text: a line break in one must not print a line of its own.
  const skipped = report.tools_skipped.length
    ? `, ${report.tools_skipped.length} skipped (${report.tools_skipped
        .slice(0, 4)
        .map((s) => escapeLine(s.path))
        .join(", ")}${report.tools_skipped.length > 4 ? ", …" : ""})`
    : "";
  return `${report.tools_files.length} file(s)${skipped}${report.tools_root ? ` in ${escapeLine(report.tools_root)}` : ""}`;
}

function onePositional(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`Expected exactly one ${what}.`);
  return positionals[0]!;
}

/** A validate/inspect report in the CLI's one JSON shape: a failed one also names its first error. */
function reportJson<R extends { ok: boolean; errors: ErrorJson[] }>(report: R): R | Record<string, unknown> {
  return report.ok || !report.errors[0] ? report : failureJson(report.errors[0], report.errors, report);
}

function printProblems(io: CliIO, errors: ErrorJson[], warnings: ErrorJson[]): void {
  if (errors.length) io.out(`errors:\n${errors.map(formatError).join("\n")}\n`);
  if (warnings.length) io.out(`warnings:\n${warnings.map(formatError).join("\n")}\n`);
}

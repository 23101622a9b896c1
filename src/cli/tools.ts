// `edge tools validate|inspect|call`.
import { parseArgs } from "node:util";
import type { ErrorJson } from "../contract/errors.ts";
import { createNodeRunnerHost, fileSource } from "../runner/node.ts";
import { callTool } from "../toolset/call.ts";
import { freezeToolset } from "../toolset/freeze.ts";
import { inspect, validate } from "../toolset/inspect.ts";
import { confirmCommandCli, pendingCommand } from "./confirm.ts";
import { EXIT_FAILED, EXIT_OK, formatError, printJson, table, UsageError, type CliIO } from "./io.ts";
import { manifestCommand, readIfManifest } from "./facts.ts";

const selectionOptions = {
  tool: { type: "string", multiple: true },
  "tool-tag": { type: "string", multiple: true },
  json: { type: "boolean" },
} as const;

export async function toolsCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "validate":
    case "inspect":
      return inspectOrValidate(sub, rest, io);
    case "call":
      return call(rest, io);
    case "confirm":
      return confirmCommandCli(rest, io);
    case "pending":
      return pendingCommand(rest, io);
    default:
      throw new UsageError(sub ? `Unknown subcommand "tools ${sub}".` : "Missing subcommand: tools validate|inspect|call|confirm|pending.");
  }
}

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

async function call(argv: string[], io: CliIO): Promise<number> {
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
    const toolset = await freezeToolset(fileSource(file), host, { tool: [toolName] });
    const report = await callTool(toolset, host, toolName, args, { timeoutMs });
    if (values.json) {
      const { call_id: _callId, tools_file_sha256_verified: _verified, diagnostics, ...rest } = report;
      printJson(io, { ...rest, ...(diagnostics ? { diagnostics } : {}) });
    } else if (report.ok) {
      io.out(`${JSON.stringify(report.result, null, 2)}\n`);
      io.err(`ok: ${toolName} in ${report.duration_ms} ms, result_sha256 ${report.result_sha256}, runner_secret_verified ${report.runner_secret_verified}\n`);
      if (report.stderr) io.err(`--- tool stderr ---\n${report.stderr}\n`);
    } else {
      io.err(`failed closed: ${formatError(report.error!).trim()}\n`);
      const tb = report.diagnostics?.traceback;
      if (typeof tb === "string") io.err(`${tb}\n`);
      if (report.stderr) io.err(`--- tool stderr ---\n${report.stderr}\n`);
    }
    return report.ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    await host.close();
  }
}

function onePositional(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`Expected exactly one ${what}.`);
  return positionals[0]!;
}

function printProblems(io: CliIO, errors: ErrorJson[], warnings: ErrorJson[]): void {
  if (errors.length) io.out(`errors:\n${errors.map(formatError).join("\n")}\n`);
  if (warnings.length) io.out(`warnings:\n${warnings.map(formatError).join("\n")}\n`);
}

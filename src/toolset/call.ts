// One Python tool call with every check of docs/contract.md §4–5 around the runner: the name is in the
// frozen active set, the arguments validate, the source is re-read (an edit is refused by the
// runner with tools_file_changed), and the host verifies the reply. Used by `edge tools call`,
// the playground's "try a tool" form and, wrapped by defineTool, the chat loop.
import { argsProblem } from "../contract/ajv.ts";
import { EdgeError, toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { didYouMean } from "../contract/suggest.ts";
import { randomHex, sha256Json, type Sha256 } from "../contract/hash.ts";
import type { JsonObject } from "../contract/types.ts";
import type { CallOutcome, RunnerHost } from "../runner/host.ts";
import { baseName, readSnapshot, type FrozenTool, type FrozenToolset } from "./freeze.ts";
import { checkProject, projectMount } from "./project.ts";
import type { ProjectMount } from "../../workers/protocol.ts";
import {
  checkMount,
  DEFAULT_WORKSPACE_MOUNT_LIMITS,
  READ_LOCAL,
  workspaceSha256,
  type WorkspaceMount,
  type WorkspaceMountLimits,
  type WorkspaceSource,
} from "./workspace.ts";

export interface ToolCallReport {
  ok: boolean;
  tool_name: string;
  call_id: string;
  result?: JsonObject;
  result_sha256?: Sha256;
  args_sha256: Sha256 | null;
  tool_schema_sha256: Sha256 | null;
  tools_file_sha256_verified: boolean;
  runner_secret_verified: boolean;
  duration_ms: number;
  stderr: string;
  error?: ErrorJson;
  diagnostics?: Record<string, unknown>;
  /** Set for read_local tools: the hash of the workspace snapshot mounted for this call. */
  workspace_sha256?: Sha256;
}

export interface CallToolOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  callId?: string;
  /** The person's workspace, mounted read-only at /workspace for tools that declare read_local.
   *  Without it such a tool finds no /workspace. */
  workspace?: WorkspaceSource;
  workspaceLimits?: WorkspaceMountLimits;
}

export function findActiveTool(toolset: FrozenToolset, name: string): FrozenTool {
  const tool = toolset.active.find((t) => t.schema.name === name);
  if (!tool) {
    const names = toolset.active.map((t) => t.schema.name);
    throw new EdgeError(
      "unknown_tool",
      { tool: name },
      `No tool named "${name}" is in the active tool set.${didYouMean(name, names)} The active tools: ${names.join(", ") || "none"}.`,
    );
  }
  return tool;
}

/** Validate arguments against the tool's parameters schema; throws invalid_tool_args with every problem. */
export function checkToolArgs(tool: FrozenTool, args: unknown): JsonObject {
  const problem = argsProblem(tool.schema.parameters, args);
  if (problem) {
    throw EdgeError.withTableFix(
      "invalid_tool_args",
      { tool: tool.schema.name, problems: problem.problems },
      `Arguments for "${tool.schema.name}" do not match its schema: ${problem.detail}.`,
    );
  }
  return args as JsonObject;
}

export async function callTool(
  toolset: FrozenToolset,
  host: RunnerHost,
  name: string,
  args: unknown,
  options: CallToolOptions = {},
): Promise<ToolCallReport> {
  const callId = options.callId ?? `call_${randomHex(12)}`;
  const base = {
    tool_name: name,
    call_id: callId,
    args_sha256: null,
    tool_schema_sha256: null,
    tools_file_sha256_verified: false,
    runner_secret_verified: false,
    duration_ms: 0,
    stderr: "",
  };
  let tool: FrozenTool;
  let validArgs: JsonObject;
  try {
    tool = findActiveTool(toolset, name);
    validArgs = checkToolArgs(tool, args);
  } catch (err) {
    return { ...base, ok: false, error: toErrorJson(err) };
  }
  const argsSha = await sha256Json(validArgs);
  let bytes: Uint8Array;
  let project: ProjectMount;
  let mount: { workspace: WorkspaceMount; sha: Sha256 } | undefined;
  try {
    // The project as it is now, checked by the runner against the frozen manifest before import.
    // Read within the call's time limit: a project that cannot be read in time is too large.
    const snapshot = await readSnapshot(
      toolset.source,
      options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs,
    );
    checkProject(snapshot);
    bytes = snapshot.files[snapshot.entry] ?? new Uint8Array(0);
    project = projectMount(snapshot, toolset.project);
    if (options.workspace && tool.permissions.includes(READ_LOCAL))
      mount = await snapshotFor(options.workspace, options.workspaceLimits);
  } catch (err) {
    return {
      ...base,
      args_sha256: argsSha,
      tool_schema_sha256: tool.schema_sha256,
      ok: false,
      error: toErrorJson(err),
    };
  }
  const outcome: CallOutcome = await host.call(
    {
      bytes,
      expectedSha256: toolset.tools_file_sha256,
      filename: baseName(toolset.filename),
      toolName: name,
      args: validArgs,
      expectedSchemaSha256: tool.schema_sha256,
      outputSchema: tool.schema.output_schema,
      callId,
      timeoutMs: options.timeoutMs,
      project,
      ...(toolset.packages.wheels.length ? { packages: toolset.packages.wheels } : {}),
      ...(mount ? { workspace: mount.workspace } : {}),
    },
    options.signal,
  );
  return {
    ok: outcome.ok,
    tool_name: name,
    call_id: callId,
    ...(outcome.ok ? { result: outcome.result, result_sha256: outcome.result_sha256 } : {}),
    args_sha256: argsSha,
    tool_schema_sha256: tool.schema_sha256,
    tools_file_sha256_verified: outcome.tools_file_sha256_verified,
    runner_secret_verified: outcome.runner_secret_verified,
    duration_ms: outcome.duration_ms,
    stderr: outcome.stderr,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.diagnostics ? { diagnostics: outcome.diagnostics } : {}),
    ...(mount ? { workspace_sha256: mount.sha } : {}),
  };
}

async function snapshotFor(
  source: WorkspaceSource,
  limits = DEFAULT_WORKSPACE_MOUNT_LIMITS,
): Promise<{ workspace: WorkspaceMount; sha: Sha256 }> {
  const workspace = await source.snapshot(limits);
  checkMount(workspace, limits);
  return { workspace, sha: await workspaceSha256(workspace) };
}

// Freeze (docs/contract.md §4 step 1): read the tools file's bytes once, discover them in an isolated
// runner, apply the host-side checks, select the active set and compute every hash. The
// frozen bytes and hashes are the session's truth; later calls re-read the source and the
// runner refuses if the bytes changed.
import { schemaCompileError } from "../contract/ajv.ts";
import { EdgeError, errorJson, toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { activeSetSha256, schemaSha256, sha256Bytes, type Sha256 } from "../contract/hash.ts";
import { selectActiveSet } from "../contract/selection.ts";
import { MAX_TOOLS_FILE_BYTES, type DiscoveredTool, type Selection, type ToolSchema } from "../contract/types.ts";
import type { ProjectSnapshot } from "../contract/project.ts";
import type { RunnerHost, ToolSource } from "../runner/host.ts";
import { explainImportError, freezePackages, NO_PACKAGES, type FrozenPackages } from "../packages/freeze.ts";
import {
  DEFAULT_PROJECT_LIMITS,
  freezeProject,
  projectMount,
  readProjectSnapshot,
  type ToolsProject,
} from "./project.ts";

export { MAX_TOOLS_FILE_BYTES };

export interface FrozenTool extends DiscoveredTool {
  schema_sha256: Sha256;
}

export interface FrozenToolset {
  source: ToolSource;
  filename: string;
  bytes: Uint8Array;
  tools_file_sha256: Sha256;
  /** sha256 of the project's manifest (every mounted file's path and hash; src/toolset/project.ts). */
  tools_bundle_sha256: Sha256;
  /** The frozen manifest: the tools file and the files mounted beside it. */
  project: ToolsProject;
  /** The Python packages the project's imports resolved to (names, versions, sha256) and their
   *  verified wheels, sent in every job (src/packages/freeze.ts). Empty without packages. */
  packages: FrozenPackages;
  schema_generator_version: string;
  /** Every valid tool in the file, in file order. */
  tools: FrozenTool[];
  /** The active set (≤ 8), in file order. */
  active: FrozenTool[];
  active_set_sha256: Sha256;
  warnings: ErrorJson[];
}

/** Everything discovery and selection found, valid or not: what validate/inspect print. */
export interface ToolsetReport {
  ok: boolean;
  /** The file itself is valid (discovery, schemas); `errors` may still hold selection problems,
   *  which another selection can fix without discovering again (see freezeReport). */
  file_ok: boolean;
  filename: string;
  tools_file_sha256: Sha256 | null;
  tools_bundle_sha256: Sha256 | null;
  project: ToolsProject | null;
  packages: FrozenPackages | null;
  schema_generator_version: string | null;
  tools: FrozenTool[];
  active: FrozenTool[];
  active_set_sha256: Sha256 | null;
  errors: ErrorJson[];
  warnings: ErrorJson[];
  bytes: Uint8Array | null;
}

/** The tools file and its project as they are now; a read failure is tools_file_unreadable.
 *  `deadline`: the moment (ms since the epoch) the read must be done by (a call's time limit). */
export async function readSnapshot(source: ToolSource, deadline?: number): Promise<ProjectSnapshot> {
  try {
    return await readProjectSnapshot(
      source,
      deadline === undefined ? DEFAULT_PROJECT_LIMITS : { ...DEFAULT_PROJECT_LIMITS, deadline },
    );
  } catch (err) {
    if (err instanceof EdgeError) throw err;
    throw EdgeError.withTableFix(
      "tools_file_unreadable",
      { file: source.name, reason: String(err) },
      `Could not read ${source.name}: ${String(err)}.`,
    );
  }
}

/** Discover + check + select without throwing for problems in the file (they are in `errors`). */
export async function analyzeToolset(
  source: ToolSource,
  host: RunnerHost,
  selection: Selection = {},
  signal?: AbortSignal,
): Promise<ToolsetReport> {
  const filename = source.name;
  const empty: ToolsetReport = {
    ok: false,
    file_ok: false,
    filename,
    tools_file_sha256: null,
    tools_bundle_sha256: null,
    project: null,
    packages: null,
    schema_generator_version: null,
    tools: [],
    active: [],
    active_set_sha256: null,
    errors: [],
    warnings: [],
    bytes: null,
  };
  let snapshot: ProjectSnapshot;
  try {
    snapshot = await readSnapshot(source);
  } catch (err) {
    return { ...empty, errors: [toErrorJson(err)] };
  }
  const bytes = snapshot.files[snapshot.entry] ?? new Uint8Array(0);
  const sha = await sha256Bytes(bytes);
  if (bytes.byteLength > MAX_TOOLS_FILE_BYTES) {
    const message = `${filename} is ${bytes.byteLength} bytes; the limit is ${MAX_TOOLS_FILE_BYTES} bytes (1 MiB). Keep tools.py small and load data inside functions.`;
    return { ...empty, tools_file_sha256: sha, bytes, errors: [errorJson("tools_file_too_large", { message })] };
  }
  if (isJsonFile(filename, bytes)) {
    const message = `${filename} is JSON, not a tools.py (a JSON object is valid Python, so it would have been read as a file with no tools). Pass a tools manifest with --tools-manifest ${filename}, or check it with edge tools validate ${filename}.`;
    return { ...empty, tools_file_sha256: sha, bytes, errors: [errorJson("tools_file_is_json", { message })] };
  }
  let project: ToolsProject;
  try {
    project = await freezeProject(snapshot);
  } catch (err) {
    return { ...empty, tools_file_sha256: sha, bytes, errors: [toErrorJson(err)] };
  }
  let packages: FrozenPackages = NO_PACKAGES;
  try {
    if (source.packages) packages = await freezePackages(snapshot, source.packages, source.name);
  } catch (err) {
    return {
      ...empty,
      tools_file_sha256: sha,
      tools_bundle_sha256: project.tools_bundle_sha256,
      project,
      bytes,
      errors: [toErrorJson(err)],
    };
  }
  const mount = projectMount(snapshot, project);
  const discovery = await host.discover(
    {
      bytes,
      expectedSha256: sha,
      filename: baseName(filename),
      project: mount,
      ...(packages.wheels.length ? { packages: packages.wheels } : {}),
    },
    signal,
  );
  const errors = await explainErrors(discovery.errors, source, packages);
  const valid: FrozenTool[] = [];
  for (const tool of discovery.tools) {
    const problem = tool.schema.output_schema ? schemaCompileError(tool.schema.output_schema) : null;
    if (problem) {
      errors.push(
        errorJson("invalid_output_schema", {
          message: `output_schema of tool "${tool.schema.name}" does not compile in strict mode: ${problem}`,
          tool: tool.schema.name,
          line: tool.line,
        }),
      );
      continue;
    }
    valid.push({ ...tool, schema_sha256: await schemaSha256(tool.schema) });
  }
  const fileOk = errors.length === 0;
  const selected = fileOk ? selectActiveSet(valid, selection) : { active: [], errors: [] };
  errors.push(...selected.errors);
  const active = selected.active as FrozenTool[];
  const ok = errors.length === 0;
  return {
    ok,
    file_ok: fileOk,
    filename,
    tools_file_sha256: sha,
    tools_bundle_sha256: project.tools_bundle_sha256,
    project,
    packages,
    schema_generator_version: discovery.schema_generator_version,
    tools: valid,
    active,
    active_set_sha256: ok ? await activeSetSha256(active.map((t) => t.schema)) : null,
    errors,
    warnings: discovery.warnings,
    bytes,
  };
}

/** A module the runner could not import, told in terms of the package lock (when there is one). */
async function explainErrors(
  errors: readonly ErrorJson[],
  source: ToolSource,
  packages: FrozenPackages,
): Promise<ErrorJson[]> {
  const provider = source.packages;
  if (!provider || !errors.some((e) => typeof e.module === "string")) return [...errors];
  const lock = await provider.lock();
  return errors.map((e) => explainImportError(e, lock, packages, provider.lockName));
}

/** Freeze a session's toolset, or throw the first problem as an EdgeError (details.errors has all). */
export async function freezeToolset(
  source: ToolSource,
  host: RunnerHost,
  selection: Selection = {},
  signal?: AbortSignal,
): Promise<FrozenToolset> {
  return freezeReport(await analyzeToolset(source, host, {}, signal), source, selection);
}

/**
 * Freeze what a report discovered under `selection`, without discovering again (the playground
 * inspects once, then freezes under whatever selection the person picks). Throws the first problem
 * of the file or of the selection as an EdgeError (details.errors has all).
 */
export async function freezeReport(
  report: ToolsetReport,
  source: ToolSource,
  selection: Selection = {},
): Promise<FrozenToolset> {
  const fail = (errors: ErrorJson[]): never => {
    const first = errors[0] ?? errorJson("tools_file_import_failed");
    throw new EdgeError(first.code, { ...first, errors }, first.message);
  };
  if (
    !report.file_ok ||
    !report.bytes ||
    !report.tools_file_sha256 ||
    !report.project ||
    !report.schema_generator_version
  )
    return fail(report.errors);
  const selected = selectActiveSet(report.tools, selection);
  if (selected.errors.length) return fail(selected.errors);
  const active = selected.active as FrozenTool[];
  return {
    source,
    filename: report.filename,
    bytes: report.bytes,
    tools_file_sha256: report.tools_file_sha256,
    tools_bundle_sha256: report.project.tools_bundle_sha256,
    project: report.project,
    packages: report.packages ?? NO_PACKAGES,
    schema_generator_version: report.schema_generator_version,
    tools: report.tools,
    active,
    active_set_sha256: await activeSetSha256(active.map((t) => t.schema)),
    warnings: report.warnings,
  };
}

/** A .json name, or content that parses as a JSON object or array: a manifest passed as tools. */
function isJsonFile(filename: string, bytes: Uint8Array): boolean {
  if (filename.toLowerCase().endsWith(".json")) return true;
  const text = new TextDecoder().decode(bytes).trim();
  if (!text.startsWith("{") && !text.startsWith("[")) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function activeSchemas(toolset: FrozenToolset): ToolSchema[] {
  return toolset.active.map((t) => t.schema);
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

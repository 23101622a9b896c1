// validate / inspect (docs/contract.md §3): the library calls behind `edge tools validate|inspect`, and the
// JSON shapes they print. Both import the file inside an isolated runner (top-level code runs).
import type { ErrorJson } from "../contract/errors.ts";
import type { Sha256 } from "../contract/hash.ts";
import type { Selection, ToolSchema } from "../contract/types.ts";
import type { RunnerHost, ToolSource } from "../runner/host.ts";
import { analyzeToolset } from "./freeze.ts";
import type { ProjectFile, ToolsProject } from "./project.ts";
import type { FrozenPackage } from "../packages/lock.ts";

export interface ValidateReport {
  ok: boolean;
  tools_file_sha256: Sha256 | null;
  tools_bundle_sha256: Sha256 | null;
  tool_count: number;
  active_count: number;
  errors: ErrorJson[];
  warnings: ErrorJson[];
}

export interface InspectedTool {
  name: string;
  schema: ToolSchema;
  schema_sha256: Sha256;
  intent_tags: string[];
  permissions: string[];
}

export interface InspectReport {
  ok: boolean;
  tools_file: string;
  tools_file_sha256: Sha256 | null;
  /** The tools project (docs/tools-projects.md): its manifest's hash, the folder it was read from
   *  (null for files held in memory), every mounted file and what was left out. */
  tools_bundle_sha256: Sha256 | null;
  tools_root: string | null;
  tools_files: ProjectFile[];
  tools_skipped: ToolsProject["skipped"];
  /** The Python packages the project's imports resolved to, in install order, with their wheels'
   *  sizes (docs/packages.md); [] without packages. */
  python_packages: (FrozenPackage & { bytes: number })[];
  /** sha256 of the project's pylock.toml when it declares dependencies (docs/packages.md), else null. */
  python_lock_sha256: Sha256 | null;
  schema_generator_version: string | null;
  active_set_sha256: Sha256 | null;
  active_tools: string[];
  tools: InspectedTool[];
  errors: ErrorJson[];
  warnings: ErrorJson[];
}

export interface ToolsetOptions extends Selection {
  host: RunnerHost;
  signal?: AbortSignal;
}

export async function validate(source: ToolSource, options: ToolsetOptions): Promise<ValidateReport> {
  const r = await analyzeToolset(source, options.host, options, options.signal);
  return {
    ok: r.ok,
    tools_file_sha256: r.tools_file_sha256,
    tools_bundle_sha256: r.tools_bundle_sha256,
    tool_count: r.tools.length,
    active_count: r.active.length,
    errors: r.errors,
    warnings: r.warnings,
  };
}

export async function inspect(source: ToolSource, options: ToolsetOptions): Promise<InspectReport> {
  const r = await analyzeToolset(source, options.host, options, options.signal);
  return {
    ok: r.ok,
    tools_file: r.filename,
    tools_file_sha256: r.tools_file_sha256,
    tools_bundle_sha256: r.tools_bundle_sha256,
    tools_root: r.project?.root ?? null,
    tools_files: r.project?.files ?? [],
    tools_skipped: r.project?.skipped ?? [],
    python_packages: (r.packages?.packages ?? []).map((p, i) => ({
      ...p,
      bytes: r.packages!.wheels[i]!.bytes.byteLength,
    })),
    python_lock_sha256: r.packages?.lock_sha256 ?? null,
    schema_generator_version: r.schema_generator_version,
    active_set_sha256: r.active_set_sha256,
    active_tools: r.active.map((t) => t.schema.name),
    tools: r.tools.map((t) => ({
      name: t.schema.name,
      schema: t.schema,
      schema_sha256: t.schema_sha256,
      intent_tags: t.intent_tags,
      permissions: t.permissions,
    })),
    errors: r.errors,
    warnings: r.warnings,
  };
}

/** A ToolSource over bytes or text held in memory (the editor's buffer, a fetched file). */
export function memorySource(name: string, content: string | Uint8Array | (() => string | Uint8Array)): ToolSource {
  const enc = new TextEncoder();
  return {
    name,
    async read() {
      const value = typeof content === "function" ? content() : content;
      return typeof value === "string" ? enc.encode(value) : new Uint8Array(value);
    },
  };
}

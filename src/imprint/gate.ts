// The restore gate (docs/contract.md §7). Schema-level and fail-closed, in a fixed order:
//   1. imprint_requires_tools            learned with tools, restored without any
//   2. imprint_model_mismatch            another model id, engine kind or model build (fingerprint)
//   3. imprint_tool_active_set_mismatch  another kind of tool surface (tools.py, facts store,
//                                        manifest), or another set of tool names
//   4. imprint_tool_schema_mismatch      same names, but a tool's schema (or the generator) differs
// A function-body edit changes tools_file_sha256 only, which is informational: it restores.
// A saved model state (state.ts) is checked after these gates pass: its bindings decide whether it
// is loaded or the prefix is evaluated as text; the gates above always run first and fail closed.
// An imprint learned without tools may be combined with a facts store or a manifest (Edge Studio
// allows it): the session then injects the lookups' contract beside the imprint's prefix.
import { EdgeError } from "../contract/errors.ts";
import { canonicalJson, schemaSha256, type Sha256 } from "../contract/hash.ts";
import type { ToolSchema } from "../contract/types.ts";
import type { EngineInfo, ModelFingerprint } from "../engines/engine.ts";
import type { ImprintBinding, ToolSurface } from "../chat/types.ts";
import type { StateRestorer } from "../chat/imprint-restore.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import type { ToolSurfaceKind } from "../receipts/types.ts";
import type { Imprint } from "./record.ts";

export interface GateContext {
  schemas: readonly ToolSchema[];
  toolset: FrozenToolset | null;
  engine: EngineInfo;
  /** A facts store or tools manifest surface (instead of a toolset). */
  surface?: ToolSurface | null;
}

/** The kind of tool surface a session runs with, or null without tools. */
function surfaceOf(context: GateContext): ToolSurfaceKind | null {
  if (context.toolset) return "tools_file";
  return context.surface?.kind ?? null;
}

/** The fingerprint fields that identify a model build (labels and probes excluded). */
export function fingerprintKey(fp: ModelFingerprint | null | undefined): string | null {
  if (!fp) return null;
  return canonicalJson({
    modelId: fp.modelId,
    modelLib: fp.modelLib ?? null,
    modelUrl: fp.modelUrl ?? null,
    integrity: fp.integrity ?? null,
    runtimeVersion: fp.runtimeVersion ?? null,
    // A GGUF model is its file: the same weights under another runtime restore fine.
    ...(fp.sha256 ? { sha256: fp.sha256 } : {}),
  });
}

const SURFACE_LABEL: Record<ToolSurfaceKind, string> = {
  tools_file: "tools.py",
  facts_store: "facts store",
  tools_manifest: "tools manifest",
};
const SURFACE_FLAG: Record<ToolSurfaceKind, string> = {
  tools_file: "--tools FILE",
  facts_store: "--facts-store STORE",
  tools_manifest: "--tools-manifest FILE",
};

const sorted = (names: Iterable<string>): string[] => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Throws the first failing gate's EdgeError; resolves when the imprint fits this session. */
export async function checkImprint(imprint: Imprint, context: GateContext): Promise<void> {
  const learned = imprint.tools;
  const current = context.schemas;

  // 1. Tools given when the imprint has tools.
  if (learned && Object.keys(learned.tool_schema_sha256).length > 0 && current.length === 0) {
    const kind = learned.surface ?? "tools_file";
    throw new EdgeError(
      "imprint_requires_tools",
      { imprint_id: imprint.id, tools: sorted(Object.keys(learned.tool_schema_sha256)), imprint_surface: kind },
      `This imprint was learned with the tools of a ${SURFACE_LABEL[kind]}; restore it with the same ones (${SURFACE_FLAG[kind]}), or learn a new imprint without tools.`,
    );
  }

  // 2. Same model: engine kind, model id, and — when the imprint recorded one — the same build.
  const engine = context.engine;
  const want = imprint.model;
  if (engine.kind !== want.engine || engine.modelId !== want.model_id) {
    throw new EdgeError(
      "imprint_model_mismatch",
      {
        imprint_id: imprint.id,
        imprint_model: want.model_id,
        imprint_engine: want.engine,
        model: engine.modelId,
        engine: engine.kind,
      },
      `This imprint was learned with ${want.model_id} (${want.engine}); the session uses ${engine.modelId} (${engine.kind}). Load ${want.model_id}, or learn the imprint again with this model.`,
    );
  }
  const wantFp = fingerprintKey(want.fingerprint);
  if (wantFp !== null && wantFp !== fingerprintKey(engine.fingerprint)) {
    throw new EdgeError(
      "imprint_model_mismatch",
      {
        imprint_id: imprint.id,
        reason: engine.fingerprint ? "fingerprint" : "no_fingerprint",
        imprint_fingerprint: want.fingerprint,
        fingerprint: engine.fingerprint ?? null,
      },
      engine.fingerprint
        ? `The model ${engine.modelId} is another build than the one this imprint learned (library, weights URL, integrity or runtime version differ); learn the imprint again.`
        : `The engine does not report which build of ${engine.modelId} it runs (load the model before restoring), so the imprint cannot be checked and was not used.`,
    );
  }

  // 3. The same kind of tool surface (a profile-only imprint may join a facts surface), then the
  //    same set of tool names.
  const currentSurface = surfaceOf(context);
  if (!learned && (currentSurface === "facts_store" || currentSurface === "tools_manifest")) return;
  const learnedSurface: ToolSurfaceKind | null = learned ? (learned.surface ?? "tools_file") : null;
  if (learned && currentSurface !== null && learnedSurface !== currentSurface) {
    throw new EdgeError(
      "imprint_tool_active_set_mismatch",
      { imprint_id: imprint.id, reason: "surface", imprint_surface: learnedSurface, surface: currentSurface },
      `This imprint learned the tools of a ${SURFACE_LABEL[learnedSurface!]}; this chat uses a ${SURFACE_LABEL[currentSurface]}. Restore it with the same kind of tools (${SURFACE_FLAG[learnedSurface!]}), or learn it again.`,
    );
  }
  const learnedNames = learned ? sorted(Object.keys(learned.tool_schema_sha256)) : [];
  const currentNames = sorted(current.map((s) => s.name));
  if (learnedNames.join("\n") !== currentNames.join("\n")) {
    throw new EdgeError(
      "imprint_tool_active_set_mismatch",
      {
        imprint_id: imprint.id,
        added: currentNames.filter((n) => !learnedNames.includes(n)),
        removed: learnedNames.filter((n) => !currentNames.includes(n)),
      },
      `The active tools [${currentNames.join(", ")}] are not the ones this imprint learned [${learnedNames.join(", ")}]; learn it again with the current tools.`,
    );
  }
  if (!learned) return;

  // 4. Same schema for each tool (and the generator that produced them).
  const generator = context.toolset?.schema_generator_version ?? context.surface?.schema_generator_version;
  if (generator !== undefined && generator !== learned.schema_generator_version) {
    throw new EdgeError(
      "imprint_tool_schema_mismatch",
      {
        imprint_id: imprint.id,
        reason: "schema_generator_version",
        imprint: learned.schema_generator_version,
        current: generator,
      },
      `The tool schemas were generated by ${generator}; this imprint learned schemas from ${learned.schema_generator_version}. Learn it again.`,
    );
  }
  const changed: Array<{ tool: string; imprint: Sha256; current: Sha256 }> = [];
  for (const schema of [...current].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const now = await schemaSha256(schema);
    const then = learned.tool_schema_sha256[schema.name]!;
    if (now !== then) changed.push({ tool: schema.name, imprint: then, current: now });
  }
  if (changed.length) {
    throw new EdgeError(
      "imprint_tool_schema_mismatch",
      { imprint_id: imprint.id, tool: changed[0]!.tool, changed },
      `The schema of ${changed.map((c) => `"${c.tool}"`).join(", ")} changed since this imprint was learned (parameters, types, description, output_schema, execution_level or return_direct); learn it again with the current tools file.`,
    );
  }
}

/** The session seam: the gate runs in createChatSession before any generation, then the prefix
 *  starts the conversation — from the imprint's saved model state when `restoreState` can load it
 *  (Node: node-state.ts), else evaluated by the engine. */
export function imprintBinding(imprint: Imprint, restoreState?: StateRestorer): ImprintBinding {
  return {
    id: imprint.id,
    prefix: imprint.prefix,
    // A profile-only imprint's prefix has no tool contract; with a facts surface it is injected too.
    toolContract: imprint.tools !== null,
    check: (context) => checkImprint(imprint, context),
    ...(restoreState ? { restoreState } : {}),
  };
}

// The two facts tool surfaces the chat session accepts as `tools: { kind: "surface", surface }`
// (docs/contract.md §8): a facts_store surface exposes the built-in local_facts_lookup over one store; a
// tools_manifest surface exposes the manifest's named lookups. Both check that their stores exist
// before the session starts (facts_store_not_found), and name the hashes receipts carry.
import { EdgeError } from "../contract/errors.ts";
import { activeSetSha256, type Sha256 } from "../contract/hash.ts";
import type { ToolSurface } from "../chat/types.ts";
import type { AnyToolDefinition, ToolRuntime } from "../runtime/index.ts";
import { checkStoreName } from "./format.ts";
import {
  createFactsLookupTool,
  FACTS_LOOKUP_VERSION,
  lookupSchema,
  defaultLookupDescription,
  FACTS_LOOKUP_KIND,
} from "./lookup.ts";
import { manifestSchemas, validateToolsManifest, type ToolsManifest } from "./manifest.ts";
import { storeNotFound, type FactsStore } from "./store.ts";

export interface FactsSurface extends ToolSurface {
  /** The lookup tools, already defined (e.g. to list them in a UI). */
  readonly tools: readonly AnyToolDefinition[];
}

function surface(
  kind: ToolSurface["kind"],
  tools: AnyToolDefinition[],
  active: Sha256,
  extra: { tools_manifest_sha256?: Sha256; facts_store?: string },
): FactsSurface {
  return {
    kind,
    tools,
    active_set_sha256: active,
    schema_generator_version: FACTS_LOOKUP_VERSION,
    ...extra,
    register(runtime: ToolRuntime) {
      for (const t of tools) runtime.register(t);
    },
  };
}

async function requireStore(facts: FactsStore, store: string): Promise<void> {
  if ((await facts.revision(checkStoreName(store))) === null) throw storeNotFound(store);
}

/** `--facts-store STORE`: local_facts_lookup over one store. */
export async function factsStoreSurface(facts: FactsStore, store: string): Promise<FactsSurface> {
  await requireStore(facts, store);
  const tool = await createFactsLookupTool({ facts, store });
  const active = await activeSetSha256([lookupSchema(FACTS_LOOKUP_KIND, defaultLookupDescription(store))]);
  return surface("facts_store", [tool], active, { facts_store: store });
}

/** `--tools-manifest FILE`: the manifest's raw bytes are validated and hashed here. */
export async function toolsManifestSurface(facts: FactsStore, raw: string | Uint8Array): Promise<FactsSurface> {
  const report = await validateToolsManifest(raw);
  if (!report.ok || !report.manifest) {
    const first = report.errors[0]!;
    throw new EdgeError(
      first.code,
      { errors: report.errors, ...(first.tool ? { tool: first.tool } : {}) },
      first.message,
    );
  }
  return manifestSurface(facts, report.manifest, report.tools_manifest_sha256);
}

async function manifestSurface(facts: FactsStore, manifest: ToolsManifest, manifestSha: Sha256): Promise<FactsSurface> {
  for (const store of new Set(manifest.tools.map((t) => t.store))) await requireStore(facts, store);
  const tools = await Promise.all(
    manifest.tools.map((t) =>
      createFactsLookupTool({ facts, store: t.store, name: t.name, description: t.description }),
    ),
  );
  const active = await activeSetSha256(manifestSchemas(manifest));
  return surface("tools_manifest", tools, active, { tools_manifest_sha256: manifestSha });
}

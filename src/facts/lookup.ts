// local_facts_lookup (docs/contract.md §8): the built-in, read-only tool that ranks a facts store with a
// real full-text index (minisearch: BM25+, field boosts for topic and tags, prefix and fuzzy
// matching). Executed by Edge itself (no Python). The index is rebuilt only when the store's
// revision changes, so an import during a session is seen by the next call.
import MiniSearch from "minisearch";
import { EdgeError } from "../contract/errors.ts";
import { schemaSha256, type Sha256 } from "../contract/hash.ts";
import type { JsonObject, ToolSchema } from "../contract/types.ts";
import { defineTool, type ToolDefinition } from "../runtime/index.ts";
import type { Fact } from "./format.ts";
import type { FactsStore } from "./store.ts";

export const FACTS_LOOKUP_KIND = "local_facts_lookup";
/** Version of the lookup's schema and ranking; receipts carry it as schema_generator_version. */
export const FACTS_LOOKUP_VERSION = "edge.facts.lookup.v1";
const LOOKUP_LIMITS = { defaultLimit: 5, maxLimit: 50, queryChars: 1000, topicChars: 256 } as const;

export interface LookupArgs {
  query?: string;
  topic?: string;
  limit?: number;
}

export interface LookupMatch {
  fact_id: string;
  topic: string;
  text: string;
  tags: string[];
  source_label: string;
  /** The page a fact imported from a URL came from, so the model can cite it. */
  source_url?: string;
  score: number;
}

export interface LookupResult {
  rows: number;
  matches: LookupMatch[];
}

const LOOKUP_PARAMETERS: JsonObject = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1, maxLength: LOOKUP_LIMITS.queryChars },
    topic: { type: "string", minLength: 1, maxLength: LOOKUP_LIMITS.topicChars },
    limit: { type: "integer", minimum: 1, maximum: LOOKUP_LIMITS.maxLimit, default: LOOKUP_LIMITS.defaultLimit },
  },
  required: [],
  additionalProperties: false,
};

export function defaultLookupDescription(store: string): string {
  return `Search the local facts store "${store}" and return the best matching facts, ranked. Give a query (words to look for), a topic, or both; limit caps the matches (default ${LOOKUP_LIMITS.defaultLimit}).`;
}

/** The model-visible schema (docs/contract.md §1 shape) of a lookup with this name and description. */
export function lookupSchema(name: string, description: string): ToolSchema {
  return {
    name,
    description,
    parameters: LOOKUP_PARAMETERS,
    execution_level: "read",
    return_direct: false,
    output_schema: null,
  };
}

export interface FactsLookupOptions {
  facts: FactsStore;
  store: string;
  /** Default local_facts_lookup; a tools manifest gives a developer-owned name. */
  name?: string;
  description?: string;
}

/** Build the tool (async: its schema_sha256 goes into its metadata for receipts). */
export async function createFactsLookupTool(
  options: FactsLookupOptions,
): Promise<ToolDefinition<LookupArgs, LookupResult>> {
  const name = options.name ?? FACTS_LOOKUP_KIND;
  const description = options.description ?? defaultLookupDescription(options.store);
  const schema = lookupSchema(name, description);
  const sha: Sha256 = await schemaSha256(schema);
  const index = createLookupIndex(options.facts, options.store);
  return defineTool<LookupArgs, LookupResult>({
    name,
    description,
    parameters: LOOKUP_PARAMETERS,
    executionLevel: "read",
    isConcurrencySafe: true,
    meta: { kind: "builtin", builtin: FACTS_LOOKUP_KIND, store: options.store, reportsRows: true, schema_sha256: sha },
    execute: (args) => index.search(args),
  });
}

interface Indexed {
  revision: number;
  search: MiniSearch<Fact>;
  facts: Map<string, Fact>;
}

export interface LookupIndex {
  search(args: LookupArgs): Promise<LookupResult>;
}

/** A lookup over one store of a FactsStore, with its index cached by store revision. */
function createLookupIndex(facts: FactsStore, store: string): LookupIndex {
  let cached: Indexed | null = null;
  let building: Promise<Indexed> | null = null;

  async function current(): Promise<Indexed> {
    const revision = await facts.revision(store);
    if (revision === null)
      throw new EdgeError(
        "facts_store_not_found",
        { store },
        `The local facts store "${store}" no longer exists (it was deleted); import it again.`,
      );
    if (cached?.revision === revision) return cached;
    if (!building) {
      building = (async () => {
        const list = await facts.facts(store);
        const ms = new MiniSearch<Fact>({
          idField: "fact_id",
          fields: ["text", "topic", "tags", "source_label"],
          extractField: (doc, field) => {
            const v = doc[field as keyof Fact];
            return Array.isArray(v) ? v.join(" ") : (v as string);
          },
        });
        ms.addAll(list);
        return { revision, search: ms, facts: new Map(list.map((f) => [f.fact_id, f])) };
      })().finally(() => {
        building = null;
      });
    }
    cached = await building;
    return cached;
  }

  return {
    async search(args) {
      const query = args.query?.trim() ?? "";
      const topic = args.topic?.trim() ?? "";
      const limit = args.limit ?? LOOKUP_LIMITS.defaultLimit;
      if (query === "" && topic === "") {
        throw new EdgeError(
          "invalid_tool_args",
          { tool: FACTS_LOOKUP_KIND },
          "local_facts_lookup needs a query, a topic, or both; it does not list a whole store.",
        );
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > LOOKUP_LIMITS.maxLimit) {
        throw new EdgeError(
          "invalid_tool_args",
          { tool: FACTS_LOOKUP_KIND },
          `limit must be an integer from 1 to ${LOOKUP_LIMITS.maxLimit}. Pass a limit in that range.`,
        );
      }
      if (query.length > LOOKUP_LIMITS.queryChars || topic.length > LOOKUP_LIMITS.topicChars) {
        throw new EdgeError(
          "invalid_tool_args",
          { tool: FACTS_LOOKUP_KIND },
          `query is limited to ${LOOKUP_LIMITS.queryChars} characters and topic to ${LOOKUP_LIMITS.topicChars}. Shorten the query or topic.`,
        );
      }
      const idx = await current();
      const topicFilter = topic ? topicMatcher(topic) : null;
      const filter = topicFilter ? (r: { id: string }) => topicFilter(idx.facts.get(r.id)?.topic ?? "") : undefined;
      const hits = query
        ? idx.search.search(query, {
            boost: { topic: 2, tags: 2 },
            prefix: true,
            fuzzy: 0.2,
            ...(filter ? { filter } : {}),
          })
        : idx.search.search(MiniSearch.wildcard, filter ? { filter } : {});
      // Rank by score, then fact_id, so equal scores come back in a stable order (result_sha256).
      hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const matches: LookupMatch[] = hits.slice(0, limit).map((h) => {
        const f = idx.facts.get(h.id as string)!;
        return {
          fact_id: f.fact_id,
          topic: f.topic,
          text: f.text,
          tags: [...f.tags],
          source_label: f.source_label,
          ...(f.provenance ? { source_url: f.provenance.source_url } : {}),
          score: Math.round(h.score * 10_000) / 10_000,
        };
      });
      return { rows: matches.length, matches };
    },
  };
}

/** A topic argument matches a fact's topic when equal ignoring case, or when every word of it is a word of the topic. */
function topicMatcher(topic: string): (factTopic: string) => boolean {
  const want = words(topic);
  const whole = topic.toLowerCase();
  return (factTopic) => {
    if (factTopic.toLowerCase() === whole) return true;
    const have = new Set(words(factTopic));
    return want.length > 0 && want.every((w) => have.has(w));
  };
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

// web_search: off unless the host page configures a provider. Edge itself never fetches
// (there is no fetch tool at all); the provider is the host's function, and what it returns is
// checked and bounded before the model sees it.
import { EdgeError } from "../contract/errors.ts";
import { defineTool, type AnyToolDefinition } from "../runtime/index.ts";
import { BUILTIN_KIND, type BuiltinMeta } from "./shared.ts";

export interface WebSearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** The host's search function (e.g. its own backend). Edge passes the signal; it must honour it. */
export type WebSearchProvider = (
  query: string,
  options: { maxResults: number; signal: AbortSignal },
) => Promise<readonly WebSearchHit[]>;

const MAX_RESULTS = 10;
const FIELD_LIMITS = { title: 300, url: 2048, snippet: 1000 } as const;

export function webSearchTool(provider: WebSearchProvider | undefined): AnyToolDefinition {
  const meta: BuiltinMeta = { kind: BUILTIN_KIND, writes: false, provider: provider ? "host" : "none" };
  return defineTool<{ query: string; max_results?: number }>({
    name: "web_search",
    description:
      "Search the web through the host page's search provider; returns titles, URLs and snippets (no page fetching).",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: 500 },
        max_results: { type: "integer", minimum: 1, maximum: MAX_RESULTS, default: 5 },
      },
      required: ["query"],
      additionalProperties: false,
    },
    isConcurrencySafe: true,
    timeoutMs: 15_000,
    meta,
    async execute({ query, max_results }, ctx) {
      if (!provider) throw new EdgeError("web_search_unavailable");
      const maxResults = max_results ?? 5;
      let hits: unknown;
      try {
        hits = await provider(query, { maxResults, signal: ctx.signal });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        throw EdgeError.withTableFix(
          "web_search_failed",
          { reason: String(err) },
          `The web search provider failed: ${err instanceof Error ? err.message : String(err)}.`,
        );
      }
      if (!Array.isArray(hits))
        throw new EdgeError(
          "web_search_failed",
          {},
          "The web search provider did not return an array of {title, url, snippet}.",
        );
      const results = hits.slice(0, maxResults).map((h: unknown, i) => {
        const o = (typeof h === "object" && h !== null ? h : {}) as Record<string, unknown>;
        if (typeof o["title"] !== "string" || typeof o["url"] !== "string" || typeof o["snippet"] !== "string") {
          throw new EdgeError(
            "web_search_failed",
            { index: i },
            `The web search provider's result ${i} is not {title, url, snippet} strings. Fix the search provider to return {title, url, snippet} strings.`,
          );
        }
        return {
          title: o["title"].slice(0, FIELD_LIMITS.title),
          url: o["url"].slice(0, FIELD_LIMITS.url),
          snippet: o["snippet"].slice(0, FIELD_LIMITS.snippet),
        };
      });
      return { query, results };
    },
  });
}

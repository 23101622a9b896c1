// Pages into facts without any network: long pages are split at paragraph boundaries within the
// text limit, fact ids are stable, and crawl bounds are all required.
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { checkCrawlBounds, chunkLines, factsFromPage, URL_IMPORT_LIMITS } from "./url-import.ts";

const SHA = `sha256:${"a".repeat(64)}` as const;

describe("facts from a page", () => {
  it("splits a long page at paragraph boundaries into facts of at most 4,000 characters", () => {
    const paragraphs = Array.from({ length: 30 }, (_, i) => `<p>Paragraph ${i}: ${"word ".repeat(60)}</p>`).join("");
    const html = `<!doctype html><html><head><title>Guide</title></head><body><nav>Home | Pricing</nav><main><article><h1>Guide</h1>${paragraphs}<p>${"x".repeat(9000)}</p></article></main></body></html>`;
    const { facts } = factsFromPage(
      { url: "https://docs.example.org/guide/", html, page_sha256: SHA, fetched_at: "2026-01-01T00:00:00Z" },
      {},
    );
    expect(facts.length).toBeGreaterThan(3);
    expect(facts.map((f) => f.fact_id)).toEqual(facts.map((_, i) => `docs-example-org-guide-${i + 1}`));
    for (const f of facts) {
      expect(f.text.length).toBeLessThanOrEqual(URL_IMPORT_LIMITS.chunkChars);
      expect(f).toMatchObject({
        topic: "Guide",
        source_label: "Guide",
        provenance: { source_url: "https://docs.example.org/guide/", page_sha256: SHA, split: "page" },
      });
      expect(f.text).not.toContain("Pricing");
    }
    // No paragraph is cut in two unless it alone is longer than a fact.
    expect(facts.filter((f) => /Paragraph 7:/.test(f.text))).toHaveLength(1);
    expect(chunkLines(["a".repeat(10)], 4)).toEqual(["aaaa", "aaaa", "aa"]);
  });

  it("table rows: a nested table's rows are counted once, links become absolute", () => {
    const html = `<html><head><title>Index</title></head><body><table><tr><th>Id</th><th>Spec</th></tr>
<tr><td><a href="/eip/1">1</a></td><td><table><tr><td>draft</td><td>core</td></tr></table></td></tr></table></body></html>`;
    const { facts } = factsFromPage(
      { url: "https://eips.example.org/all", html, page_sha256: SHA, fetched_at: "t" },
      { split: "html-table-rows", factIdPrefix: "eip" },
    );
    expect(facts.map((f) => [f.fact_id, f.text])).toEqual([
      ["eip-row-1", "Id: 1 (https://eips.example.org/eip/1); Spec: draft | core"],
      ["eip-row-2", "draft | core"],
    ]);
  });

  it("a crawl needs every bound, each within its ceiling", () => {
    const all = { maxDepth: 1, maxUrls: 5, maxBytes: 1000, maxBytesTotal: 5000, timeoutMs: 1000 };
    expect(checkCrawlBounds(all)).toEqual(all);
    const { timeoutMs: _t, ...noTimeout } = all;
    expect(() => checkCrawlBounds(noTimeout)).toThrow(EdgeError);
    try {
      checkCrawlBounds({});
    } catch (err) {
      expect((err as EdgeError).code).toBe("crawl_bounds_required");
      expect((err as EdgeError).details["missing"]).toEqual([
        "maxDepth",
        "maxUrls",
        "maxBytes",
        "maxBytesTotal",
        "timeoutMs",
      ]);
    }
    expect(() => checkCrawlBounds({ ...all, maxDepth: 6 })).toThrow(/max depth/);
  });
});

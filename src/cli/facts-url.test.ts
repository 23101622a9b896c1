// `edge facts import-url` and `edge facts crawl-url` against a local HTTP site of real-world-shaped
// pages (test/fixtures/html-site.ts): clean text without navigation or scripts, table rows with
// absolute links, provenance (source_url, page sha256), every bound, and every refusal leaving
// nothing written.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSite, type Site } from "../../test/fixtures/html-site.ts";
import { cli, edgeCli } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-facts-url-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");
let site: Site;
let other: Site;

beforeAll(async () => {
  other = await startSite();
  site = await startSite({ offOrigin: other.origin });
});
afterAll(async () => {
  await site.close();
  await other.close();
});

async function texts(
  store: string,
): Promise<
  Array<{ fact_id: string; text: string; topic: string; tags: string[]; provenance: Record<string, string> }>
> {
  const r = await cli("facts", "list", "--store", store, "--include-text", "--json");
  expect(r.code, r.out + r.err).toBe(0);
  return r.json.facts;
}

/** A refused import: the coded error, and the store was never created. */
async function refused(argv: string[], code: string, store: string): Promise<{ message: string }> {
  const r = await cli(...argv, "--json");
  expect(r.code, r.out + r.err).toBe(1);
  expect(r.json.error.code).toBe(code);
  expect(existsSync(join(tmp, "data", "facts", `${store}.json`))).toBe(false);
  return r.json.error;
}

describe("edge facts import-url", () => {
  it("page: the main text only, split into facts with the page's URL and sha256 as provenance", async () => {
    const r = await cli(
      "demo",
      "facts",
      "import-url",
      `${site.origin}/docs/fees`,
      "--store",
      "desk",
      "--topic",
      "Service fees",
      "--tags",
      "billing,fees",
      "--fact-id-prefix",
      "fees",
      "--json",
    );
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json).toMatchObject({
      ok: true,
      store: "desk",
      split: "page",
      network_used: true,
      robots_txt_consulted: false,
      pages: [{ final_url: `${site.origin}/docs/fees`, status: 200, extractor: "readability" }],
    });
    const facts = await texts("desk");
    expect(facts.map((f) => f.fact_id)).toEqual(["fees-1"]);
    const [fee] = facts;
    expect(fee!.text).toContain("The basic tier pays 0.3% of the amount");
    expect(fee!.text).toContain("basic | 0.3% | Basic tier terms");
    for (const noise of ["cookies", "Sign in", "TRACKING-CODE", "All rights reserved", "Our blog", "font-family"])
      expect(fee!.text).not.toContain(noise);
    expect(fee).toMatchObject({ topic: "Service fees", tags: ["billing", "fees"] });
    const served = await (await fetch(`${site.origin}/docs/fees`)).arrayBuffer();
    expect(fee!.provenance).toMatchObject({
      source_url: `${site.origin}/docs/fees`,
      page_sha256: `sha256:${createHash("sha256").update(Buffer.from(served)).digest("hex")}`,
      split: "page",
    });
    expect(r.json.pages[0].page_sha256).toBe(fee!.provenance.page_sha256);
    // Importing again upserts by fact_id.
    const again = await cli(
      "facts",
      "import-url",
      `${site.origin}/docs/fees`,
      "--store",
      "desk",
      "--fact-id-prefix",
      "fees",
      "--json",
    );
    expect(again.json).toMatchObject({ inserted: 0, updated: 1, total: 1 });
  });

  it("html-table-rows: one fact per data row, header names kept, links made absolute (not followed)", async () => {
    const before = site.hits.get("/docs/tiers/basic") ?? 0;
    const r = await cli(
      "facts",
      "import-url",
      `${site.origin}/docs/fees`,
      "--store",
      "tiers",
      "--split",
      "html-table-rows",
      "--fact-id-prefix",
      "tier",
      "--json",
    );
    expect(r.code, r.out + r.err).toBe(0);
    const facts = await texts("tiers");
    expect(facts.map((f) => [f.fact_id, f.topic, f.text])).toEqual([
      [
        "tier-row-1",
        "Fee tiers",
        `Tier: basic; Rate: 0.3%; Details: Basic tier terms (${site.origin}/docs/tiers/basic)`,
      ],
      ["tier-row-2", "Fee tiers", "Tier: pro; Rate: 0.2%; Details: Pro tier terms (https://partner.example.net/pro)"],
    ]);
    expect(site.hits.get("/docs/tiers/basic") ?? 0).toBe(before);
  });

  it("follows a same-origin redirect and records the final URL", async () => {
    const r = await cli("facts", "import-url", `${site.origin}/moved`, "--store", "moved", "--json");
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.pages[0]).toMatchObject({ url: `${site.origin}/moved`, final_url: `${site.origin}/docs/fees` });
    expect((await texts("moved"))[0]!.provenance.source_url).toBe(`${site.origin}/docs/fees`);
  });

  it("refuses, with nothing written: not http(s), not HTML, too large, too slow, 10,000 rows, a bad store name", async () => {
    for (const url of ["ftp://127.0.0.1/docs", "file:///etc/passwd", "javascript:alert(1)", "docs/fees"]) {
      await refused(["facts", "import-url", url, "--store", "bad-url"], "invalid_url", "bad-url");
    }
    const pdf = await refused(
      ["facts", "import-url", `${site.origin}/files/report.pdf`, "--store", "pdf"],
      "url_not_html",
      "pdf",
    );
    expect(pdf.message).toContain("application/pdf");
    await refused(
      ["facts", "import-url", `${site.origin}/big`, "--store", "big", "--max-bytes", "100000"],
      "url_too_large",
      "big",
    );
    const started = Date.now();
    await refused(
      ["facts", "import-url", `${site.origin}/slow`, "--store", "slow", "--timeout", "1"],
      "url_fetch_timeout",
      "slow",
    );
    expect(Date.now() - started).toBeLessThan(60_000); // the page takes 120 s: the 1 s limit ended it
    const rows = await refused(
      [
        "facts",
        "import-url",
        `${site.origin}/rows/10000`,
        "--store",
        "rows",
        "--split",
        "html-table-rows",
        "--max-bytes",
        "2000000",
      ],
      "url_import_too_many_facts",
      "rows",
    );
    expect(rows.message).toContain("5000");
    expect(
      await cli(
        "facts",
        "import-url",
        `${site.origin}/rows/3`,
        "--store",
        "rows",
        "--split",
        "html-table-rows",
        "--json",
      ),
    ).toMatchObject({ code: 0, json: { imported: 3 } });
    await refused(["facts", "import-url", `${site.origin}/missing`, "--store", "gone"], "url_fetch_failed", "gone");
    await refused(
      ["facts", "import-url", `${site.origin}/docs/limits`, "--store", "no-rows", "--split", "html-table-rows"],
      "html_no_facts",
      "no-rows",
    );
    const hits = site.hits.get("/docs/limits") ?? 0;
    for (const store of ["../escape", "a/b", ".hidden", "x".repeat(65)]) {
      const r = await cli("facts", "import-url", `${site.origin}/docs/limits`, "--store", store, "--json");
      expect(r.json.error.code, store).toBe("invalid_facts_store_name");
    }
    expect(site.hits.get("/docs/limits") ?? 0).toBe(hits);
    expect(existsSync(join(tmp, "escape.json"))).toBe(false);
  });
});

const BOUNDS = [
  "--max-depth",
  "1",
  "--max-urls",
  "10",
  "--max-bytes",
  "1000000",
  "--max-bytes-total",
  "5000000",
  "--timeout",
  "15",
];

describe("edge facts crawl-url", () => {
  it("crawls same-origin links within its bounds; skips non-HTML and missing pages; never leaves the origin", async () => {
    const r = await cli(
      "demo",
      "facts",
      "crawl-url",
      `${site.origin}/docs/`,
      "--store",
      "crawl",
      "--topic",
      "Desk docs",
      "--tags",
      "docs",
      ...BOUNDS,
      "--json",
    );
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.json.pages.map((p: { final_url: string }) => p.final_url)).toEqual([
      `${site.origin}/docs/`,
      `${site.origin}/docs/fees`,
      `${site.origin}/docs/limits`,
    ]);
    // Links come from every static anchor (navigation too): the missing ones are skipped, listed.
    expect(r.json.skipped).toEqual(
      ["/pricing", "/login", "/files/report.pdf", "/docs/missing", "/blog", "/privacy"].map((p) =>
        p.endsWith(".pdf")
          ? { url: `${site.origin}${p}`, code: "url_not_html" }
          : { url: `${site.origin}${p}`, code: "url_fetch_failed", status: 404 },
      ),
    );
    expect(r.json).toMatchObject({ robots_txt_consulted: false, network_used: true });
    // Depth 1: links found on the linked pages (/docs/tiers/basic on the fees page) are not followed.
    expect(site.hits.get("/docs/tiers/basic")).toBeUndefined();
    const facts = await texts("crawl");
    expect(new Set(facts.map((f) => f.provenance.source_url))).toEqual(
      new Set([`${site.origin}/docs/`, `${site.origin}/docs/fees`, `${site.origin}/docs/limits`]),
    );
    expect(facts.find((f) => f.text.includes("60 requests per minute"))).toMatchObject({
      topic: "Desk docs",
      tags: ["docs"],
    });
  });

  it("every bound is required; --max-urls caps the fetches", async () => {
    const before = site.hits.get("/docs/") ?? 0;
    for (let i = 0; i < BOUNDS.length; i += 2) {
      const without = [...BOUNDS.slice(0, i), ...BOUNDS.slice(i + 2)];
      const r = await cli("facts", "crawl-url", `${site.origin}/docs/`, "--store", "unbounded", ...without, "--json");
      expect(r.code, BOUNDS[i]).toBe(2);
      expect(r.json.error.message).toContain(`missing: ${BOUNDS[i]}`);
    }
    expect(site.hits.get("/docs/") ?? 0).toBe(before);
    expect(existsSync(join(tmp, "data", "facts", "unbounded.json"))).toBe(false);
    const capped = await cli(
      "facts",
      "crawl-url",
      `${site.origin}/docs/`,
      "--store",
      "capped",
      ...BOUNDS.slice(0, 2),
      "--max-pages",
      "2",
      ...BOUNDS.slice(4),
      "--json",
    );
    expect(capped.code, capped.out).toBe(0);
    expect(capped.json.pages.length + capped.json.skipped.length).toBe(2);
    const ceiling = await cli(
      "facts",
      "crawl-url",
      `${site.origin}/docs/`,
      "--store",
      "huge",
      ...BOUNDS.slice(0, 2),
      "--max-urls",
      "100000",
      ...BOUNDS.slice(4),
      "--json",
    );
    expect(ceiling.json.error.code).toBe("invalid_option");
  });

  it("fails the whole crawl, writing nothing, on a redirect to another origin or past the total byte bound", async () => {
    const off = await refused(
      ["facts", "crawl-url", `${site.origin}/docs/with-offsite-link`, "--store", "offsite", ...BOUNDS],
      "url_redirect_off_origin",
      "offsite",
    );
    expect(off.message).toContain(other.origin);
    expect(other.hits.size).toBe(0);
    await refused(
      [
        "facts",
        "crawl-url",
        `${site.origin}/docs/`,
        "--store",
        "total",
        ...BOUNDS.slice(0, 6),
        "--max-bytes-total",
        "3000",
        ...BOUNDS.slice(8),
      ],
      "url_too_large",
      "total",
    );
    await refused(["facts", "crawl-url", "ftp://127.0.0.1/docs/", "--store", "ftp", ...BOUNDS], "invalid_url", "ftp");
  });
});

// Through the real CLI (`node bin/edge.cjs`, its own process): a page is one set of facts per store,
// whichever command brought it and however often. A page whose table shrinks keeps no stale rows.
describe("a page is one set of facts per store (updated in place)", () => {
  let rows = 3;
  let changing: Server;
  let changingUrl = "";
  beforeAll(async () => {
    changing = createServer((_req, res) => {
      const body = Array.from(
        { length: rows },
        (_, i) => `<tr><td>P-${i + 1}</td><td>Price ${i + 1}0 EUR</td></tr>`,
      ).join("");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        `<!doctype html><html><head><title>Prices</title></head><body><main><table><tr><th>Plan</th><th>Price</th></tr>${body}</table></main></body></html>`,
      );
    });
    await new Promise<void>((resolve) => changing.listen(0, "127.0.0.1", resolve));
    changingUrl = `http://127.0.0.1:${(changing.address() as AddressInfo).port}/prices`;
  });
  afterAll(() => new Promise<void>((resolve) => changing.close(() => resolve())));

  const data = join(tmp, "one-set");
  const edge = (...argv: string[]) => edgeCli(data, ...argv);
  const storeFacts = async (store: string): Promise<Array<{ fact_id: string; provenance: { source_url: string } }>> => {
    const r = await edge("facts", "list", "--store", store, "--json");
    expect(r.code, r.out + r.err).toBe(0);
    return r.json.facts;
  };

  it("import-url, then crawl-url of the same page: the crawl updates the page's facts, no second set", {
    timeout: 120_000,
  }, async () => {
    const start = `${site.origin}/docs/`;
    const one = await edge("facts", "import-url", start, "--store", "docs", "--json");
    expect(one.code, one.out + one.err).toBe(0);
    const ids = (await storeFacts("docs")).map((f) => f.fact_id);
    expect(ids.length).toBeGreaterThan(0);
    const crawl = await edge("facts", "crawl-url", start, "--store", "docs", ...BOUNDS, "--json");
    expect(crawl.code, crawl.out + crawl.err).toBe(0);
    const after = await storeFacts("docs");
    expect(after.filter((f) => f.provenance.source_url === start).map((f) => f.fact_id)).toEqual(ids);
    // Every fact in the store is the crawl's: one set per page it read.
    expect(after).toHaveLength(crawl.json.total);
    expect(crawl.json.total).toBe(crawl.json.imported);
    // And import-url after the crawl: still the same ids, updated.
    const again = await edge("facts", "import-url", start, "--store", "docs", "--json");
    expect(again.json).toMatchObject({ inserted: 0, updated: ids.length, removed: 0, total: crawl.json.total });
  });

  it("a page whose table lost rows: importing it again removes the rows it no longer has", {
    timeout: 120_000,
  }, async () => {
    rows = 3;
    const first = await edge(
      "facts",
      "import-url",
      changingUrl,
      "--store",
      "prices",
      "--split",
      "html-table-rows",
      "--json",
    );
    expect(first.json, first.out + first.err).toMatchObject({ ok: true, inserted: 3, total: 3 });
    rows = 1;
    const second = await edge(
      "facts",
      "crawl-url",
      changingUrl,
      "--store",
      "prices",
      "--split",
      "html-table-rows",
      ...BOUNDS,
      "--json",
    );
    expect(second.json, second.out + second.err).toMatchObject({
      ok: true,
      inserted: 0,
      updated: 1,
      removed: 2,
      total: 1,
    });
    expect((await storeFacts("prices")).map((f) => f.fact_id)).toHaveLength(1);
    // The same page split another way replaces its facts too (a page is one set, not one per split).
    const asPage = await edge("facts", "import-url", changingUrl, "--store", "prices", "--json");
    expect(asPage.json).toMatchObject({ ok: true, inserted: 1, removed: 1, total: 1 });
  });
});

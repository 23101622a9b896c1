// Local facts: file validation (each bad input a test), import/upsert in the Node store,
// the minisearch lookup through the real ToolRuntime, manifests, and chat sessions whose
// receipts carry rows and tools_manifest_sha256.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createChatSession } from "../chat/session.ts";
import { EdgeError } from "../contract/errors.ts";
import { sha256Bytes } from "../contract/hash.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import { createToolRuntime } from "../runtime/index.ts";
import { FACTS_LIMITS, parseFactsFile } from "./format.ts";
import { importFacts } from "./import.ts";
import { compareWithSchemaExport, validateToolsManifest } from "./manifest.ts";
import type { FactsStore } from "./store.ts";
import { createNodeFactsStore } from "./store-node.ts";
import { factsStoreSurface, toolsManifestSurface } from "./surface.ts";

const EXAMPLES = new URL("../../public/examples/", import.meta.url).pathname;
const exampleFacts = readFileSync(join(EXAMPLES, "facts.json"));
const exampleManifest = readFileSync(join(EXAMPLES, "tools.manifest.json"));

const fact = (id: string, extra: Record<string, unknown> = {}) => ({
  fact_id: id,
  topic: "t",
  text: `text of ${id}`,
  tags: [],
  source_label: "s",
  ...extra,
});
const file = (facts: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ schema_version: "edge.demo.facts.v1", store: "kb", facts, ...extra });

let facts: FactsStore;
beforeEach(() => {
  facts = createNodeFactsStore({ dir: mkdtempSync(join(tmpdir(), "edge-facts-")) });
});

async function engine(outputs: string[]): Promise<ScriptedEngine> {
  const e = new ScriptedEngine(outputs);
  await e.load();
  return e;
}

describe("facts file validation (nothing is imported from a bad file)", () => {
  it("accepts the example file", () => {
    const r = parseFactsFile(exampleFacts);
    expect(r.ok && r.file.facts.length).toBe(7);
  });

  it("refuses a wrong schema_version", async () => {
    const r = parseFactsFile(file([fact("a")], { schema_version: "edge.demo.facts.v2" }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors[0]).toMatchObject({ code: "invalid_facts_file", at: "schema_version" });
    await expect(importFacts(facts, file([fact("a")], { schema_version: "v0" }))).rejects.toMatchObject({
      code: "invalid_facts_file",
    });
    expect(await facts.list()).toEqual([]);
  });

  it("refuses a duplicate fact_id inside one file, naming both places", () => {
    const r = parseFactsFile(file([fact("a"), fact("b"), fact("a")]));
    expect(!r.ok && r.errors).toEqual([
      expect.objectContaining({ code: "invalid_facts_file", at: "facts[2].fact_id" }),
    ]);
    expect(!r.ok && r.errors[0]!.message).toMatch(/duplicate fact_id "a" \(also facts\[0\]\)/);
  });

  it("refuses a fact without text, and reports every problem at once", () => {
    const noText = fact("a");
    delete (noText as Record<string, unknown>).text;
    const r = parseFactsFile(file([noText, fact("b", { tags: "x" }), fact("c", { colour: "red" })]));
    expect(!r.ok && r.errors.map((e) => e.at)).toEqual(["facts[0].text", "facts[1].tags", "facts[2].colour"]);
  });

  it("keeps a valid provenance and refuses a malformed one", () => {
    const provenance = {
      source_url: "https://docs.example.org/fees",
      page_sha256: `sha256:${"b".repeat(64)}`,
      fetched_at: "2026-01-01T00:00:00Z",
      split: "page",
    };
    const ok = parseFactsFile(file([fact("a", { provenance })]));
    expect(ok.ok && ok.file.facts[0]!.provenance).toEqual(provenance);
    const bad = parseFactsFile(
      file([fact("a", { provenance: { source_url: "https://x", page_sha256: "abc", via: "?" } })]),
    );
    expect(bad.ok ? [] : bad.errors.map((e) => e.at)).toEqual([
      "facts[0].provenance.via",
      "facts[0].provenance.page_sha256",
    ]);
  });

  it("refuses 50 MB of facts before parsing it (facts_file_too_large) and leaves the store as it was", async () => {
    await importFacts(facts, file([fact("keep")]));
    const big = file(Array.from({ length: 5000 }, (_, i) => fact(`f${i}`, { text: "x".repeat(10_000) })));
    expect(big.length).toBeGreaterThan(FACTS_LIMITS.fileBytes);
    const fifty = new Uint8Array(50 * 1024 * 1024).fill(0x20);
    expect(parseFactsFile(fifty)).toMatchObject({
      ok: false,
      errors: [{ code: "facts_file_too_large", bytes: 50 * 1024 * 1024 }],
    });
    await expect(importFacts(facts, big)).rejects.toMatchObject({ code: "facts_file_too_large" });
    expect((await facts.facts("kb")).map((f) => f.fact_id)).toEqual(["keep"]);
  });

  it("a file with one bad fact among good ones imports nothing", async () => {
    await expect(importFacts(facts, file([fact("a"), fact("b", { text: "" })]))).rejects.toMatchObject({
      code: "invalid_facts_file",
      details: { errors: [expect.objectContaining({ at: "facts[1].text" })] },
    });
    await expect(facts.facts("kb")).rejects.toMatchObject({ code: "facts_store_not_found" });
  });
});

describe("facts store (Node adapter)", () => {
  it("upserts by fact_id, counts inserted/updated, exports an importable file", async () => {
    const first = await importFacts(facts, file([fact("a"), fact("b")]));
    expect(first).toMatchObject({ store: "kb", imported: 2, inserted: 2, updated: 0, total: 2, revision: 1 });
    const second = await importFacts(facts, file([fact("b", { text: "new b" }), fact("c")]));
    expect(second).toMatchObject({ inserted: 1, updated: 1, total: 3, revision: 2 });
    expect(second.facts_file_sha256).toBe(
      await sha256Bytes(new TextEncoder().encode(file([fact("b", { text: "new b" }), fact("c")]))),
    );
    const exported = await facts.export("kb");
    expect(exported.facts.map((f) => [f.fact_id, f.text])).toEqual([
      ["a", "text of a"],
      ["b", "new b"],
      ["c", "text of c"],
    ]);
    // Round trip: the export is a valid facts file.
    expect(parseFactsFile(JSON.stringify(exported)).ok).toBe(true);
  });

  it("imports into another store with options.store, lists, inspects and deletes", async () => {
    await importFacts(facts, exampleFacts, { store: "other" });
    expect((await facts.list()).map((s) => [s.store, s.facts, s.topics])).toEqual([["other", 7, 5]]);
    const detail = await facts.inspect("other");
    expect(detail.topic_counts[0]).toEqual({ topic: "refunds", facts: 2 });
    expect(detail.tag_counts[0]).toEqual({ tag: "billing", facts: 3 });
    expect(await facts.delete("other")).toEqual({ store: "other", deleted: 7 });
    expect(await facts.list()).toEqual([]);
    await expect(facts.inspect("other")).rejects.toMatchObject({ code: "facts_store_not_found" });
    await expect(facts.delete("other")).rejects.toMatchObject({ code: "facts_store_not_found" });
    // A deleted then re-imported store never reuses a revision.
    expect((await importFacts(facts, exampleFacts, { store: "other" })).revision).toBe(3);
  });

  it("refuses store names that are not plain file names", async () => {
    await expect(importFacts(facts, exampleFacts, { store: "../etc" })).rejects.toMatchObject({
      code: "invalid_facts_store_name",
    });
    await expect(facts.inspect(".hidden")).rejects.toMatchObject({ code: "invalid_facts_store_name" });
  });
});

describe("local_facts_lookup through the ToolRuntime", () => {
  async function runtimeWithLookup() {
    await importFacts(facts, exampleFacts);
    const runtime = createToolRuntime();
    (await factsStoreSurface(facts, "support")).register(runtime);
    let n = 0;
    return (args: Record<string, unknown>) =>
      runtime.execute({ id: `c${n++}`, name: "local_facts_lookup", args: args as never });
  }

  it("ranks with the full-text index: fuzzy and prefix matching, topic/tags boosted", async () => {
    const call = await runtimeWithLookup();
    const r = await call({ query: "refnd", limit: 2 }); // typo: fuzzy
    expect(r.status).toBe("ok");
    const result = r.result as { rows: number; matches: { fact_id: string; score: number }[] };
    expect(result.rows).toBe(2);
    expect(result.matches.map((m) => m.fact_id).sort()).toEqual(["refund-processing", "refund-window"]);
    expect(Object.keys(result.matches[0]!).sort()).toEqual([
      "fact_id",
      "score",
      "source_label",
      "tags",
      "text",
      "topic",
    ]);
    const prefix = (await call({ query: "logist" })).result as { matches: { fact_id: string }[] };
    expect(prefix.matches.map((m) => m.fact_id).sort()).toEqual(["shipping-eu", "shipping-free"]);
    // "pricing" is a tag of two facts and a word of none: the tag field is indexed and boosted.
    const tagged = (await call({ query: "pricing" })).result as { matches: { fact_id: string }[] };
    expect(tagged.matches.map((m) => m.fact_id).sort()).toEqual(["plan-pro-seats", "shipping-free"]);
  });

  it("filters by topic, alone or with a query; nothing found is a normal empty result", async () => {
    const call = await runtimeWithLookup();
    const byTopic = (await call({ topic: "Shipping" })).result as { rows: number; matches: { topic: string }[] };
    expect(byTopic.rows).toBe(2);
    expect(byTopic.matches.every((m) => m.topic === "shipping")).toBe(true);
    const both = (await call({ query: "days", topic: "refunds" })).result as { matches: { fact_id: string }[] };
    expect(both.matches.map((m) => m.fact_id).sort()).toEqual(["refund-processing", "refund-window"]);
    expect((await call({ query: "zebra quantum" })).result).toEqual({ rows: 0, matches: [] });
  });

  it("a lookup with no arguments fails closed with a clear invalid_tool_args", async () => {
    const call = await runtimeWithLookup();
    const r = await call({});
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "invalid_tool_args" });
    expect(r.error!.message).toMatch(/needs a query, a topic, or both/);
  });

  it("limit: 10000 and a 100 KB query are refused by the schema before the body runs", async () => {
    const call = await runtimeWithLookup();
    expect((await call({ query: "refund", limit: 10000 })).error).toMatchObject({ code: "invalid_tool_args" });
    const huge = await call({ query: "refund ".repeat(15_000) });
    expect(huge.error).toMatchObject({ code: "invalid_tool_args" });
    expect(huge.stages?.some((s) => s.stage === "body")).toBeFalsy();
  });

  it("sees a re-import made during the session (index rebuilt on a new revision)", async () => {
    const call = await runtimeWithLookup();
    expect(((await call({ query: "teleport" })).result as { rows: number }).rows).toBe(0);
    await importFacts(
      facts,
      JSON.stringify({
        schema_version: "edge.demo.facts.v1",
        store: "support",
        facts: [fact("tp", { text: "Teleport orders arrive instantly." })],
      }),
    );
    expect(
      ((await call({ query: "teleport" })).result as { matches: { fact_id: string }[] }).matches.map((m) => m.fact_id),
    ).toEqual(["tp"]);
  });

  it("a missing store is facts_store_not_found when the session starts", async () => {
    await expect(factsStoreSurface(facts, "nope")).rejects.toMatchObject({ code: "facts_store_not_found" });
  });
});

describe("tools manifests", () => {
  const manifest = (tools: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({ schema_version: "edge.demo.tools.manifest.v1", tools, ...extra });
  const tool = (extra: Record<string, unknown> = {}) => ({
    name: "kb",
    kind: "local_facts_lookup",
    store: "support",
    description: "Look things up.",
    ...extra,
  });

  it("validates the example and hashes its raw bytes", async () => {
    const r = await validateToolsManifest(exampleManifest);
    expect(r).toMatchObject({
      ok: true,
      tool_count: 1,
      errors: [],
      tools: [{ name: "support_kb", kind: "local_facts_lookup", store: "support" }],
    });
    expect(r.tools_manifest_sha256).toBe(await sha256Bytes(exampleManifest));
    expect(r.active_set_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('refuses kind: "python"', async () => {
    const r = await validateToolsManifest(manifest([tool({ kind: "python" })]));
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([expect.objectContaining({ code: "invalid_tools_manifest", tool: "kb" })]);
    expect(r.errors[0]!.message).toMatch(/kind "python" is not supported/);
  });

  it("refuses a bad name and two tools with one name, with the table's codes", async () => {
    expect((await validateToolsManifest(manifest([tool({ name: "9 lives" })]))).errors).toEqual([
      expect.objectContaining({ code: "invalid_tool_name" }),
    ]);
    expect((await validateToolsManifest(manifest([tool(), tool({ store: "other" })]))).errors).toEqual([
      expect.objectContaining({ code: "duplicate_tool_name", tool: "kb" }),
    ]);
  });

  it("refuses more than 8 tools, unknown fields and a wrong schema_version", async () => {
    const nine = Array.from({ length: 9 }, (_, i) => tool({ name: `kb${i}` }));
    expect((await validateToolsManifest(manifest(nine))).errors.map((e) => e.code)).toEqual([
      "active_tool_limit_exceeded",
    ]);
    expect((await validateToolsManifest(manifest([tool({ extra: 1 })]))).ok).toBe(false);
    expect((await validateToolsManifest(manifest([tool()], { schema_version: "x" }))).errors[0]!.code).toBe(
      "invalid_tools_manifest",
    );
  });

  it("warns tool_schema_export_name_mismatch against a learn sample's export", async () => {
    const r = await validateToolsManifest(manifest([tool({ name: "kb" })]));
    expect(compareWithSchemaExport(r, { tool_schema_export: [{ name: "kb" }] })).toEqual([]);
    expect(compareWithSchemaExport(r, { tool_schema_export: { tools: [{ function: { name: "kb" } }] } })).toEqual([]);
    const w = compareWithSchemaExport(r, { tool_schema_export: [{ name: "knowledge" }] });
    expect(w.map((x) => [x.code, x.tool])).toEqual([
      ["tool_schema_export_name_mismatch", "knowledge"],
      ["tool_schema_export_name_mismatch", "kb"],
    ]);
  });
});

describe("chat sessions over facts", () => {
  it("--facts-store: the scripted model's call is answered by local_facts_lookup; the receipt carries rows", async () => {
    await importFacts(facts, exampleFacts);
    const session = await createChatSession({
      tools: { kind: "surface", surface: await factsStoreSurface(facts, "support") },
      engine: await engine([
        '{"tool_name": "local_facts_lookup", "arguments": {"query": "refund window", "limit": 3}}',
        "You have 30 days.",
      ]),
    });
    const run = await session.chat("How long can I ask for a refund?");
    expect(run.outcome).toBe("answered");
    const call = run.receipt.calls[0]!;
    expect(call).toMatchObject({ tool_name: "local_facts_lookup", status: "ok", execution_level: "read", rows: 2 });
    expect(run.receipt.calls).toHaveLength(1);
    expect(call.args_sha256).toMatch(/^sha256:/);
    expect(call.result_sha256).toMatch(/^sha256:/);
    expect(call.tool_schema_sha256).toMatch(/^sha256:/);
    expect(run.receipt.schema_generator_version).toBe("edge.facts.lookup.v1");
    expect(run.receipt.tools_manifest_sha256).toBeUndefined();
  });

  it("--tools-manifest: the lookup answers under the developer's name; the receipt carries tools_manifest_sha256", async () => {
    await importFacts(facts, exampleFacts);
    const surface = await toolsManifestSurface(facts, exampleManifest);
    const session = await createChatSession({
      tools: { kind: "surface", surface },
      engine: await engine(['{"tool_name": "support_kb", "arguments": {"query": "seats"}}', "10 seats."]),
    });
    expect(session.contract).toContain("support_kb");
    expect(session.contract).not.toContain('local_facts_lookup"');
    const run = await session.chat("How many seats in Pro?");
    expect(run.receipt.calls[0]).toMatchObject({ tool_name: "support_kb", rows: 1, status: "ok" });
    expect(run.receipt.tools_manifest_sha256).toBe(await sha256Bytes(exampleManifest));
    expect(run.receipt.active_set_sha256).toBe(surface.active_set_sha256);
  });

  it("a manifest naming a store that does not exist is refused before the session starts", async () => {
    await expect(toolsManifestSurface(facts, exampleManifest)).rejects.toMatchObject({ code: "facts_store_not_found" });
    await expect(
      toolsManifestSurface(facts, '{"schema_version":"edge.demo.tools.manifest.v1","tools":[]}'),
    ).rejects.toBeInstanceOf(EdgeError);
  });

  it("tools, toolsManifest and factsStore stay mutually exclusive", async () => {
    await importFacts(facts, exampleFacts);
    const a = await factsStoreSurface(facts, "support");
    const b = await toolsManifestSurface(facts, exampleManifest);
    // Two sources do not type-check; a plain-JS caller passing them the old way is refused.
    const e = await engine([]);
    // @ts-expect-error the retired keys factsStore and toolsManifest
    await expect(createChatSession({ factsStore: a, toolsManifest: b, engine: e })).rejects.toMatchObject({
      code: "conflicting_tool_options",
    });
  });
});

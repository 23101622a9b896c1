// `edge facts …`, `edge tools validate MANIFEST.json` and `edge chat --facts-store|--tools-manifest`:
// exit codes and JSON shapes, against stores under a temporary $EDGE_DATA_DIR.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { EXAMPLES, cli, writeTestFile } from "./cli-test-helpers.ts";

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), "edge-facts-cli-"));
  process.env.EDGE_DATA_DIR = join(tmp, "data");
});


const file = (name: string, value: unknown): string => writeTestFile(tmp, name, value);

describe("edge facts", () => {
  it("import --json, list, inspect, export, delete", async () => {
    const imp = await cli("facts", "import", join(EXAMPLES, "facts.json"), "--json");
    expect(imp.code).toBe(0);
    expect(imp.json).toMatchObject({ ok: true, store: "support", imported: 7, inserted: 7, updated: 0, total: 7 });
    const again = await cli("facts", "import", join(EXAMPLES, "facts.json"), "--store", "copy", "--json");
    expect(again.json).toMatchObject({ store: "copy", file_store: "support", inserted: 7 });
    expect((await cli("facts", "list", "--json")).json.stores.map((s: { store: string }) => s.store)).toEqual(["copy", "support"]);
    expect((await cli("facts", "inspect", "support", "--json")).json).toMatchObject({ facts: 7, topics: 5 });
    const exp = await cli("facts", "export", "support");
    expect(exp.json).toMatchObject({ schema_version: "edge.demo.facts.v1", store: "support" });
    expect(exp.json.facts).toHaveLength(7);
    expect((await cli("facts", "delete", "copy", "--json")).json).toEqual({ ok: true, store: "copy", deleted: 7 });
    const gone = await cli("facts", "inspect", "copy", "--json");
    expect(gone.code).toBe(1);
    expect(gone.json.error.code).toBe("facts_store_not_found");
  });

  it("a bad file exits 1 with every problem and imports nothing", async () => {
    const bad = file("bad.json", { schema_version: "edge.demo.facts.v1", store: "kb", facts: [{ fact_id: "a", topic: "t" }, { fact_id: "a", topic: "t", text: "x" }] });
    const r = await cli("facts", "import", bad, "--json");
    expect(r.code).toBe(1);
    expect(r.json.errors.map((e: { at: string }) => e.at)).toEqual(["facts[0].text", "facts[1].fact_id"]);
    expect((await cli("facts", "list", "--json")).json.stores).toEqual([]);
    const text = await cli("facts", "import", bad);
    expect(text.err).toMatch(/was not imported \(nothing changed\)/);
    expect((await cli("facts", "frobnicate")).code).toBe(2);
  });
});

describe("edge tools validate MANIFEST.json", () => {
  it("validates the example manifest without a runner (exit 0)", async () => {
    const r = await cli("tools", "validate", join(EXAMPLES, "tools.manifest.json"), "--json");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, kind: "tools_manifest", tool_count: 1, errors: [], warnings: [] });
    expect(r.json.tools_manifest_sha256).toMatch(/^sha256:/);
  });

  it('refuses kind "python" (exit 1) and warns about a learn sample whose export names other tools', async () => {
    const py = file("py.json", { schema_version: "edge.demo.tools.manifest.v1", tools: [{ name: "fee", kind: "python", store: "s", description: "d" }] });
    const r = await cli("tools", "validate", py, "--json");
    expect(r.code).toBe(1);
    expect(r.json.errors[0].code).toBe("invalid_tools_manifest");
    const sample = file("sample.json", { sample_id: "s1", tool_schema_export: [{ name: "kb_lookup" }] });
    const w = await cli("tools", "validate", join(EXAMPLES, "tools.manifest.json"), "--learn-sample", sample, "--json");
    expect(w.code).toBe(0);
    expect(w.json.warnings.map((x: { code: string; tool: string }) => [x.code, x.tool])).toEqual([
      ["tool_schema_export_name_mismatch", "kb_lookup"],
      ["tool_schema_export_name_mismatch", "support_kb"],
    ]);
  });
});

describe("edge chat over facts (scripted engine)", () => {
  it("--facts-store: the receipt's call entry carries rows", async () => {
    await cli("facts", "import", join(EXAMPLES, "facts.json"));
    const script = file("script.json", ['{"tool_name": "local_facts_lookup", "arguments": {"query": "support hours"}}', "Weekdays 9 to 18."]);
    const r = await cli("chat", "--facts-store", "support", "--prompt", "When is support open?", "--engine", "scripted", "--script", script, "--json");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, outcome: "answered", answer: "Weekdays 9 to 18." });
    expect(r.json.receipt.calls[0]).toMatchObject({ tool_name: "local_facts_lookup", status: "ok" });
    expect(r.json.receipt.calls[0].rows).toBeGreaterThan(0);
    expect((await cli("receipts", "list", "--json")).json).toMatchObject({ ok: true, count: 1 });
  });

  it("--tools-manifest: the developer's name, tools_manifest_sha256 in the receipt; a missing store fails", async () => {
    const script = file("script.json", ['{"tool_name": "support_kb", "arguments": {"topic": "shipping"}}', "3 to 5 days."]);
    const missing = await cli("chat", "--tools-manifest", join(EXAMPLES, "tools.manifest.json"), "--prompt", "q", "--engine", "scripted", "--script", script, "--json");
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe("facts_store_not_found");
    await cli("facts", "import", join(EXAMPLES, "facts.json"));
    const r = await cli("chat", "--tools-manifest", join(EXAMPLES, "tools.manifest.json"), "--prompt", "Shipping?", "--engine", "scripted", "--script", script, "--json");
    expect(r.code).toBe(0);
    expect(r.json.receipt.calls[0]).toMatchObject({ tool_name: "support_kb", rows: 2 });
    expect(r.json.receipt.tools_manifest_sha256).toMatch(/^sha256:/);
  });

  it("--facts-store with --tools-manifest is conflicting_tool_options", async () => {
    const script = file("script.json", ["hi"]);
    const r = await cli("chat", "--facts-store", "support", "--tools-manifest", join(EXAMPLES, "tools.manifest.json"), "--prompt", "q", "--engine", "scripted", "--script", script, "--json");
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("conflicting_tool_options");
  });
});

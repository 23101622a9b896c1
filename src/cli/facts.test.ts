// `edge facts …`, `edge tools validate MANIFEST.json` and `edge chat --facts-store|--tools-manifest`:
// exit codes and JSON shapes, against stores under a temporary $EDGE_DATA_DIR.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { EXAMPLES, cli, writeTestFile } from "../../test/cli.ts";

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
    expect((await cli("facts", "list", "--json")).json.stores.map((s: { store: string }) => s.store)).toEqual([
      "copy",
      "support",
    ]);
    expect((await cli("facts", "stores", "--json")).json.stores.map((s: { store: string }) => s.store)).toEqual([
      "copy",
      "support",
    ]);
    expect((await cli("facts", "inspect", "--store", "support", "--json")).json).toMatchObject({ facts: 7, topics: 5 });
    const exp = await cli("facts", "export", "support");
    expect(exp.json).toMatchObject({ schema_version: "edge.demo.facts.v1", store: "support" });
    expect(exp.json.facts).toHaveLength(7);
    expect((await cli("facts", "delete", "copy", "--json")).json).toEqual({ ok: true, store: "copy", deleted: 7 });
    const gone = await cli("facts", "inspect", "--store", "copy", "--json");
    expect(gone.code).toBe(1);
    expect(gone.json.error.code).toBe("facts_store_not_found");
  });

  it("facts by store, as Edge Studio documents: list --store and inspect FACT_ID --store, hash-first", async () => {
    expect((await cli("demo", "facts", "import", join(EXAMPLES, "facts.json"), "--store", "kb", "--json")).code).toBe(
      0,
    );
    const list = await cli("demo", "facts", "list", "--store", "kb", "--json");
    expect(list.code).toBe(0);
    expect(list.json).toMatchObject({ ok: true, store: "kb", count: 7 });
    const refund = list.json.facts.find((f: { fact_id: string }) => f.fact_id === "refund-window");
    expect(Object.keys(refund).sort()).toEqual([
      "fact_id",
      "source_label",
      "tags",
      "text_chars",
      "text_sha256",
      "topic",
    ]);
    expect(refund).toMatchObject({
      topic: "refunds",
      tags: ["billing", "policy"],
      source_label: "Refund policy v3",
      text_sha256: expect.stringMatching(/^sha256:/),
    });
    const withText = await cli("facts", "list", "--store", "kb", "--include-text", "--json");
    expect(withText.json.facts.find((f: { fact_id: string }) => f.fact_id === "refund-window").text).toMatch(
      /within 30 days/,
    );
    expect((await cli("facts", "list", "--store", "kb")).out).toMatch(
      /refund-window\s+refunds\s+billing,policy\s+Refund policy v3/,
    );

    const one = await cli("demo", "facts", "inspect", "refund-window", "--store", "kb", "--include-text", "--json");
    expect(one.code).toBe(0);
    expect(one.json).toMatchObject({
      ok: true,
      store: "kb",
      fact: { fact_id: "refund-window", text: expect.stringMatching(/30 days/) },
    });
    const hashed = await cli("facts", "inspect", "refund-window", "--store", "kb", "--json");
    expect(hashed.json.fact).not.toHaveProperty("text");
    const missing = await cli("facts", "inspect", "no-such-fact", "--store", "kb", "--json");
    expect(missing).toMatchObject({ code: 1, json: { error: { code: "fact_not_found" } } });
    // The old positional store form is a usage error that says what to write now.
    const old = await cli("facts", "inspect", "kb");
    expect(old.code).toBe(2);
    expect(old.err).toContain("--store");
    // A store name with path characters is refused before anything is read or written.
    const traversal = await cli("facts", "list", "--store", "../../etc", "--json");
    expect(traversal).toMatchObject({ code: 1, json: { error: { code: "invalid_facts_store_name" } } });
    expect((await cli("facts", "delete", "--store", "kb", "--json")).json).toEqual({
      ok: true,
      store: "kb",
      deleted: 7,
    });
  });

  it("a bad file exits 1 with every problem and imports nothing", async () => {
    const bad = file("bad.json", {
      schema_version: "edge.demo.facts.v1",
      store: "kb",
      facts: [
        { fact_id: "a", topic: "t" },
        { fact_id: "a", topic: "t", text: "x" },
      ],
    });
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
    const py = file("py.json", {
      schema_version: "edge.demo.tools.manifest.v1",
      tools: [{ name: "fee", kind: "python", store: "s", description: "d" }],
    });
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
    const script = file("script.json", [
      '{"tool_name": "local_facts_lookup", "arguments": {"query": "support hours"}}',
      "Weekdays 9 to 18.",
    ]);
    const r = await cli(
      "chat",
      "--facts-store",
      "support",
      "--prompt",
      "When is support open?",
      "--engine",
      "scripted",
      "--script",
      script,
      "--json",
    );
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, outcome: "answered", answer: "Weekdays 9 to 18." });
    expect(r.json.receipt.calls[0]).toMatchObject({ tool_name: "local_facts_lookup", status: "ok" });
    expect(r.json.receipt.calls[0].rows).toBeGreaterThan(0);
    expect((await cli("receipts", "list", "--json")).json).toMatchObject({ ok: true, count: 1 });
  });

  it("--tools-manifest: the developer's name, tools_manifest_sha256 in the receipt; a missing store fails", async () => {
    const script = file("script.json", [
      '{"tool_name": "support_kb", "arguments": {"topic": "shipping"}}',
      "3 to 5 days.",
    ]);
    const missing = await cli(
      "chat",
      "--tools-manifest",
      join(EXAMPLES, "tools.manifest.json"),
      "--prompt",
      "q",
      "--engine",
      "scripted",
      "--script",
      script,
      "--json",
    );
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe("facts_store_not_found");
    await cli("facts", "import", join(EXAMPLES, "facts.json"));
    const r = await cli(
      "chat",
      "--tools-manifest",
      join(EXAMPLES, "tools.manifest.json"),
      "--prompt",
      "Shipping?",
      "--engine",
      "scripted",
      "--script",
      script,
      "--json",
    );
    expect(r.code).toBe(0);
    expect(r.json.receipt.calls[0]).toMatchObject({ tool_name: "support_kb", rows: 2 });
    expect(r.json.receipt.tools_manifest_sha256).toMatch(/^sha256:/);
  });

  it("--facts-store with --tools-manifest is conflicting_tool_options", async () => {
    const script = file("script.json", ["hi"]);
    const r = await cli(
      "chat",
      "--facts-store",
      "support",
      "--tools-manifest",
      join(EXAMPLES, "tools.manifest.json"),
      "--prompt",
      "q",
      "--engine",
      "scripted",
      "--script",
      script,
      "--json",
    );
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("conflicting_tool_options");
  });
});

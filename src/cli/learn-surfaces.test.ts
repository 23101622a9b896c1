// Imprints with local facts and manifests, and the learn-sample tooling:
// `edge learn run --facts-store|--tools-manifest`, restore in `edge chat` under the same gates,
// a profile-only imprint joined with a facts store, `--with-imprint LEARN_RECEIPT`,
// `learn run --dry-run`, `learn sample init`, and unstable fact corrections skipped.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXAMPLES, cli, writeTestFile } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-learn-surfaces-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");
const file = (name: string, value: unknown): string => writeTestFile(tmp, name, value);
const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });
const MANIFEST = join(EXAMPLES, "tools.manifest.json");

/** A sample for the facts lookup, scored on one question. */
function factsSample(toolName: string, extra: Record<string, unknown> = {}): string {
  return file(`sample-${toolName}.json`, {
    schema_version: "edge.demo.learn.sample.v1",
    sample_id: `support_${toolName}_v1`,
    peer_id: "support-peer",
    app_id: "com.example.support",
    base_model_id: "scripted-demo",
    question: "Can I still get a refund?",
    questions: [{ question: "Can I still get a refund?", expected_tool: toolName }],
    records: [{ record_id: "style-1", kind: "answer_style", text: "Answer in one sentence, citing the policy." }],
    tool_schema_export: { schema_version: "edgestudio.tool_schema_export.v1", tools: [{ name: toolName }] },
    expected_tool_policy: { tools_available: [{ name: toolName, when: "Any policy question." }] },
    ...extra,
  });
}

const LOOKUP = (name: string) => call(name, { query: "refund days" });

beforeAll(async () => {
  expect((await cli("facts", "import", join(EXAMPLES, "facts.json"), "--json")).code).toBe(0);
});

describe("imprints learned with a facts store or a tools manifest", () => {
  it("--facts-store: learn binds the lookup; chat restores it with the same store, refuses other surfaces", async () => {
    const script = file("eval-facts.json", ["It depends.", LOOKUP("local_facts_lookup")]);
    const learned = await cli(
      "learn",
      "run",
      "--sample-file",
      factsSample("local_facts_lookup"),
      "--facts-store",
      "support",
      "--engine",
      "scripted",
      "--script",
      script,
      "--json",
    );
    expect(learned.code, learned.out + learned.err).toBe(0);
    expect(learned.json).toMatchObject({
      ok: true,
      tool_surface: "facts_store",
      evaluation: { scored: 1, matched_with_prefix: 1 },
      warnings: [],
    });
    const id: string = learned.json.imprint_id;
    const show = await cli("imprints", "show", id, "--json");
    expect(show.json.imprint.tools).toMatchObject({
      surface: "facts_store",
      facts_store: "support",
      schema_generator_version: "edge.facts.lookup.v1",
      tools_file_sha256: null,
    });
    expect(Object.keys(show.json.imprint.tools.tool_schema_sha256)).toEqual(["local_facts_lookup"]);

    const chatScript = file("chat-facts.json", [LOOKUP("local_facts_lookup"), "Within 30 days."]);
    const chat = await cli(
      "chat",
      "--with-imprint",
      id,
      "--facts-store",
      "support",
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "Can I still get a refund?",
      "--json",
    );
    expect(chat.code, chat.out).toBe(0);
    expect(chat.json.receipt).toMatchObject({
      tool_instruction_mode: "imprint",
      imprint_id: id,
      tool_surface: "facts_store",
      facts_store: "support",
      tool_instruction_sha256: learned.json.prefix_sha256,
    });
    expect(chat.json.receipt.calls[0]).toMatchObject({ tool_name: "local_facts_lookup", status: "ok" });
    expect(chat.json.receipt.calls[0].rows).toBeGreaterThan(0);

    // The same imprint with no tools, or with a manifest (another surface, other names), fails closed.
    const bare = await cli(
      "chat",
      "--with-imprint",
      id,
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "x",
      "--json",
    );
    expect(bare.json.error.code).toBe("imprint_requires_tools");
    expect(bare.json.error.message).toContain("--facts-store");
    const other = await cli(
      "chat",
      "--with-imprint",
      id,
      "--tools-manifest",
      MANIFEST,
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "x",
      "--json",
    );
    expect(other.json.error.code).toBe("imprint_tool_active_set_mismatch");
    expect(other.json.error.message).toContain("facts store");

    // Another store has another lookup description, so another schema.
    expect((await cli("facts", "import", join(EXAMPLES, "facts.json"), "--store", "support2", "--json")).code).toBe(0);
    const otherStore = await cli(
      "chat",
      "--with-imprint",
      id,
      "--facts-store",
      "support2",
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "x",
      "--json",
    );
    expect(otherStore.json.error.code).toBe("imprint_tool_schema_mismatch");
  });

  it("--tools-manifest: learn and restore under the manifest's name; a learn receipt path works as --with-imprint", async () => {
    const script = file("eval-manifest.json", ["It depends.", LOOKUP("support_kb")]);
    const learned = await cli(
      "learn",
      "run",
      "--sample-file",
      factsSample("support_kb"),
      "--tools-manifest",
      MANIFEST,
      "--engine",
      "scripted",
      "--script",
      script,
      "--include-text",
      "--json",
    );
    expect(learned.code, learned.out + learned.err).toBe(0);
    expect(learned.json.tool_surface).toBe("tools_manifest");
    expect(learned.json.prefix).toContain("support_kb");
    expect(existsSync(learned.json.receipt_path)).toBe(true);
    const receipt = JSON.parse(readFileSync(learned.json.receipt_path, "utf8"));
    expect(receipt).toMatchObject({
      kind: "learn",
      imprint_id: learned.json.imprint_id,
      tool_surface: "tools_manifest",
      tools_manifest_sha256: expect.stringMatching(/^sha256:/),
    });

    const chatScript = file("chat-manifest.json", [LOOKUP("support_kb"), "Within 30 days."]);
    const chat = await cli(
      "chat",
      "--with-imprint",
      learned.json.receipt_path,
      "--tools-manifest",
      MANIFEST,
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "Refund?",
      "--json",
    );
    expect(chat.code, chat.out).toBe(0);
    expect(chat.json.receipt).toMatchObject({
      tool_instruction_mode: "imprint",
      imprint_id: learned.json.imprint_id,
      tool_surface: "tools_manifest",
    });

    // A receipt whose imprint id was edited no longer matches its own hash.
    const edited = file("edited-receipt.json", { ...receipt, imprint_id: "imp_000000000000000000000000" });
    const refused = await cli(
      "chat",
      "--with-imprint",
      edited,
      "--tools-manifest",
      MANIFEST,
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "x",
      "--json",
    );
    expect(refused.json.error.code).toBe("imprint_corrupted");
  });

  it("a profile-only imprint joins a facts store: the lookup's contract is injected and the receipt says so", async () => {
    const sample = factsSample("none", { questions: [], tool_schema_export: null, expected_tool_policy: null });
    const learned = await cli(
      "learn",
      "run",
      "--sample-file",
      sample,
      "--engine",
      "scripted",
      "--no-evaluate",
      "--json",
    );
    expect(learned.code, learned.out + learned.err).toBe(0);
    expect(learned.json.tool_surface).toBeNull();
    const chatScript = file("chat-combined.json", [LOOKUP("local_facts_lookup"), "Within 30 days."]);
    const chat = await cli(
      "chat",
      "--with-imprint",
      learned.json.imprint_id,
      "--facts-store",
      "support",
      "--engine",
      "scripted",
      "--script",
      chatScript,
      "--prompt",
      "Refund?",
      "--json",
    );
    expect(chat.code, chat.out).toBe(0);
    expect(chat.json.receipt).toMatchObject({
      tool_instruction_mode: "imprint_with_contract",
      imprint_id: learned.json.imprint_id,
      tool_surface: "facts_store",
      facts_store: "support",
    });
    expect(chat.json.receipt.tool_instruction_sha256).not.toBe(learned.json.prefix_sha256);
    expect(chat.json.receipt.calls[0]).toMatchObject({ tool_name: "local_facts_lookup", status: "ok" });
    // …and a manifest.
    const viaManifest = await cli(
      "chat",
      "--with-imprint",
      learned.json.imprint_id,
      "--tools-manifest",
      MANIFEST,
      "--engine",
      "scripted",
      "--script",
      file("c2.json", [LOOKUP("support_kb"), "ok"]),
      "--prompt",
      "Refund?",
      "--json",
    );
    expect(viaManifest.json.receipt).toMatchObject({
      tool_instruction_mode: "imprint_with_contract",
      tool_surface: "tools_manifest",
    });
  });
});

describe("learn-sample tooling", () => {
  it("run --dry-run prints the plan without a model and writes nothing; an unstable fact_correction is skipped", async () => {
    const corrections = [
      {
        peer_id: "support-peer",
        correction_type: "fact_correction",
        target: { fact_id: "refund-window" },
        correction: { days: 30 },
      },
      {
        peer_id: "support-peer",
        correction_type: "fact_correction",
        target: { fact_id: "support-hours" },
        correction: { hours: "9-17" },
      },
      {
        peer_id: "support-peer",
        correction_type: "fact_correction",
        target: { fact_id: "support-hours" },
        correction: { hours: "9-17" },
      },
      {
        peer_id: "support-peer",
        correction_type: "profile_correction",
        target: { profile_field: "tone" },
        correction: { tone: "brief" },
      },
    ];
    const sample = factsSample("local_facts_lookup", { corrections });
    const before = readdirSync(join(tmp, "data", "imprints")).length;
    const receiptsBefore = (await cli("receipts", "list", "--json")).json.count;
    const plan = await cli(
      "learn",
      "run",
      "--dry-run",
      "--sample-file",
      sample,
      "--facts-store",
      "support",
      "--include-text",
      "--json",
    );
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.json).toMatchObject({
      ok: true,
      dry_run: true,
      tool_surface: "facts_store",
      tools: ["local_facts_lookup"],
      generations: 2,
      questions: [{ question: "Can I still get a refund?", expected_tool: "local_facts_lookup", scored: true }],
      corrections: {
        applied: [{ index: 1 }, { index: 3 }],
        skipped: [{ index: 0, fact_id: "refund-window", supporting: 1, reason: "single_example" }],
      },
    });
    expect(plan.json.warnings.map((w: { code: string }) => w.code)).toEqual(["fact_correction_unstable"]);
    expect(plan.json.prefix).toContain('fact_correction {"fact_id":"support-hours"}');
    expect(plan.json.prefix).not.toContain("refund-window");
    expect(plan.json.prefix.match(/support-hours/g)).toHaveLength(1);
    // Hash-first without --include-text.
    const hashed = await cli(
      "learn",
      "run",
      "--dry-run",
      "--sample-file",
      sample,
      "--facts-store",
      "support",
      "--json",
    );
    expect(hashed.json.questions[0]).not.toHaveProperty("question");
    expect(hashed.json).not.toHaveProperty("prefix");
    expect(readdirSync(join(tmp, "data", "imprints")).length).toBe(before);
    expect((await cli("receipts", "list", "--json")).json.count).toBe(receiptsBefore);
    // learn validate reports the same warning.
    const validated = await cli("learn", "sample", "validate", sample, "--json");
    expect(validated.json.warnings.map((w: { code: string }) => w.code)).toEqual(["fact_correction_unstable"]);
  });

  it("sample init writes a valid sample with no warnings for the surface; never replaces a file", async () => {
    const out = join(tmp, "init-facts.json");
    const init = await cli("learn", "sample", "init", "--facts-store", "support", "--output", out, "--json");
    expect(init.code, init.out + init.err).toBe(0);
    expect(init.json).toMatchObject({ ok: true, file: out, tools: ["local_facts_lookup"], warnings: [] });
    const written = JSON.parse(readFileSync(out, "utf8"));
    expect(written.records[0].note).toMatch(/Notes are kept, never rendered/);
    const validated = await cli("learn", "validate", out, "--facts-store", "support", "--json");
    expect(validated).toMatchObject({ code: 0, json: { ok: true, warning_count: 0 } });
    const again = await cli("learn", "sample", "init", "--output", out, "--json");
    expect(again.json.error.code).toBe("storage_failed");
    // Without tools: printed, and a profile-only sample.
    const plain = await cli("learn", "sample", "init");
    expect(plain.code).toBe(0);
    const printed = JSON.parse(plain.out);
    expect(printed.tool_schema_export).toBeNull();
    writeFileSync(join(tmp, "plain.json"), plain.out);
    expect((await cli("learn", "validate", join(tmp, "plain.json"), "--json")).json.warning_count).toBe(0);
  });

  it("sample init for a tools.py exports its active tools", async () => {
    const init = await cli("learn", "sample", "init", "--tools", join(EXAMPLES, "tools.py"), "--tool-tag", "orders");
    expect(init.code, init.err).toBe(0);
    const sample = JSON.parse(init.out);
    expect(sample.tool_schema_export.tools.map((t: { name: string }) => t.name)).toEqual([
      "order_status",
      "prepare_order",
      "submit_order",
    ]);
    expect(sample.questions.map((q: { expected_tool: string | null }) => q.expected_tool)).toEqual([
      "order_status",
      "prepare_order",
      "submit_order",
      null,
    ]);
  });
});

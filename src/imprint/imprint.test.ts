// learn → seal → store → restore through the session, with the scripted engine and hand-made
// toolsets (no runner needed: nothing here executes a tool). The real-runner proof of the gate is
// in gate.python.test.ts.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { activeSetSha256, schemaSha256, sha256Text } from "../contract/hash.ts";
import { SCHEMA_GENERATOR_VERSION, type ToolSchema } from "../contract/types.ts";
import { renderToolContract } from "../chat/contract.ts";
import { createChatSession } from "../chat/session.ts";
import type { RunnerHost } from "../runner/host.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import type { EngineInfo } from "../engines/engine.ts";
import { memorySource } from "../toolset/inspect.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import { checkImprint, imprintBinding } from "./gate.ts";
import { learn } from "./learn.ts";
import { createMemoryImprintStore } from "./store-memory.ts";
import { renderImprintPrefix } from "./prefix.ts";
import { EDGE_RUNTIME_VERSION, parseImprintText, verifyImprint, type Imprint } from "./record.ts";
import { parseLearnSampleText } from "./sample.ts";
import { exportImprint, importImprint } from "./transfer.ts";
import { freezeProject } from "../toolset/project.ts";

const SAMPLE = parseLearnSampleText(
  readFileSync(new URL("../../public/examples/learn_sample.json", import.meta.url), "utf8"),
);
const obj = (properties: Record<string, unknown>, required: string[] = []) =>
  ({ type: "object", properties, required, additionalProperties: false }) as ToolSchema["parameters"];
const SCHEMAS: ToolSchema[] = [
  {
    name: "hello_world",
    description: "",
    parameters: obj({}),
    execution_level: "read",
    return_direct: false,
    output_schema: null,
  },
  {
    name: "fee_quote",
    description: "Quote the service fee for an amount and a pricing tier.",
    parameters: obj(
      { amount: { type: "number" }, tier: { type: "string", enum: ["basic", "pro"], default: "basic" } },
      ["amount"],
    ),
    execution_level: "read",
    return_direct: false,
    output_schema: null,
  },
  {
    name: "order_status",
    description: "Look up the status of a local order record.",
    parameters: obj({ order_id: { type: "string" } }, ["order_id"]),
    execution_level: "read",
    return_direct: false,
    output_schema: null,
  },
];

async function frozen(schemas: ToolSchema[], fileText = "tools"): Promise<FrozenToolset> {
  const tools = await Promise.all(
    schemas.map(async (schema) => ({
      schema,
      intent_tags: [],
      permissions: [],
      schema_sha256: await schemaSha256(schema),
    })),
  );
  const project = await freezeProject({
    root: null,
    entry: "tools.py",
    files: { "tools.py": new TextEncoder().encode(fileText) },
    skipped: [],
  });
  return {
    source: memorySource("tools.py", fileText),
    filename: "tools.py",
    bytes: new TextEncoder().encode(fileText),
    tools_file_sha256: await sha256Text(fileText),
    tools_bundle_sha256: project.tools_bundle_sha256,
    project,
    packages: { packages: [], wheels: [] },
    schema_generator_version: SCHEMA_GENERATOR_VERSION,
    tools,
    active: tools,
    active_set_sha256: await activeSetSha256(schemas),
    warnings: [],
  };
}
/** The gate never reaches the runner; a host that fails loudly proves it. */
const noHost: RunnerHost = {
  discover: () => Promise.reject(new Error("no runner in this test")),
  call: () => Promise.reject(new Error("no runner in this test")),
  close: async () => undefined,
};
const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });
// Outputs for the example's 5 scored questions: (without prefix, with prefix) each.
const EVAL_SCRIPT = [
  "It depends.",
  call("fee_quote", { amount: 100 }),
  "It depends.",
  call("fee_quote", { amount: 2500, tier: "pro" }),
  call("order_status", { order_id: "A-1001" }),
  call("order_status", { order_id: "A-1001" }),
  "Sure.",
  call("prepare_order", { sku: "kb-42", quantity: 3, express: true }),
  call("hello_world", {}),
  "I can quote fees and look up orders.",
];

async function loaded(script: string[], modelId?: string) {
  const e = new ScriptedEngine(script, { chunkSize: 256, ...(modelId ? { modelId } : {}) });
  await e.load();
  return e;
}

async function learned(schemas = SCHEMAS): Promise<Imprint> {
  return (await learn({ sample: SAMPLE, toolset: await frozen(schemas), engine: await loaded(EVAL_SCRIPT) })).imprint;
}

async function gateCode(
  imprint: Imprint,
  context: { schemas: ToolSchema[]; engine?: EngineInfo },
): Promise<string | null> {
  try {
    await checkImprint(imprint, {
      schemas: context.schemas,
      toolset: await frozen(context.schemas),
      engine: context.engine ?? { kind: "scripted", modelId: "scripted-demo", label: "x" },
    });
    return null;
  } catch (err) {
    return (err as { code: string }).code;
  }
}

describe("learn", () => {
  it("bakes exactly the contract, profile and policy; evaluates with and without the prefix; stores and writes a learn receipt", async () => {
    const store = createMemoryImprintStore();
    const appended: unknown[] = [];
    const receipts = {
      append: async (b: object) => (
        appended.push(b), { ...b, seq: 1, prev_receipt_sha256: null, receipt_sha256: "sha256:" + "0".repeat(64) }
      ),
      get: async () => undefined,
      list: async () => [],
    };
    const engine = await loaded(EVAL_SCRIPT);
    const toolset = await frozen(SCHEMAS);
    const r = await learn({ sample: SAMPLE, toolset, engine, store, receipts: receipts as never });
    expect(r.imprint.prefix.startsWith(renderToolContract(SCHEMAS, 4) + "\n\n")).toBe(true);
    expect(r.imprint.prefix).toBe(renderImprintPrefix(SCHEMAS, SAMPLE, 4));
    expect(r.prefix_sha256).toBe(await sha256Text(r.imprint.prefix));
    expect(r.active_set_sha256).toBe(toolset.active_set_sha256);
    expect(r.imprint.tools!.tool_schema_sha256).toEqual(
      Object.fromEntries(toolset.active.map((t) => [t.schema.name, t.schema_sha256])),
    );
    expect(r.imprint.model).toEqual({ engine: "scripted", model_id: "scripted-demo", fingerprint: null });
    expect(r.imprint.runtime.edge).toBe(EDGE_RUNTIME_VERSION);
    // Evaluation: 5 scored questions; without the prefix only order_status matched, with it all five
    // (prepare_order is not in this hand-made active set, so its "call" does not validate).
    expect(r.evaluation).toMatchObject({
      mode: "engine",
      scored: 5,
      question_count: 6,
      matched_without_prefix: 1,
      matched_with_prefix: 4,
      prefill_ms: null,
    });
    expect(r.evaluation.items.map((i) => [i.without_prefix, i.with_prefix])).toEqual([
      ["answer", "fee_quote"],
      ["answer", "fee_quote"],
      ["order_status", "order_status"],
      ["answer", "prepare_order"],
      ["hello_world", "answer"],
    ]);
    // The engine really got the bare question, then the prefix as the system message.
    expect(engine.calls[0]!.messages).toEqual([{ role: "user", content: "Quote the fee for amount 100." }]);
    expect(engine.calls[1]!.messages).toEqual([
      { role: "system", content: r.imprint.prefix },
      { role: "user", content: "Quote the fee for amount 100." },
    ]);
    // prepare_order / submit_order are named by the sample but not active here: a warning; and base model differs.
    expect(r.warnings.map((w) => w.code)).toEqual([
      "tool_schema_export_name_mismatch",
      "tool_schema_export_name_mismatch",
      "base_model_mismatch",
    ]);
    expect(await store.get(r.imprint_id)).toEqual(r.imprint);
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({
      kind: "learn",
      imprint_id: r.imprint_id,
      tool_instruction_mode: "imprint",
      tool_instruction_sha256: r.prefix_sha256,
      extra: { imprint_sha256: r.imprint.imprint_sha256, evaluation: { matched_with_prefix: 4 } },
    });
    expect(r.imprint.learn_receipt_id).toBe((appended[0] as { id: string }).id);
  });

  it("wrong expected arguments do not count as the expected call", async () => {
    const script = [...EVAL_SCRIPT];
    script[1] = call("fee_quote", { amount: 101 });
    script[3] = call("fee_quote", { amount: "2500" }); // invalid against the schema
    const r = await learn({ sample: SAMPLE, toolset: await frozen(SCHEMAS), engine: await loaded(script) });
    expect(r.evaluation.items.slice(0, 2).map((i) => i.with_prefix)).toEqual([
      "fee_quote(other arguments)",
      "fee_quote(invalid arguments)",
    ]);
    expect(r.evaluation.matched_with_prefix).toBe(2);
  });

  it("the prefix is byte-deterministic: record order, tool order and key order do not change it", async () => {
    const shuffled = {
      ...SAMPLE,
      records: [...SAMPLE.records].reverse(),
      expected_tool_policy: {
        ...SAMPLE.expected_tool_policy!,
        tools_available: [...SAMPLE.expected_tool_policy!.tools_available!].reverse(),
      },
    };
    // Every key order flipped except a parameters schema's properties: their order is the function's
    // parameter order, which the contract's signatures keep (freezing the same tools.py gives the same order).
    const flip = (v: unknown, key = ""): unknown => {
      if (Array.isArray(v)) return v.map((x) => flip(x));
      if (!v || typeof v !== "object") return v;
      const entries = Object.entries(v).map(([k, x]) => [k, flip(x, k)] as const);
      return Object.fromEntries(key === "properties" ? entries : entries.reverse());
    };
    const reordered = SCHEMAS.map((s) => flip(s) as ToolSchema).reverse();
    expect(Object.keys(reordered[0]!)[0]).toBe("output_schema");
    expect(renderImprintPrefix(reordered, shuffled)).toBe(renderImprintPrefix(SCHEMAS, SAMPLE));
    const text = renderImprintPrefix(SCHEMAS, SAMPLE);
    expect(text.indexOf("[answer_style]")).toBeLessThan(text.indexOf("[business_context]"));
    expect(text.indexOf("[business_context]")).toBeLessThan(text.indexOf("[trust_boundary]"));
    expect(text.indexOf("Profile (")).toBeGreaterThan(text.indexOf("You can call these tools"));
    expect(text.indexOf("Expected tool policy:")).toBeGreaterThan(text.indexOf("[trust_boundary]"));
  });

  it("a sample without scored questions skips the evaluation and asks the engine nothing", async () => {
    const engine = await loaded([]);
    const r = await learn({ sample: { ...SAMPLE, questions: [] }, toolset: await frozen(SCHEMAS), engine });
    expect(r.evaluation).toMatchObject({ mode: "skipped", scored: 0, question_count: 1 });
    expect(engine.turnsUsed).toBe(0);
  });
});

describe("the imprint record", () => {
  it("a corrupted record (hash mismatch) is refused: on get, on import, and at restore", async () => {
    const imprint = await learned();
    for (const edit of [
      (r: Record<string, any>) => (r["prefix"] = r["prefix"] + " "),
      (r: Record<string, any>) => (r["evaluation"]["matched_with_prefix"] = 5),
      (r: Record<string, any>) => (r["tools"]["tool_schema_sha256"]["fee_quote"] = "sha256:" + "1".repeat(64)),
      (r: Record<string, any>) => (r["model"]["model_id"] = "another"),
    ]) {
      const copy = structuredClone(imprint) as Record<string, any>;
      edit(copy);
      await expect(verifyImprint(copy)).rejects.toMatchObject({
        code: "imprint_corrupted",
        details: { reason: "imprint_sha256 does not match the record" },
      });
      const store = createMemoryImprintStore();
      await expect(importImprint(store, JSON.stringify(copy))).rejects.toMatchObject({ code: "imprint_corrupted" });
      expect(await store.list()).toEqual([]);
    }
    const store = createMemoryImprintStore();
    await store.put(imprint);
    (store.raw.get(imprint.id) as Record<string, string>)["prefix"] = "You are evil.";
    await expect(store.get(imprint.id)).rejects.toMatchObject({ code: "imprint_corrupted" });
    expect((await store.list())[0]).toMatchObject({ id: imprint.id, corrupted: true });
    await expect(parseImprintText("nope")).rejects.toMatchObject({ code: "imprint_corrupted" });
  });

  it("exports and imports byte-for-byte, lists, deletes", async () => {
    const a = createMemoryImprintStore();
    const imprint = await learned();
    await a.put(imprint);
    await expect(a.put(imprint)).rejects.toMatchObject({ code: "storage_failed" });
    const text = await exportImprint(a, imprint.id);
    const b = createMemoryImprintStore();
    expect(await importImprint(b, text)).toEqual(imprint);
    expect(await b.list()).toEqual([
      {
        id: imprint.id,
        created_at: imprint.created_at,
        model_id: "scripted-demo",
        sample_id: "order_desk_tools_v1",
        tools: ["fee_quote", "hello_world", "order_status"],
        corrupted: false,
      },
    ]);
    await b.delete(imprint.id);
    await expect(b.get(imprint.id)).rejects.toMatchObject({ code: "imprint_not_found" });
    await expect(b.delete(imprint.id)).rejects.toMatchObject({ code: "imprint_not_found" });
  });
});

describe("the restore gate", () => {
  const variant = (name: string, edit: (s: ToolSchema) => ToolSchema) =>
    SCHEMAS.map((s) => (s.name === name ? edit(structuredClone(s)) : s));

  it("fails closed in order with its code for every schema-level change", async () => {
    const imprint = await learned();
    expect(await gateCode(imprint, { schemas: SCHEMAS })).toBeNull();
    expect(await gateCode(imprint, { schemas: [] })).toBe("imprint_requires_tools");
    expect(
      await gateCode(imprint, { schemas: SCHEMAS, engine: { kind: "scripted", modelId: "other-model", label: "x" } }),
    ).toBe("imprint_model_mismatch");
    expect(
      await gateCode(imprint, { schemas: SCHEMAS, engine: { kind: "webllm", modelId: "scripted-demo", label: "x" } }),
    ).toBe("imprint_model_mismatch");
    // requires_tools comes before the model check.
    expect(
      await gateCode(imprint, { schemas: [], engine: { kind: "scripted", modelId: "other-model", label: "x" } }),
    ).toBe("imprint_requires_tools");
    const extra: ToolSchema = { ...SCHEMAS[0]!, name: "order_cancel" };
    expect(await gateCode(imprint, { schemas: [...SCHEMAS, extra] })).toBe("imprint_tool_active_set_mismatch");
    expect(await gateCode(imprint, { schemas: SCHEMAS.slice(1) })).toBe("imprint_tool_active_set_mismatch");
    // A renamed tool is a different set of names (before any schema comparison).
    expect(await gateCode(imprint, { schemas: variant("hello_world", (s) => ({ ...s, name: "hello" })) })).toBe(
      "imprint_tool_active_set_mismatch",
    );
    // The model is checked before the names.
    expect(
      await gateCode(imprint, { schemas: SCHEMAS.slice(1), engine: { kind: "scripted", modelId: "m2", label: "x" } }),
    ).toBe("imprint_model_mismatch");
    const renamedParam = variant("order_status", (s) => ({
      ...s,
      parameters: obj({ id: { type: "string" } }, ["id"]),
    }));
    expect(await gateCode(imprint, { schemas: renamedParam })).toBe("imprint_tool_schema_mismatch");
    expect(
      await gateCode(imprint, { schemas: variant("fee_quote", (s) => ({ ...s, description: "Quote a fee." })) }),
    ).toBe("imprint_tool_schema_mismatch");
    expect(
      await gateCode(imprint, { schemas: variant("fee_quote", (s) => ({ ...s, execution_level: "prepare" })) }),
    ).toBe("imprint_tool_schema_mismatch");
    expect(
      await gateCode(imprint, {
        schemas: variant("fee_quote", (s) => ({
          ...s,
          parameters: obj(
            { amount: { type: "integer" }, tier: { type: "string", enum: ["basic", "pro"], default: "basic" } },
            ["amount"],
          ),
        })),
      }),
    ).toBe("imprint_tool_schema_mismatch");
    expect(
      await gateCode(imprint, {
        schemas: variant("hello_world", (s) => ({ ...s, return_direct: true, output_schema: obj({}) })),
      }),
    ).toBe("imprint_tool_schema_mismatch");
    // Same schemas in another order restore fine.
    expect(await gateCode(imprint, { schemas: [...SCHEMAS].reverse() })).toBeNull();
  });

  it("names what changed", async () => {
    const imprint = await learned();
    const err = await checkImprint(imprint, {
      schemas: [...SCHEMAS.slice(1), { ...SCHEMAS[0]!, name: "x_tool" }],
      toolset: null,
      engine: { kind: "scripted", modelId: "scripted-demo", label: "" },
    }).catch((e) => e);
    expect(err.details).toMatchObject({ added: ["x_tool"], removed: ["hello_world"] });
    const err2 = await checkImprint(imprint, {
      schemas: variant("fee_quote", (s) => ({ ...s, description: "?" })),
      toolset: null,
      engine: { kind: "scripted", modelId: "scripted-demo", label: "" },
    }).catch((e) => e);
    expect(err2.details).toMatchObject({ tool: "fee_quote" });
  });

  it("binds to the model build: a recorded fingerprint must match the engine's", async () => {
    const imprint = await learned();
    const fp = {
      modelId: "scripted-demo",
      modelLib: "https://x/lib-v1.wasm",
      modelUrl: "https://x/w/",
      integrity: { config: "sha256-a" },
    };
    const withFp = { ...imprint, model: { ...imprint.model, fingerprint: fp } } as Imprint;
    const info = (f?: object): EngineInfo => ({
      kind: "scripted",
      modelId: "scripted-demo",
      label: "",
      ...(f ? { fingerprint: f as never } : {}),
    });
    const ctx = { schemas: SCHEMAS, toolset: null };
    await expect(checkImprint(withFp, { ...ctx, engine: info(fp) })).resolves.toBeUndefined();
    await expect(
      checkImprint(withFp, { ...ctx, engine: info({ ...fp, modelLib: "https://x/lib-v2.wasm" }) }),
    ).rejects.toMatchObject({ code: "imprint_model_mismatch", details: { reason: "fingerprint" } });
    await expect(
      checkImprint(withFp, { ...ctx, engine: info({ ...fp, integrity: { config: "sha256-b" } }) }),
    ).rejects.toMatchObject({ code: "imprint_model_mismatch" });
    await expect(checkImprint(withFp, { ...ctx, engine: info() })).rejects.toMatchObject({
      code: "imprint_model_mismatch",
      details: { reason: "no_fingerprint" },
    });
  });
});

describe("restore through the chat session", () => {
  it("the prefix is the fixed start, the contract is not injected again, the receipt says imprint", async () => {
    const imprint = await learned();
    const engine = await loaded(["Hello there.", "Still here."]);
    const s = await createChatSession({
      engine,
      host: noHost,
      tools: { kind: "toolset", toolset: await frozen(SCHEMAS) },
      imprint: imprintBinding(imprint),
    });
    expect(s.contract).toBe(imprint.prefix);
    const run = await s.chat("hi");
    expect(run).toMatchObject({ ok: true, answer: "Hello there." });
    expect(run.receipt).toMatchObject({
      tool_instruction_mode: "imprint",
      imprint_id: imprint.id,
      tool_instruction_sha256: imprint.prefix_sha256,
    });
    await s.chat("again");
    // One system message, the prefix, on every turn; the rendered contract never appears on its own.
    for (const c of engine.calls) {
      expect(c.messages[0]).toEqual({ role: "system", content: imprint.prefix });
      expect(c.messages.filter((m) => m.role === "system")).toHaveLength(1);
    }
  });

  it("a failing gate throws before any generation", async () => {
    const imprint = await learned();
    const engine = await loaded(["never"]);
    await expect(
      createChatSession({
        engine,
        host: noHost,
        tools: { kind: "toolset", toolset: await frozen(SCHEMAS.slice(1)) },
        imprint: imprintBinding(imprint),
      }),
    ).rejects.toMatchObject({ code: "imprint_tool_active_set_mismatch" });
    await expect(createChatSession({ engine, imprint: imprintBinding(imprint) })).rejects.toMatchObject({
      code: "imprint_requires_tools",
    });
    expect(engine.turnsUsed).toBe(0);
  });

  it("a profile-only imprint (learned without tools) restores without tools and refuses tools", async () => {
    const r = await learn({ sample: { ...SAMPLE, questions: [] }, toolset: null, engine: await loaded([]) });
    expect(r.imprint.tools).toBeNull();
    expect(r.imprint.prefix.startsWith("Profile (")).toBe(true);
    const s = await createChatSession({ engine: await loaded(["ok"]), imprint: imprintBinding(r.imprint) });
    expect((await s.chat("hi")).receipt).toMatchObject({ tool_instruction_mode: "imprint", imprint_id: r.imprint_id });
    await expect(
      createChatSession({
        engine: await loaded([]),
        host: noHost,
        tools: { kind: "toolset", toolset: await frozen(SCHEMAS) },
        imprint: imprintBinding(r.imprint),
      }),
    ).rejects.toMatchObject({ code: "imprint_tool_active_set_mismatch" });
  });
});

it("EDGE_RUNTIME_VERSION follows package.json", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  expect(EDGE_RUNTIME_VERSION).toBe(pkg.version);
});

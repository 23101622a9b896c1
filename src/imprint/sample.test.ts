// The learn sample loader: the example file, strict top level, field errors that name the field,
// and the warnings that never refuse.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { parseLearnSample, parseLearnSampleText } from "./sample.ts";
import { evaluationQuestions, sampleSha256, sampleWarnings, summarizeSample } from "./sample-rules.ts";

const TEXT = readFileSync(new URL("../../public/examples/learn_sample.json", import.meta.url), "utf8");
const base = (): Record<string, unknown> => JSON.parse(TEXT);

function refusal(value: unknown): EdgeError {
  try {
    parseLearnSample(value);
  } catch (err) {
    if (err instanceof EdgeError) return err;
    throw err;
  }
  throw new Error("expected invalid_learn_sample");
}

describe("edge.demo.learn.sample.v1", () => {
  it("parses the example sample and summarizes it by counts and hashes", async () => {
    const s = parseLearnSampleText(TEXT);
    const sum = await summarizeSample(s);
    expect(sum).toMatchObject({
      sample_id: "order_desk_tools_v1",
      record_count: 5,
      correction_count: 1,
      question_count: 6,
      scored_question_count: 5,
    });
    expect(sum.record_kinds).toEqual(["answer_style", "business_context", "trust_boundary"]);
    // `question` is repeated in `questions` with an expectation: asked once, scored.
    expect(evaluationQuestions(s)[0]).toEqual({
      question: "Quote the fee for amount 100.",
      expected_tool: "fee_quote",
      expected_arguments: { amount: 100 },
    });
    // Formatting does not change the sample hash; content does.
    expect(await sampleSha256(parseLearnSampleText(JSON.stringify(JSON.parse(TEXT))))).toBe(sum.sample_sha256);
    const edited = base();
    (edited["records"] as Array<{ text: string }>)[0]!.text += "!";
    expect(await sampleSha256(parseLearnSample(edited))).not.toBe(sum.sample_sha256);
  });

  it("an Edge Studio sample (string questions, facts-lookup export) loads unchanged", () => {
    const studio = {
      schema_version: "edge.demo.learn.sample.v1",
      sample_id: "my_budget_sample_v1",
      peer_id: "my-demo-peer",
      app_id: "com.example.myapp",
      base_model_id: "qwen3.5-9b-4bit",
      question: "How should I plan my remaining budget this month?",
      records: [
        { record_id: "budget-001", kind: "explicit_preference", text: "Fixed expenses first.", tags: ["budget"] },
      ],
      corrections: [
        {
          peer_id: "my-demo-peer",
          app_id: "com.example.myapp",
          correction_type: "profile_correction",
          target: { profile_field: "budget_guidance_style" },
          correction: { profile_overlay: { priority: "fixed first" } },
          status: "recorded",
        },
      ],
      tool_schema_export: {
        schema_version: "edgestudio.tool_schema_export.v1",
        tools: [
          {
            name: "my_budget_facts_lookup",
            description: "x",
            permissions: ["read_facts"],
            intentTags: ["budget"],
            parameters: { type: "object", properties: { topic: { type: "string" } } },
          },
        ],
      },
      expected_tool_policy: {
        description: "d",
        tools_available: [{ name: "my_budget_facts_lookup", when: "w", args_constraint: "a" }],
        negative_policy: ["Do not call network tools"],
      },
    };
    const s = parseLearnSample(studio);
    expect(s.questions).toEqual([]);
    expect(evaluationQuestions(s)).toEqual([{ question: studio.question }]);
  });

  it("refuses an unknown top-level field, naming it", () => {
    const e = refusal({ ...base(), transactions: [] });
    expect(e.code).toBe("invalid_learn_sample");
    expect(e.details).toMatchObject({ field: "transactions", unknown_fields: ["transactions"] });
    expect(e.message).toContain('"transactions"');
  });

  it("refuses a missing sample_id and other missing or mistyped fields", () => {
    const { sample_id: _drop, ...noId } = base();
    expect(refusal(noId).details).toMatchObject({ field: "sample_id", reason: "is missing" });
    expect(refusal({ ...base(), schema_version: "edge.demo.learn.sample.v2" }).details["field"]).toBe("schema_version");
    expect(refusal({ ...base(), records: "x" }).details["field"]).toBe("records");
    expect(refusal({ ...base(), records: [{ kind: "Bad Kind", text: "t" }] }).details["field"]).toBe("records[0].kind");
    expect(refusal({ ...base(), questions: [{ question: "q", expected_tool: 3 }] }).details["field"]).toBe(
      "questions[0].expected_tool",
    );
    expect(refusal({ ...base(), questions: [{ question: "q", expected: "fee_quote" }] }).details["field"]).toBe(
      "questions[0].expected",
    );
    expect(refusal({ ...base(), expected_tool_policy: { tools: [] } }).details["field"]).toBe(
      "expected_tool_policy.tools",
    );
    expect(() => parseLearnSampleText("{not json")).toThrow(/not JSON/);
  });

  it("refuses a correction for another peer, and corrections without their required shape", () => {
    const s = base();
    (s["corrections"] as Array<Record<string, unknown>>)[0]!["peer_id"] = "someone-else";
    expect(refusal(s).details["field"]).toBe("corrections[0].peer_id");
    const fb = {
      ...base(),
      corrections: [
        {
          peer_id: "order-desk-demo-peer",
          correction_type: "eval_feedback",
          target: {},
          correction: { rating: "great" },
        },
      ],
    };
    expect(refusal(fb).details["field"]).toBe("corrections[0].correction.rating");
    const fact = {
      ...base(),
      corrections: [{ peer_id: "order-desk-demo-peer", correction_type: "fact_correction", target: {} }],
    };
    expect(refusal(fact).details["field"]).toBe("corrections[0].target.fact_id");
  });

  it("warns (never refuses) on export names that differ from the active tools and on another base model", () => {
    const s = parseLearnSampleText(TEXT);
    const active = ["hello_world", "fee_quote", "order_status", "prepare_order", "submit_order"];
    expect(sampleWarnings(s, active, s.base_model_id)).toEqual([]);
    const w = sampleWarnings(
      s,
      ["fee_quote", "order_status", "prepare_order", "submit_order", "order_cancel"],
      "scripted-demo",
    );
    expect(w.map((x) => x.code)).toEqual(["tool_schema_export_name_mismatch", "base_model_mismatch"]);
    expect(w[0]).toMatchObject({ exported_only: ["hello_world"], active_only: ["order_cancel"] });
    // Policy/questions naming a tool that is not active is the same warning.
    expect(
      sampleWarnings(
        s,
        active.filter((n) => n !== "order_status"),
        null,
      ).map((x) => x.code),
    ).toEqual(["tool_schema_export_name_mismatch", "tool_schema_export_name_mismatch"]);
  });
});

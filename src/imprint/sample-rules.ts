// What learning reads from a parsed learn sample (sample.ts parses it): the questions the
// evaluation asks, Edge Studio's rule for which corrections are learned, the summary `edge learn
// validate` prints, and the warnings about how the sample fits the tools and the model. Pure.
import { errorJson, type ErrorJson } from "../contract/errors.ts";
import { canonicalJson, sha256Json, type Sha256 } from "../contract/hash.ts";
import type { LearnCorrection, LearnQuestion, LearnSample } from "./sample.ts";

/** What `edge learn validate` prints (counts and hashes, never the text). */
export interface SampleSummary {
  sample_id: string;
  peer_id: string;
  app_id: string;
  base_model_id: string;
  record_count: number;
  correction_count: number;
  question_count: number;
  scored_question_count: number;
  record_kinds: string[];
  sample_sha256: Sha256;
  tool_schema_sha256: Sha256 | null;
  expected_tool_policy_sha256: Sha256 | null;
}

/** The questions the evaluation asks: `question` first, then `questions[]`, each text once. */
export function evaluationQuestions(sample: LearnSample): LearnQuestion[] {
  const out: LearnQuestion[] = [];
  const byText = new Map<string, LearnQuestion>();
  for (const q of [sample.question, ...sample.questions]) {
    const item: LearnQuestion = typeof q === "string" ? { question: q } : q;
    const seen = byText.get(item.question);
    if (seen) {
      // A later entry with an expectation scores the same text (e.g. `question` repeated in `questions`).
      if (seen.expected_tool === undefined && item.expected_tool !== undefined) Object.assign(seen, item);
      continue;
    }
    const copy = { ...item };
    byText.set(item.question, copy);
    out.push(copy);
  }
  return out;
}

export interface SkippedCorrection {
  /** Index in corrections[]. */
  index: number;
  fact_id: string;
  /** How many fact_corrections of this fact the sample holds. */
  supporting: number;
  reason: "single_example" | "disagreeing_examples";
}

export interface CorrectionPlan {
  /** What the prefix renders, in file order: every eval_feedback and profile_correction, and one
   *  entry per stable fact_correction group (at its first occurrence). */
  applied: Array<{ index: number; correction: LearnCorrection }>;
  skipped: SkippedCorrection[];
}

/**
 * Edge Studio's learning-sample rule: a fact_correction enters the learned overlay only when at
 * least two corrections of the same fact (target.fact_id) support it, and they agree (the same
 * correction payload). A single one is unstable and skipped (a warning), never baked in.
 */
export function planCorrections(sample: LearnSample): CorrectionPlan {
  const groups = new Map<string, number[]>();
  sample.corrections.forEach((c, i) => {
    if (c.correction_type !== "fact_correction") return;
    const id = String(c.target["fact_id"]);
    groups.set(id, [...(groups.get(id) ?? []), i]);
  });
  const applied: CorrectionPlan["applied"] = [];
  const skipped: SkippedCorrection[] = [];
  sample.corrections.forEach((c, index) => {
    if (c.correction_type !== "fact_correction") return applied.push({ index, correction: c });
    const fact_id = String(c.target["fact_id"]);
    const group = groups.get(fact_id)!;
    const agree = new Set(group.map((i) => canonicalJson(sample.corrections[i]!.correction ?? null))).size === 1;
    if (group.length >= 2 && agree) {
      if (group[0] === index) applied.push({ index, correction: c });
    } else {
      skipped.push({
        index,
        fact_id,
        supporting: group.length,
        reason: group.length < 2 ? "single_example" : "disagreeing_examples",
      });
    }
  });
  return { applied, skipped };
}

/** sha256 over the sample's canonical JSON (the parsed form, so formatting does not matter). */
export function sampleSha256(sample: LearnSample): Promise<Sha256> {
  return sha256Json(sample);
}

export async function summarizeSample(sample: LearnSample): Promise<SampleSummary> {
  const questions = evaluationQuestions(sample);
  return {
    sample_id: sample.sample_id,
    peer_id: sample.peer_id,
    app_id: sample.app_id,
    base_model_id: sample.base_model_id,
    record_count: sample.records.length,
    correction_count: sample.corrections.length,
    question_count: questions.length,
    scored_question_count: questions.filter((q) => q.expected_tool !== undefined).length,
    record_kinds: [...new Set(sample.records.map((r) => r.kind))].sort(),
    sample_sha256: await sampleSha256(sample),
    tool_schema_sha256: sample.tool_schema_export ? await sha256Json(sample.tool_schema_export) : null,
    expected_tool_policy_sha256: sample.expected_tool_policy ? await sha256Json(sample.expected_tool_policy) : null,
  };
}

/**
 * Warnings about how the sample fits the tools and the model (never refusals):
 * tool_schema_export_name_mismatch when its tool names (or the policy's, or a question's expected
 * tool) differ from the active set; fact_correction_unstable for each fact_correction that is not
 * learned (planCorrections); base_model_mismatch when base_model_id is not the engine's model.
 */
export function sampleWarnings(
  sample: LearnSample,
  activeNames: readonly string[] | null,
  modelId: string | null,
): ErrorJson[] {
  const warnings: ErrorJson[] = [];
  if (activeNames !== null && sample.tool_schema_export) {
    const exported = [...new Set(sample.tool_schema_export.tools.map((t) => t.name))].sort();
    const active = [...activeNames].sort();
    if (exported.join("\n") !== active.join("\n")) {
      warnings.push(
        errorJson("tool_schema_export_name_mismatch", {
          message: `${ERR_EXPORT} The sample exports [${exported.join(", ")}]; the active tools are [${active.join(", ")}].`,
          exported_only: exported.filter((n) => !active.includes(n)),
          active_only: active.filter((n) => !exported.includes(n)),
        }),
      );
    }
  }
  if (activeNames !== null) {
    const named = [
      ...(sample.expected_tool_policy?.tools_available ?? []).map((t) => t.name),
      ...evaluationQuestions(sample).flatMap((q) => (typeof q.expected_tool === "string" ? [q.expected_tool] : [])),
    ];
    const unknown = [...new Set(named.filter((n) => !activeNames.includes(n)))].sort();
    if (unknown.length) {
      warnings.push(
        errorJson("tool_schema_export_name_mismatch", {
          message: `The sample's policy or questions name tools that are not active: ${unknown.join(", ")}.`,
          unknown_tools: unknown,
        }),
      );
    }
  }
  for (const skip of planCorrections(sample).skipped) {
    warnings.push(
      errorJson("fact_correction_unstable", {
        message:
          skip.reason === "single_example"
            ? `corrections[${skip.index}] (fact_correction of "${skip.fact_id}") is the only correction of that fact: skipped as unstable. Add a second, agreeing correction, or use profile_correction for a one-shot change.`
            : `corrections[${skip.index}] (fact_correction of "${skip.fact_id}") disagrees with the other corrections of that fact: skipped as unstable.`,
        field: `corrections[${skip.index}]`,
        fact_id: skip.fact_id,
        supporting: skip.supporting,
      }),
    );
  }
  if (modelId !== null && sample.base_model_id !== modelId) {
    warnings.push(
      errorJson("base_model_mismatch", {
        message: `The sample was written for "${sample.base_model_id}"; this imprint is learned with "${modelId}" and bound to it.`,
        base_model_id: sample.base_model_id,
        model_id: modelId,
      }),
    );
  }
  return warnings;
}

const ERR_EXPORT = "The sample's tool_schema_export names other tools than the active set.";

// `edge learn run --dry-run`: everything learn() would do before the model runs — the sample
// validated, the tool surface frozen, the prefix rendered, the corrections applied or skipped,
// the questions that would be scored — with no engine, no imprint and no receipt. Hash-first:
// texts only with includeText.
import { sha256Json, sha256Text, type Sha256 } from "../contract/hash.ts";
import type { ErrorJson } from "../contract/errors.ts";
import type { ToolSurface } from "../chat/types.ts";
import type { FrozenToolset } from "../toolset/freeze.ts";
import { learnToolsOf } from "./learn.ts";
import { renderImprintPrefix } from "./prefix.ts";
import type { ToolSurfaceKind } from "../receipts/types.ts";
import type { LearnSample } from "./sample.ts";
import {
  evaluationQuestions,
  planCorrections,
  sampleWarnings,
  summarizeSample,
  type SampleSummary,
  type SkippedCorrection,
} from "./sample-rules.ts";

export interface PlannedQuestion {
  question_sha256: Sha256;
  question?: string;
  /** The expected behaviour when scored: a tool name, or null for "answer without a tool". */
  expected_tool?: string | null;
  expected_arguments_sha256?: Sha256;
  scored: boolean;
}

export interface LearnPlan {
  dry_run: true;
  sample: SampleSummary;
  tool_surface: ToolSurfaceKind | null;
  tools: string[];
  active_set_sha256: Sha256 | null;
  max_calls: number;
  prefix_sha256: Sha256;
  prefix_chars: number;
  prefix?: string;
  questions: PlannedQuestion[];
  /** Model generations a real run makes: two per scored question (without, then with the prefix). */
  generations: number;
  corrections: {
    applied: Array<{ index: number; correction_type: string; target_sha256: Sha256 }>;
    skipped: SkippedCorrection[];
  };
  warnings: ErrorJson[];
}

export interface PlanOptions {
  sample: LearnSample;
  toolset?: FrozenToolset | null;
  surface?: ToolSurface | null;
  maxCalls?: number;
  /** The model the run would use, for the base_model_mismatch warning (null: unknown yet). */
  modelId?: string | null;
  includeText?: boolean;
}

export async function planLearn(options: PlanOptions): Promise<LearnPlan> {
  const { sample } = options;
  const maxCalls = options.maxCalls ?? 4;
  const { schemas, tools } = await learnToolsOf(options.toolset, options.surface);
  const prefix = renderImprintPrefix(schemas, sample, maxCalls);
  const questions: PlannedQuestion[] = [];
  for (const q of evaluationQuestions(sample)) {
    const scored = q.expected_tool !== undefined;
    questions.push({
      question_sha256: await sha256Text(q.question),
      ...(options.includeText ? { question: q.question } : {}),
      ...(scored ? { expected_tool: q.expected_tool } : {}),
      ...(q.expected_arguments ? { expected_arguments_sha256: await sha256Json(q.expected_arguments) } : {}),
      scored,
    });
  }
  const corrections = planCorrections(sample);
  const applied = [];
  for (const a of corrections.applied)
    applied.push({
      index: a.index,
      correction_type: a.correction.correction_type,
      target_sha256: await sha256Json(a.correction.target),
    });
  return {
    dry_run: true,
    sample: await summarizeSample(sample),
    tool_surface: tools?.surface ?? null,
    tools: schemas.map((s) => s.name),
    active_set_sha256: tools?.active_set_sha256 ?? null,
    max_calls: maxCalls,
    prefix_sha256: await sha256Text(prefix),
    prefix_chars: prefix.length,
    ...(options.includeText ? { prefix } : {}),
    questions,
    generations: 2 * questions.filter((q) => q.scored).length,
    corrections: { applied, skipped: corrections.skipped },
    warnings: sampleWarnings(sample, tools ? schemas.map((s) => s.name) : null, options.modelId ?? null),
  };
}

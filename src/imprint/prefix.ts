// The imprint prefix: the fixed start of every conversation restored from an imprint. Exactly the
// tool contract of the active set (the same text a plain session injects, so baking and runtime
// instructions come from one renderer), then the sample's profile records grouped by kind, then
// its expected tool policy (and corrections). Byte-deterministic: sorted by code units, no clock,
// no locale, no randomness, so prefix_sha256 identifies it.
import { canonicalJson } from "../contract/hash.ts";
import type { ToolSchema } from "../contract/types.ts";
import { renderToolContract } from "../chat/contract.ts";
import type { LearnRecord, LearnSample } from "./sample.ts";
import { planCorrections } from "./sample-rules.ts";

// v2: fact_corrections enter the prefix only when stable (planCorrections); v1 rendered every one.
export const IMPRINT_PREFIX_VERSION = "edge.imprint.prefix.v2";

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Records sorted by (kind, record_id, text): one `[kind]` block per group, as Edge Studio renders. */
function groupRecords(records: readonly LearnRecord[]): Array<{ kind: string; records: LearnRecord[] }> {
  const sorted = [...records].sort(
    (a, b) => cmp(a.kind, b.kind) || cmp(a.record_id ?? "", b.record_id ?? "") || cmp(a.text, b.text),
  );
  const groups: Array<{ kind: string; records: LearnRecord[] }> = [];
  for (const r of sorted) {
    const last = groups.at(-1);
    if (last && last.kind === r.kind) last.records.push(r);
    else groups.push({ kind: r.kind, records: [r] });
  }
  return groups;
}

/** One line, whatever the text contains (newlines inside a record would break the block structure). */
const oneLine = (text: string): string => text.replace(/\s*[\r\n]+\s*/g, " ").trim();

function renderProfile(sample: LearnSample): string {
  const lines = [`Profile (${IMPRINT_PREFIX_VERSION}; sample ${sample.sample_id}; app ${sample.app_id}):`];
  const groups = groupRecords(sample.records);
  if (groups.length === 0) lines.push("(no records)");
  for (const g of groups) {
    lines.push(`[${g.kind}]`);
    for (const r of g.records) lines.push(`- ${oneLine(r.text)}`);
  }
  return lines.join("\n");
}

function renderPolicy(sample: LearnSample): string {
  const policy = sample.expected_tool_policy;
  const lines = ["Expected tool policy:"];
  if (policy?.description) lines.push(oneLine(policy.description));
  const tools = [...(policy?.tools_available ?? [])].sort((a, b) => cmp(a.name, b.name));
  if (tools.length) {
    lines.push("When to use each tool:");
    for (const t of tools) {
      const parts = [
        t.when ? `When: ${oneLine(t.when)}` : "",
        t.args_constraint ? `Arguments: ${oneLine(t.args_constraint)}` : "",
      ].filter(Boolean);
      lines.push(`- ${t.name}${parts.length ? ` — ${parts.join(" ")}` : ""}`);
    }
  }
  if (policy?.negative_policy?.length) {
    lines.push("Never:");
    for (const n of policy.negative_policy) lines.push(`- ${oneLine(n)}`);
  }
  const corrections = planCorrections(sample).applied.map((a) => a.correction);
  if (corrections.length) {
    // Corrections in file order (they are a history); each as canonical JSON so nothing is lost.
    lines.push("Corrections from the user (these override earlier behaviour):");
    for (const c of corrections) {
      lines.push(
        `- ${c.correction_type} ${canonicalJson(c.target)}${c.correction ? `: ${canonicalJson(c.correction)}` : ""}`,
      );
    }
  }
  if (lines.length === 1) lines.push("(none given)");
  return lines.join("\n");
}

/**
 * The prefix for an active set and a sample. With tools it starts with exactly
 * renderToolContract(schemas, maxCalls); a sample learned without tools has no contract part.
 */
export function renderImprintPrefix(schemas: readonly ToolSchema[], sample: LearnSample, maxCalls = 4): string {
  const parts = schemas.length ? [renderToolContract(schemas, maxCalls)] : [];
  parts.push(renderProfile(sample), renderPolicy(sample));
  return parts.join("\n\n");
}

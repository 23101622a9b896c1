// Real weights through the CLI, as a person runs it: `edge chat --model`, `edge chat --interactive`
// on a terminal (y/N for a commit tool) and `edge learn run --model`, on SmolLM2-135M-Instruct
// (models/real-models.json, fetched by npm run setup:models). Every command is its own process
// (bin/edge.cjs) with a fresh $EDGE_DATA_DIR, its tools in real sandboxed runners.
//
// What a 135M model picks or says is not asserted (eval/ measures that) — but for one greeting, far
// under the line where Edge weighs whether to call (tool choice "auto": the weighing is what is
// asserted). The prompts name their values and --tool narrows the active set to the tool under
// test, so the runs stay short; what is asserted is what Edge promises around the model: the call
// is valid against the tool's schema and ran once in the runner, the run then ends by itself (an
// answer in the model's own text, or its call again refused), the receipts chain and name the model
// file by its bytes, a commit tool runs once after `y`, learn scores and records its evaluation.
//
// One thread: greedy decoding then gives the same tokens wherever the same binary runs (the thread
// count changes the sums), and one is the fastest on a loaded 2-core machine. --max-tokens bounds
// each answer: a small model often writes until its budget ends.
import { closeSync, copyFileSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileSchema } from "../src/contract/ajv.ts";
import { sha256Json, sha256Text } from "../src/contract/hash.ts";
import type { Receipt } from "../src/receipts/types.ts";
import { checkCalibration } from "../src/chat/check-calibration.ts";
import { EXAMPLES, edgeCli, type CliResult } from "./cli.ts";
import { nodeLlamaAvailable } from "./engines/node-llama.ts";
import { realModel } from "./real-models.ts";
import { startEdgeSession } from "./terminal-session.ts";

const smol = realModel("smollm2-135m-instruct-q4_1");
const runtime = await nodeLlamaAvailable();
const TOOLS = join(EXAMPLES, "tools.py");
const SAMPLE = join(EXAMPLES, "learn_sample.json");

/** Each test its own data folder: receipts, pending actions, imprints and the runner snapshot
 *  (31 MB; an imprint's saved state 21 MB more), removed when the file is done. */
const dataDirs: string[] = [];
const dataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "edge-real-model-"));
  dataDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});
/** The options every model command here shares. */
const modelFlags = (): string[] => ["--model", smol!.path, "--model-sha256", smol!.sha256, "--threads", "1"];

/** `edge receipts export > FILE && edge receipts verify FILE`: the chain holds; the receipts. */
async function exportedChain(data: string): Promise<Receipt[]> {
  const exported = await edgeCli(data, "receipts", "export");
  expect(exported.code, exported.err).toBe(0);
  const file = join(data, "receipts.jsonl");
  writeFileSync(file, exported.out);
  const receipts = exported.out
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Receipt);
  const verified = await edgeCli(data, "receipts", "verify", file, "--json");
  expect(verified.code, verified.out + verified.err).toBe(0);
  expect(verified.json).toEqual({ ok: true, file, count: receipts.length });
  return receipts;
}

/** The schemas `edge tools inspect` reports for the example tools, by name. */
async function inspectedSchemas(data: string): Promise<Map<string, { parameters: object }>> {
  const inspected = await edgeCli(data, "tools", "inspect", TOOLS, "--json");
  expect(inspected.code, inspected.err).toBe(0);
  return new Map(
    (inspected.json.tools as { name: string; schema: { parameters: object } }[]).map((t) => [t.name, t.schema]),
  );
}

const expectModelFile = (receipt: Pick<Receipt, "model_fingerprint">): void =>
  expect(receipt.model_fingerprint).toEqual({
    modelId: "SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256: `sha256:${smol!.sha256}`,
    runtime: "node-llama-cpp 3.22.1",
  });

describe.skipIf(!smol || !runtime)("real weights through the CLI: SmolLM2-135M-Instruct", { timeout: 300_000 }, () => {
  it("edge chat --model: a required call, valid against the tool's schema, runs once in the sandboxed runner; then the model's turn to answer in its own words; the chain verifies and names the file's sha256", async () => {
    const data = dataDir();
    const prompt = "Where is my order A-1001?";
    const r: CliResult = await edgeCli(
      data,
      "chat",
      ...modelFlags(),
      ...[
        "--tools",
        TOOLS,
        "--tool",
        "order_status",
        "--tool-choice",
        "required",
        "--max-calls",
        "1",
        "--max-tokens",
        "64",
      ],
      ...["--prompt", prompt, "--include-text", "--json"],
    );
    const { receipt } = r.json;
    expect(receipt, r.out + r.err).toMatchObject({
      kind: "chat",
      engine: "llamacpp",
      tool_instruction_mode: "contract",
    });
    expectModelFile(receipt);

    // One call, checked and run in a runner: the runner proved it had the frozen file and answered
    // with its secret; its arguments are valid for the schema and are what the receipt hashed.
    expect(receipt.calls).toHaveLength(1);
    const [call] = receipt.calls;
    expect(call).toMatchObject({
      tool_name: "order_status",
      execution_level: "read",
      status: "ok",
      tools_file_sha256_verified: true,
      runner_secret_verified: true,
      network_used_by_edge: false,
    });
    const validate = compileSchema((await inspectedSchemas(data)).get("order_status")!.parameters);
    expect(validate(call.arguments), JSON.stringify(validate.errors)).toBe(true);
    expect(call.args_sha256).toBe(await sha256Json(call.arguments));
    // The result the model was given is the tool's own: the same call run directly hashes the same.
    const direct = await edgeCli(
      data,
      "tools",
      "call",
      TOOLS,
      "order_status",
      "--args",
      JSON.stringify(call.arguments),
      "--json",
    );
    expect(direct.code, direct.err).toBe(0);
    expect(call.result_sha256).toBe(direct.json.result_sha256);

    // Then, the budget spent, one more generation that may only answer (src/chat/model-turn.ts: its
    // grammar cannot open a call, and its text is the answer) and the run ends by itself with the
    // model's own words. What they say, a 135M model's business, is not asserted (eval/ measures it).
    expect(r.json.engine_stats.generations).toBe(2);
    expect(r.code, r.err).toBe(0);
    const answer: string = r.json.answer;
    expect(answer.trim().length).toBeGreaterThan(0);
    expect(answer.trimStart()[0]).not.toMatch(/[{`<]/);
    expect(receipt).toMatchObject({
      outcome: "answered",
      code: null,
      text: { prompt, answer },
      answer_sha256: await sha256Text(answer),
    });
    console.info(`[real weights] SmolLM2 chat: one call, then an answer; ${JSON.stringify(r.json.engine_stats)}`);

    const chain = await exportedChain(data);
    expect(chain.map((x) => [x.kind, x.id])).toEqual([
      ["chat", receipt.id],
      ["tool_call", direct.json.receipt_id],
    ]);
    expect(chain[0]!.receipt_sha256).toBe(receipt.receipt_sha256);
    expectModelFile(chain[0]!);
  });

  it("edge chat --tool-choice auto: the first turn is weighed against SmolLM2's measured line, and a greeting no tool fits is answered without a call; the receipt gives the score and the line", async () => {
    // The greeting's call start is ~2 nats under the line here (-8.54 against -6.508, 2026-12-07):
    // what is asserted is the weighing and its record, far from where a 135M model's lean decides.
    const data = dataDir();
    const prompt = "Hi! Who are you?";
    const r = await edgeCli(
      data,
      "chat",
      ...modelFlags(),
      ...["--tools", TOOLS, "--tool-choice", "auto", "--max-tokens", "64", "--prompt", prompt, "--json"],
    );
    expect(r.code, r.out + r.err).toBe(0);
    const { receipt } = r.json;
    expectModelFile(receipt);
    const line = checkCalibration(`sha256:${smol!.sha256}`)!;
    expect(line.signal).toBe("call_start");
    expect(receipt).toMatchObject({ outcome: "answered", calls: [] });
    expect(receipt.call_checks).toEqual([
      { turn: 0, tool_name: "", verdict: "no_call", score: expect.any(Number), threshold: line.threshold },
    ]);
    expect(receipt.call_checks[0].score).toBeLessThanOrEqual(line.threshold);
    // One generation: the answer, with no proposal before it.
    expect(r.json.engine_stats.generations).toBe(1);
    expect((r.json.answer as string).trim().length).toBeGreaterThan(0);
    expect((await exportedChain(data)).map((x) => x.id)).toEqual([receipt.id]);
  });

  it("a model file whose sha256 is not the --model-sha256 pin is refused (model_integrity_failed) before anything runs", async () => {
    const data = dataDir();
    // The file as a damaged download would be: a valid GGUF header, one byte of its weights changed.
    const damaged = join(data, "SmolLM2-135M-Instruct.Q4_1.gguf");
    copyFileSync(smol!.path, damaged);
    const fd = openSync(damaged, "r+");
    writeSync(fd, new Uint8Array([0x5a]), 0, 1, smol!.size - 4096);
    closeSync(fd);
    try {
      const r = await edgeCli(
        data,
        "chat",
        "--model",
        damaged,
        "--model-sha256",
        smol!.sha256,
        "--tools",
        TOOLS,
        "--tool-choice",
        "required",
        "--prompt",
        "Where is my order A-1001?",
        "--json",
      );
      expect(r.code, r.out + r.err).toBe(1);
      expect(r.json.ok).toBe(false);
      expect(r.json.error.code).toBe("model_integrity_failed");
      expect(r.json.error.message).toContain(`sha256:${smol!.sha256} was pinned`);
      // Nothing ran: no receipt (the model was never loaded, no session started).
      expect((await edgeCli(data, "receipts", "export")).out).toBe("");
    } finally {
      rmSync(damaged);
    }
  });

  it("edge chat --interactive on a terminal: the model's call of a commit tool becomes a pending action; `y` runs it once, and the receipts say so", async () => {
    const data = dataDir();
    const s = startEdgeSession(
      [
        "chat",
        "--interactive",
        ...modelFlags(),
        "--tools",
        TOOLS,
        "--tool",
        "submit_order",
        "--tool-choice",
        "required",
        "--max-tokens",
        "64",
        "--include-text",
      ],
      { env: { ...process.env, EDGE_DATA_DIR: data }, waitMs: 240_000, tty: true },
    );
    try {
      await s.waitFor(/tools frozen for this session: submit_order[\s\S]*you> /);
      s.child.stdin.write("Submit my order draft D-KB-42-3.\r");
      await s.waitFor(
        /submit_order is a commit tool; it has not run\. Arguments: \{[\s\S]*Run submit_order now\? \[y\/N\] /,
      );
      s.child.stdin.write("y\r");
      await s.waitFor(/(pa_\w+): done, receipt (confirm_\w+)[\s\S]*you> /);
      s.child.stdin.write("/exit\r");
      expect(await s.exit).toBe(0);
    } finally {
      await s.close();
    }
    const [, pendingId, confirmId] = /(pa_\w+): done, receipt (confirm_\w+)/.exec(s.out())!;

    const chain = await exportedChain(data);
    expect(chain).toHaveLength(2);
    const [chat, confirm] = chain as [Receipt, Receipt];
    // The pending action came from the model's call: the chat receipt, on the real model file.
    expect(chat).toMatchObject({
      kind: "chat",
      outcome: "pending_confirmation",
      code: "tool_confirmation_required",
      extra: { pending_action_id: pendingId },
    });
    expectModelFile(chat);
    expect(chat.calls).toHaveLength(1);
    const asked = chat.calls[0]!;
    expect(asked).toMatchObject({
      tool_name: "submit_order",
      execution_level: "commit",
      status: "pending_confirmation",
      runner_secret_verified: false,
      result_sha256: null,
    });
    const validate = compileSchema((await inspectedSchemas(data)).get("submit_order")!.parameters);
    expect(validate(asked.arguments), JSON.stringify(validate.errors)).toBe(true);

    // `y` ran exactly those arguments, once, in a runner; the result is the tool's for them.
    expect(confirm).toMatchObject({
      kind: "confirm",
      id: confirmId,
      outcome: "return_direct",
      code: null,
      extra: { pending_action_id: pendingId },
    });
    expect(confirm.calls).toHaveLength(1);
    expect(confirm.calls[0]).toMatchObject({
      tool_name: "submit_order",
      status: "ok",
      args_sha256: asked.args_sha256,
      tools_file_sha256_verified: true,
      runner_secret_verified: true,
    });
    const { draft_id: draftId } = asked.arguments as { draft_id: string };
    const result = { order_id: `O-${draftId.replace(/^D-/, "")}`, draft_id: draftId, status: "submitted" };
    expect(confirm.calls[0]!.result_sha256).toBe(await sha256Json(result));
    expect(s.out()).toContain(`"draft_id": ${JSON.stringify(draftId)}`);
    // Done is final: the action cannot run again.
    const pending = await edgeCli(data, "tools", "pending", "show", pendingId!, "--json");
    expect(pending.json.pending).toMatchObject({
      id: pendingId,
      status: "done",
      receipt_id: confirmId,
      args_sha256: asked.args_sha256,
    });
  });

  it("edge learn run --model: the evaluation runs on the real model with and without the imprint, the scores are in range, and the learn receipt records them and the model file", async () => {
    const data = dataDir();
    const r = await edgeCli(
      data,
      "learn",
      "run",
      ...modelFlags(),
      "--sample-file",
      SAMPLE,
      "--tools",
      TOOLS,
      "--max-tokens",
      "48",
      "--json",
    );
    expect(r.code, r.out + r.err).toBe(0);
    const { evaluation } = r.json;
    expect(evaluation).toMatchObject({
      mode: "engine",
      engine: "llamacpp",
      model_id: "SmolLM2-135M-Instruct.Q4_1.gguf",
      question_count: 6,
      scored: 5,
    });
    expect(evaluation.items).toHaveLength(5);
    for (const [matched, key] of [
      [evaluation.matched_without_prefix, "matched_without"],
      [evaluation.matched_with_prefix, "matched_with"],
    ] as const) {
      expect(matched).toBeGreaterThanOrEqual(0);
      expect(matched).toBeLessThanOrEqual(5);
      expect(evaluation.items.filter((i: Record<string, boolean>) => i[key]).length).toBe(matched);
    }
    // The imprint's prefix was evaluated by this model and saved beside it, bound to the file.
    expect(r.json.state).toMatchObject({
      model_sha256: `sha256:${smol!.sha256}`,
      runtime: "node-llama-cpp 3.22.1",
      prefix_sha256: r.json.prefix_sha256,
    });
    expect(r.json.state.prefix_tokens).toBeGreaterThan(0);

    const [learned, ...more] = await exportedChain(data);
    expect(more).toEqual([]);
    expect(learned).toMatchObject({
      kind: "learn",
      id: r.json.receipt_id,
      outcome: "answered",
      imprint_id: r.json.imprint_id,
      tool_instruction_mode: "imprint",
      tool_instruction_sha256: r.json.prefix_sha256,
      active_set_sha256: r.json.active_set_sha256,
      extra: {
        evaluation: {
          mode: "engine",
          scored: 5,
          matched_without_prefix: evaluation.matched_without_prefix,
          matched_with_prefix: evaluation.matched_with_prefix,
        },
      },
    });
    expectModelFile(learned!);
    console.info(
      `[real weights] SmolLM2 learn: expected behaviour ${evaluation.matched_without_prefix}/5 without the imprint, ${evaluation.matched_with_prefix}/5 with it`,
    );
  }, 600_000); // ten generations and the imprint's prefix (≈ 930 tokens) on one thread
});

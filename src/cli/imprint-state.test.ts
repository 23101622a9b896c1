// An imprint's saved model state, through the CLI with the generated model and the real
// runtime (node-llama-cpp): `edge learn run --model` saves the prefix's state beside the imprint;
// `edge chat --with-imprint` restores it (the first turn evaluates only the new tokens) or, for any
// state that does not fit — another context size, a truncated, edited, missing or foreign file, a
// record bound to another model file or runtime — detects it before loading and re-prefills the
// prefix, saying why in the receipt; `edge imprints export/import` carry the state.
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sealImprint, type Imprint } from "../imprint/index.ts";
import { writeTestModel } from "../../test/fixtures/gguf.ts";
import { nodeLlamaAvailable } from "../../test/engines/node-llama.ts";
import { EXAMPLES, cli, writeTestFile } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-imprint-state-"));
const DATA = join(tmp, "data");
process.env.EDGE_DATA_DIR = DATA;
// The example sample's profile without its policy: a prefix of ~800 tokens keeps each re-prefill short.
const example = JSON.parse(readFileSync(join(EXAMPLES, "learn_sample.json"), "utf8"));
const SAMPLE = writeTestFile(tmp, "sample.json", { ...example, expected_tool_policy: null, tool_schema_export: null });
const model = writeTestModel();
const other = writeTestModel({ seed: 2 });
const available = await nodeLlamaAvailable();

const imprintsDir = () => join(process.env.EDGE_DATA_DIR!, "imprints");
const sha = (file: string) => `sha256:${createHash("sha256").update(readFileSync(file)).digest("hex")}`;
const learnWith = async (modelPath: string) => {
  const r = await cli(
    "learn",
    "run",
    "--sample-file",
    SAMPLE,
    "--model",
    modelPath,
    "--threads",
    "1",
    "--no-evaluate",
    "--json",
  );
  expect(r.code, r.err).toBe(0);
  return r.json as { imprint_id: string; prefix_sha256: string; state: NonNullable<Imprint["state"]> };
};
/** One chat turn with free text (no tools), a short greedy answer. */
const chat = (imprint: string, ...extra: string[]) =>
  cli(
    "chat",
    "--with-imprint",
    imprint,
    "--model",
    model.path,
    "--threads",
    "1",
    "--tool-choice",
    "none",
    "--max-tokens",
    "8",
    "--prompt",
    "Hi, what can you do?",
    "--json",
    ...extra,
  );

let A: Awaited<ReturnType<typeof learnWith>>;
beforeAll(async () => {
  if (available) A = await learnWith(model.path);
}, 120_000);

describe.skipIf(!available)("an imprint's saved model state (llama.cpp, generated model)", () => {
  it("learn saves the prefix's state beside the imprint, bound to model, runtime, context and tokens; chat restores it and evaluates only the new tokens", async () => {
    const stateFile = join(imprintsDir(), `${A.imprint_id}.state`);
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(A.state).toMatchObject({
      format: "llama.cpp.seq_state",
      model_sha256: `sha256:${model.sha256}`,
      runtime: "node-llama-cpp 3.22.1",
      context_size: 4096,
      prefix_sha256: A.prefix_sha256,
      artifact_bytes: statSync(stateFile).size,
      artifact_sha256: sha(stateFile),
    });
    expect(A.state.prefix_tokens).toBeGreaterThan(500);

    const restored = await chat(A.imprint_id);
    expect(restored.code, restored.err).toBe(0);
    const r = restored.json.receipt;
    expect(r).toMatchObject({ tool_instruction_mode: "imprint", imprint_id: A.imprint_id, imprint_restore: "state" });
    expect(r.imprint_prefix).toMatchObject({
      prefix_cache: "state_file",
      prefix_tokens: A.state.prefix_tokens,
      prefix_tokens_evaluated: 0,
    });
    // The first turn evaluated exactly the tokens after the restored prefix: the question and the template around it.
    const p = r.imprint_prefix;
    expect(p.prompt_tokens_evaluated).toBe(p.prompt_tokens - A.state.prefix_tokens);
    expect(p.prompt_tokens_evaluated).toBeLessThan(40);

    // The same chat re-prefilling the prefix (its state made unusable) answers the same: the
    // restored state is the prefix's evaluation, not an approximation of it.
    const saved = readFileSync(stateFile);
    writeFileSync(stateFile, saved.subarray(0, saved.length - 1));
    const refilled = await chat(A.imprint_id);
    writeFileSync(stateFile, saved);
    expect(refilled.json.receipt.imprint_restore).toBe("prefix");
    expect(refilled.json.receipt.imprint_prefix.prefix_tokens_evaluated).toBe(A.state.prefix_tokens);
    expect(refilled.json.answer).toBe(restored.json.answer);
  });

  it("a state that does not fit is detected before loading: the chat re-prefills the prefix and the receipt says why", async () => {
    const dir = imprintsDir();
    const stateFile = join(dir, `${A.imprint_id}.state`);
    const recordFile = join(dir, `${A.imprint_id}.json`);
    const B = await learnWith(other.path);
    const original = { state: readFileSync(stateFile), record: readFileSync(recordFile, "utf8") };
    /** Re-seal the record with another binding (a record edited and re-hashed by hand). */
    const forged = async (change: Partial<NonNullable<Imprint["state"]>>) => {
      const record = JSON.parse(original.record) as Imprint;
      writeFileSync(
        recordFile,
        JSON.stringify(await sealImprint({ ...record, state: { ...record.state!, ...change } })),
      );
    };
    const cases: Array<[string, () => void | Promise<void>, string[], string, string]> = [
      ["another context size", () => undefined, ["--ctx-size", "2048"], "imprint_state_mismatch", "context_size"],
      ["a truncated state file", () => truncateSync(stateFile, 5000), [], "imprint_state_corrupted", "truncated"],
      [
        "an edited state file",
        () => writeFileSync(stateFile, Buffer.from(original.state).fill(7, 60_000, 60_001)),
        [],
        "imprint_state_corrupted",
        "sha256",
      ],
      [
        "another model's state file",
        () => copyFileSync(join(dir, `${B.imprint_id}.state`), stateFile),
        [],
        "imprint_state_corrupted",
        "sha256",
      ],
      ["a missing state file", () => rmSync(stateFile), [], "imprint_state_corrupted", "missing"],
      [
        "a record bound to another model file",
        () => forged({ model_sha256: `sha256:${other.sha256}` }),
        [],
        "imprint_state_mismatch",
        "model_sha256",
      ],
      [
        "a record bound to another runtime",
        () => forged({ runtime: "node-llama-cpp 9.9.9" }),
        [],
        "imprint_state_mismatch",
        "runtime",
      ],
    ];
    for (const [what, damage, flags, code, reason] of cases) {
      await damage();
      const r = await chat(A.imprint_id, ...flags);
      writeFileSync(stateFile, original.state, { mode: 0o600 });
      writeFileSync(recordFile, original.record);
      expect([what, r.code], r.err).toEqual([what, 0]);
      expect([what, r.json.receipt.imprint_restore, r.json.receipt.imprint_prefix.state_fallback]).toEqual([
        what,
        "prefix",
        { code, reason },
      ]);
      // Nothing was loaded: the whole prefix was evaluated for this chat.
      expect([what, r.json.receipt.imprint_prefix.prefix_tokens_evaluated]).toEqual([what, A.state.prefix_tokens]);
    }
    // An imprint learned with another model fails closed at the gate, before any state or generation.
    const foreign = await chat(B.imprint_id);
    expect(foreign).toMatchObject({ code: 1, json: { error: { code: "imprint_model_mismatch" } } });
  }, 180_000);

  it("export and import carry the state (checked by its hash); a tampered or damaged state is refused; delete removes it", async () => {
    const file = join(tmp, "a.imprint.json");
    expect(await cli("imprints", "export", A.imprint_id, "-o", file, "--json")).toMatchObject({
      code: 0,
      json: { state: true },
    });
    const bundle = JSON.parse(readFileSync(file, "utf8"));
    expect(bundle.export_version).toBe("edge.imprint.export.v2");
    expect(bundle.imprint.state.artifact_sha256).toBe(A.state.artifact_sha256);
    // An exported file restores from the state it carries, without importing it.
    expect((await chat(file)).json.receipt.imprint_restore).toBe("state");

    // Into another data folder: the state lands beside the record, private, byte for byte.
    process.env.EDGE_DATA_DIR = join(tmp, "elsewhere");
    try {
      const tampered = {
        ...bundle,
        state_base64: `${bundle.state_base64.slice(0, 1000)}AAAA${bundle.state_base64.slice(1004)}`,
      };
      const tamperedFile = join(tmp, "tampered.json");
      writeFileSync(tamperedFile, JSON.stringify(tampered));
      const refused = await cli("imprints", "import", tamperedFile, "--json");
      expect(refused).toMatchObject({ code: 1, json: { error: { code: "imprint_state_corrupted" } } });
      expect(existsSync(imprintsDir()) ? readdirSync(imprintsDir()) : []).toEqual([]);

      expect(await cli("imprints", "import", file, "--json")).toMatchObject({
        code: 0,
        json: { imprint_id: A.imprint_id, state: true },
      });
      const imported = join(imprintsDir(), `${A.imprint_id}.state`);
      expect([sha(imported), statSync(imported).mode & 0o777]).toEqual([A.state.artifact_sha256, 0o600]);
      expect((await chat(A.imprint_id)).json.receipt.imprint_restore).toBe("state");
      expect((await cli("imprints", "show", A.imprint_id, "--json")).json.state).toMatchObject({ intact: true });

      // A damaged state is never passed on; --without-state exports the imprint alone.
      truncateSync(imported, 100);
      expect((await cli("imprints", "show", A.imprint_id, "--json")).json.state).toMatchObject({
        intact: false,
        problem: { code: "imprint_state_corrupted", reason: "truncated" },
      });
      const damaged = await cli("imprints", "export", A.imprint_id, "--json");
      expect(damaged).toMatchObject({ code: 1, json: { error: { code: "imprint_state_corrupted" } } });
      const alone = join(tmp, "alone.json");
      expect(await cli("imprints", "export", A.imprint_id, "--without-state", "-o", alone, "--json")).toMatchObject({
        code: 0,
        json: { state: false },
      });
      const withoutState = await chat(alone);
      expect(withoutState.json.receipt.imprint_prefix.state_fallback).toEqual({
        code: "imprint_state_corrupted",
        reason: "missing",
      });

      expect((await cli("imprints", "delete", A.imprint_id, "--json")).code).toBe(0);
      expect(readdirSync(imprintsDir())).toEqual([]);
    } finally {
      process.env.EDGE_DATA_DIR = DATA;
    }
  });
});

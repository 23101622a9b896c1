// `edge chat --model`'s saved conversation start, through the CLI with the real runtime
// (node-llama-cpp): the first chat evaluates the tool contract and saves its state in
// $EDGE_DATA_DIR/start-states; the next chat with the same model file, context size and tools loads
// it and evaluates only its question. Another tools file, model or --ctx-size is another entry; a
// damaged, edited or foreign entry is detected before loading and falls back to evaluating (and
// saving anew), said in the receipt; the cap evicts the least recently used; --no-start-state and
// EDGE_START_STATE=0 keep nothing. The generated model (random weights) proves the plumbing; the
// real SmolLM2 that a restored chat answers exactly as an evaluated one.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeTestModel } from "../../test/fixtures/gguf.ts";
import { nodeLlamaAvailable } from "../../test/engines/node-llama.ts";
import { realModel } from "../../test/real-models.ts";
import { EXAMPLES, cli, writeTestFile, type CliResult } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-start-state-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");
const available = await nodeLlamaAvailable();
const model = writeTestModel();
const other = writeTestModel({ seed: 2 });
const smol = realModel("smollm2-135m-instruct-q4_1");

const tool = (doc: string) =>
  `from edgestudio.tools import edge_tool\n\n@edge_tool\ndef order_status(order_id: str) -> dict:\n    """${doc}"""\n    return {"order_id": order_id, "status": "shipped"}\n`;
// Each tools file in a folder of its own (its tools project), apart from the data folders.
const toolsFile = (name: string, doc: string) =>
  writeTestFile(mkdtempSync(join(tmp, `${name}-`)), "tools.py", tool(doc));
const TOOLS_A = toolsFile("a", "Look up the status of an order by its id.");
const TOOLS_B = toolsFile("b", "Look up where an order is, by its id.");
const SLOW = { timeout: 240_000 };

const statesDir = () => join(process.env.EDGE_DATA_DIR!, "start-states");
const entries = () =>
  existsSync(statesDir())
    ? readdirSync(statesDir())
        .filter((n) => n.endsWith(".state"))
        .sort()
    : [];
/** One chat turn with free text (the contract still starts the conversation), a short greedy answer. */
async function chat(tools: string, ...extra: string[]): Promise<CliResult & { prefix: Record<string, unknown> }> {
  const r = await cli(
    "chat",
    "--tools",
    tools,
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
  expect(r.code, r.out + r.err).toBe(0);
  return { ...r, prefix: r.json.receipt.contract_prefix };
}
/** A fresh data folder for each test. */
let n = 0;
afterEach(() => {
  process.env.EDGE_DATA_DIR = join(tmp, `data-${++n}`);
  delete process.env.EDGE_START_STATE;
  delete process.env.EDGE_START_STATE_MAX_MB;
});

describe.skipIf(!available)("a chat's saved conversation start (llama.cpp, generated model)", () => {
  it(
    "the first chat evaluates the contract and saves it (private, one file); the next loads it and evaluates only its question",
    SLOW,
    async () => {
      const first = await chat(TOOLS_A);
      expect(first.prefix).toMatchObject({
        prefix_cache: "state_saved",
        prefix_tokens_evaluated: first.prefix["prefix_tokens"],
      });
      expect(first.prefix["prefix_tokens"]).toBeGreaterThan(100);
      expect(first.prefix).not.toHaveProperty("state_fallback");
      const [name] = entries();
      expect(entries()).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.state$/)]);
      expect([statSync(statesDir()).mode & 0o777, statSync(join(statesDir(), name!)).mode & 0o777]).toEqual([
        0o700, 0o600,
      ]);
      expect(readdirSync(statesDir())).toEqual([name]); // no temp file left

      const second = await chat(TOOLS_A);
      expect(second.json.receipt).toMatchObject({ tool_instruction_mode: "contract", imprint_id: null });
      expect(second.json.receipt).not.toHaveProperty("imprint_restore");
      expect(second.prefix).toMatchObject({
        prefix_cache: "state_file",
        prefix_tokens: first.prefix["prefix_tokens"],
        prefix_tokens_evaluated: 0,
      });
      // The first turn evaluated exactly what follows the restored start: the question and its template.
      expect(second.prefix["prompt_tokens_evaluated"]).toBe(
        (second.prefix["prompt_tokens"] as number) - (first.prefix["prefix_tokens"] as number),
      );
      expect(second.json.answer).toBe(first.json.answer);
    },
  );

  it("another tools file, model or context size is another entry: nothing is reused", SLOW, async () => {
    const a = await chat(TOOLS_A);
    for (const [what, tools, extra] of [
      ["another tools file", TOOLS_B, []],
      ["another model file", TOOLS_A, ["--model", other.path]],
      ["another context size", TOOLS_A, ["--ctx-size", "2048"]],
    ] as const) {
      const r = await chat(tools, ...extra);
      expect([what, r.prefix["prefix_cache"], r.prefix["prefix_tokens_evaluated"]]).toEqual([
        what,
        "state_saved",
        r.prefix["prefix_tokens"],
      ]);
      expect([what, r.prefix["state_fallback"]]).toEqual([what, undefined]);
    }
    expect(entries()).toHaveLength(4);
    expect((await chat(TOOLS_A)).prefix).toMatchObject({
      prefix_cache: "state_file",
      prefix_tokens: a.prefix["prefix_tokens"],
    });
  });

  it(
    "a damaged, edited or foreign entry is not loaded: the chat evaluates the contract, says why, and saves it anew",
    SLOW,
    async () => {
      await chat(TOOLS_B);
      const [foreign] = entries();
      const foreignBytes = readFileSync(join(statesDir(), foreign!));
      await chat(TOOLS_A);
      const file = join(statesDir(), entries().find((e) => e !== foreign)!);
      const saved = readFileSync(file);
      const header = saved.subarray(0, saved.indexOf(0x0a)).toString("utf8");
      const cases: Array<[string, () => void, string, string]> = [
        ["a truncated entry", () => truncateSync(file, saved.length - 100), "start_state_corrupted", "truncated"],
        [
          "a changed byte in the state",
          () => writeFileSync(file, Buffer.from(saved).fill(7, saved.length - 50, saved.length - 49)),
          "start_state_corrupted",
          "sha256",
        ],
        [
          "an edited binding (not re-signed)",
          () =>
            writeFileSync(
              file,
              Buffer.concat([
                Buffer.from(header.replace('"context_size":4096', '"context_size":4095')),
                saved.subarray(header.length),
              ]),
            ),
          "start_state_corrupted",
          "signature",
        ],
        [
          "another start's entry under this name",
          () => writeFileSync(file, foreignBytes),
          "start_state_mismatch",
          "key",
        ],
        ["not an entry at all", () => writeFileSync(file, "garbage"), "start_state_corrupted", "header"],
      ];
      for (const [what, damage, code, reason] of cases) {
        damage();
        const r = await chat(TOOLS_A);
        expect([what, r.prefix["prefix_cache"], r.prefix["state_fallback"]]).toEqual([
          what,
          "state_saved",
          { code, reason },
        ]);
        expect([what, r.prefix["prefix_tokens_evaluated"]]).toEqual([what, r.prefix["prefix_tokens"]]);
        // Saved anew: the next chat restores it.
        expect([what, (await chat(TOOLS_A)).prefix["prefix_cache"]]).toEqual([what, "state_file"]);
      }
    },
  );

  it(
    "a start that cannot be saved is evaluated all the same: the chat answers, the receipt and stderr say why",
    SLOW,
    async () => {
      mkdirSync(process.env.EDGE_DATA_DIR!, { recursive: true });
      writeFileSync(statesDir(), "a file where the folder should be");
      const r = await chat(TOOLS_A);
      expect(r.prefix).toMatchObject({
        prefix_cache: "engine",
        prefix_tokens_evaluated: r.prefix["prefix_tokens"],
        state_save_failed: { code: "storage_failed", reason: "EEXIST" },
      });
      const text = await cli(
        "chat",
        "--tools",
        TOOLS_A,
        "--model",
        model.path,
        "--threads",
        "1",
        "--tool-choice",
        "none",
        "--max-tokens",
        "8",
        "--prompt",
        "Hi",
      );
      expect(text.code, text.err).toBe(0);
      expect(text.err).toContain("conversation start not saved: storage_failed (EEXIST)");
    },
  );

  it("the cap evicts the least recently used entries (one just used stays)", SLOW, async () => {
    await chat(TOOLS_A); // A
    const [a] = entries();
    const size = statSync(join(statesDir(), a!)).size;
    process.env.EDGE_START_STATE_MAX_MB = String((2.5 * size) / 1024 / 1024);
    await chat(TOOLS_A, "--ctx-size", "2048"); // B
    const b = entries().find((e) => e !== a)!;
    expect((await chat(TOOLS_A)).prefix["prefix_cache"]).toBe("state_file"); // A used again: B is now the oldest
    await chat(TOOLS_A, "--ctx-size", "3072"); // C: three do not fit
    expect(entries()).toHaveLength(2);
    expect(entries()).toContain(a);
    expect(entries()).not.toContain(b);
  });

  it("--no-start-state and EDGE_START_STATE=0 neither load nor save a start", SLOW, async () => {
    const off = await chat(TOOLS_A, "--no-start-state");
    expect(off.json.receipt).not.toHaveProperty("contract_prefix");
    process.env.EDGE_START_STATE = "0";
    expect((await chat(TOOLS_A)).json.receipt).not.toHaveProperty("contract_prefix");
    expect(entries()).toEqual([]);
  });
});

describe("engines that cannot save a state", () => {
  it("the scripted engine's receipt has no contract_prefix", async () => {
    const r = await cli(
      "chat",
      "--tools",
      TOOLS_A,
      "--engine",
      "scripted",
      "--script",
      writeTestFile(tmp, "hi.json", ["hi"]),
      "--prompt",
      "hi",
      "--json",
    );
    expect(r.code, r.err).toBe(0);
    expect(r.json.receipt).not.toHaveProperty("contract_prefix");
  });
});

describe.skipIf(!available || !smol)("a saved conversation start with real weights (SmolLM2-135M-Instruct)", () => {
  it(
    "the restored chat evaluates only its question and answers exactly as the one that evaluated the contract",
    SLOW,
    async () => {
      const run = () =>
        cli(
          "chat",
          "--tools",
          join(EXAMPLES, "tools.py"),
          "--model",
          smol!.path,
          "--threads",
          "1",
          "--tool-choice",
          "none",
          "--max-tokens",
          "16",
          "--prompt",
          "Which tools do you have?",
          "--json",
        );
      const first = await run();
      const second = await run();
      expect([first.code, second.code], first.err + second.err).toEqual([0, 0]);
      const [p1, p2] = [first.json.receipt.contract_prefix, second.json.receipt.contract_prefix];
      expect(p1).toMatchObject({ prefix_cache: "state_saved", prefix_tokens_evaluated: p1.prefix_tokens });
      expect(p2).toMatchObject({
        prefix_cache: "state_file",
        prefix_tokens: p1.prefix_tokens,
        prefix_tokens_evaluated: 0,
      });
      expect(p2.prompt_tokens_evaluated).toBe(p2.prompt_tokens - p1.prefix_tokens);
      expect(second.json.answer).toBe(first.json.answer);
    },
  );
});

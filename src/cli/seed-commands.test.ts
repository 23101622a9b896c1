// Every `edge …` command quoted in Edge Studio's product pages (the seeds) runs here as written,
// with one substitution: the MLX model id (`--model qwen3.5-9b-4bit`) becomes the scripted engine
// (`--engine scripted --script OUTPUTS.json`). The documented placeholders (<pending_action_path>,
// <confirmation_token>, <artifact-or-receipt-path>) are filled from the earlier commands' output.
// The commands with --model also run with a real GGUF model instead (the generated test model in
// llama.cpp; the substitution is then the model file, run on one thread): they need the optional
// runtime (npm run setup:llama), which CI installs.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LARGER_TEST_MODEL, writeTestModel } from "../../test/fixtures/gguf.ts";
import { nodeLlamaAvailable } from "../../test/engines/node-llama.ts";
import { joinedCommands } from "../../test/shell-commands.ts";
import { EXAMPLES, cli, type CliResult } from "../../test/cli.ts";

/** The commands of the seeds, verbatim (line continuations joined). */
const SEED_COMMANDS = [
  `edge demo chat --model qwen3.5-9b-4bit --tools ./tools.py --prompt "Use the calculate_fee tool for amount 250. State the exact fee."`,
  `edge tools confirm '<pending_action_path>' --token '<confirmation_token>' --json`,
  `edge tools validate ./tools.py --json`,
  `edge tools inspect  ./tools.py --json`,
  `edge demo chat --model qwen3.5-9b-4bit --tools ./tools.py --prompt "Quote the fee for amount 400, tier pro." --json`,
  `edge demo learn run --sample-file ./learn_sample.json --model qwen3.5-9b-4bit --tools ./tools.py --json`,
  `edge demo chat --model qwen3.5-9b-4bit --with-imprint <artifact-or-receipt-path> --tools ./tools.py --prompt "Quote the fee for amount 100." --json`,
];
const MLX_MODEL = "qwen3.5-9b-4bit";
const llama = await nodeLlamaAvailable();

/** The seeds folder (shared/seeds beside the checkout, or above it), if this machine has it. */
function seedsDir(): string | null {
  for (let dir = new URL("../../", import.meta.url).pathname; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, "shared", "seeds");
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** Lines starting with `edge `, with their `\` continuations. */
function extractCommands(text: string): string[] {
  return joinedCommands(text.split("\n"), (line) => line.startsWith("edge "));
}

/** POSIX-shell words: whitespace-separated, with '…' and "…" quoting (all these commands use). */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1);
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** The one substitution: the MLX model id becomes the scripted engine with these outputs, or
 *  (`gguf`) this GGUF model file. */
function asWritten(command: string, fill: Record<string, string>, script?: string, gguf?: string): string[] {
  let text = command;
  for (const [placeholder, value] of Object.entries(fill)) text = text.replaceAll(placeholder, value);
  const words = shellWords(text);
  expect(words[0]).toBe("edge");
  const at = words.indexOf("--model");
  if (at >= 0 && gguf) {
    expect(words[at + 1]).toBe(MLX_MODEL);
    // The generated model's vocabulary is bytes: the learned prefix of these five tools is ~4,000
    // tokens (a real tokenizer needs about a quarter), so it runs with an 8k window.
    words.splice(at, 2, "--model", gguf, "--threads", "1", "--ctx-size", "8192");
  } else if (at >= 0) {
    expect(words[at + 1]).toBe(MLX_MODEL);
    expect(script, "a command with --model needs a script").toBeDefined();
    words.splice(at, 2, "--engine", "scripted", "--script", script!);
  }
  return words.slice(1);
}

const tmp = mkdtempSync(join(tmpdir(), "edge-seed-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");
const work = join(tmp, "project");
const call = (name: string, args: object): string => JSON.stringify({ tool_name: name, arguments: args });
const script = (name: string, outputs: string[]): string => {
  const p = join(tmp, `${name}.json`);
  writeFileSync(p, JSON.stringify(outputs));
  return p;
};
// The seed's own tools.py (both of its examples) and one commit tool, so `tools confirm` has an action.
const COMMIT_TOOL = `

@edge_tool(
    description="Place a prepared order for real.",
    execution_level="commit",
    return_direct=True,
    output_schema={
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "status": {"type": "string", "enum": ["placed"]}},
        "required": ["order_id", "status"],
        "additionalProperties": False,
    },
)
def place_order(order_id: str) -> dict:
    return {"order_id": order_id, "status": "placed"}
`;

let cwd: string;
beforeAll(() => {
  cwd = process.cwd();
  mkdirSync(work);
  writeFileSync(join(work, "tools.py"), readFileSync(join(EXAMPLES, "seed_tools.py"), "utf8") + COMMIT_TOOL);
  process.chdir(work);
});
afterAll(() => process.chdir(cwd));

async function run(argv: string[]): Promise<CliResult> {
  const r = await cli(...argv);
  expect(r.code, `edge ${argv.join(" ")}\n${r.out}${r.err}`).toBe(0);
  return r;
}

/** A --model command on random weights: whatever the model does is its own, so a run that stops at a
 *  confirmation (it proposed the commit tool, and the check let it through) is a command that ran. */
async function runModel(argv: string[]): Promise<CliResult> {
  const r = await cli(...argv);
  const pending = r.code === 1 && /"outcome": "pending_confirmation"|outcome: pending_confirmation/.test(r.out + r.err);
  expect(r.code === 0 || pending, `edge ${argv.join(" ")}\n${r.out}${r.err}`).toBe(true);
  return r;
}

describe("Edge Studio's commands, as written", () => {
  it("the list is exactly what the seeds quote", (ctx) => {
    const dir = seedsDir();
    if (!dir) return ctx.skip("shared/seeds is not beside this checkout; the verbatim list above is used");
    const found = readdirSync(dir)
      .filter((f) => f.endsWith(".txt"))
      .sort()
      .flatMap((f) => extractCommands(readFileSync(join(dir, f), "utf8")));
    expect(found.map((c) => c.replace(/\s+/g, " "))).toEqual(SEED_COMMANDS.map((c) => c.replace(/\s+/g, " ")));
  });

  // Slow on a busy machine: the first command builds this data dir's runner snapshot (≈ 25 s).
  it("each one runs, in order, in a project folder with ./tools.py", { timeout: 180_000 }, async () => {
    const [chat250, confirm, validate, inspect, chat400, learnRun, chatImprint] = SEED_COMMANDS as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];

    const first = await run(
      asWritten(chat250, {}, script("chat250", [call("calculate_fee", { amount: 250 }), "The fee is 0.75."])),
    );
    expect(first.out).toBe("The fee is 0.75.\n");

    // A commit tool's pending action (created the way chat does), then the seed's confirm command.
    const pending = await cli(
      "chat",
      "--tools",
      "./tools.py",
      "--engine",
      "scripted",
      "--script",
      script("commit", [call("place_order", { order_id: "A-1" })]),
      "--prompt",
      "Place order A-1.",
      "--json",
    );
    expect(pending.json.outcome).toBe("pending_confirmation");
    const confirmed = await run(
      asWritten(confirm, {
        "<pending_action_path>": pending.json.pending_action.pending_action_path,
        "<confirmation_token>": pending.json.pending_action.confirmation_token,
      }),
    );
    expect(confirmed.json).toMatchObject({ ok: true, status: "done", result: { order_id: "A-1", status: "placed" } });

    expect((await run(asWritten(validate, {}))).json).toMatchObject({ ok: true, tool_count: 6, active_count: 6 });
    const inspected = (await run(asWritten(inspect, {}))).json;
    expect(inspected.schema_generator_version).toBe("edge.tools.schema_gen.v1");
    expect(inspected.active_tools).toEqual([
      "hello_world",
      "calculate_fee",
      "order_status",
      "fee_quote",
      "prepare_order",
      "place_order",
    ]);

    const quote = await run(
      asWritten(chat400, {}, script("chat400", [call("fee_quote", { amount: 400, tier: "pro" }), "The fee is 0.80."])),
    );
    expect(quote.json).toMatchObject({ ok: true, outcome: "answered", answer: "The fee is 0.80." });
    expect(quote.json.receipt.calls[0]).toMatchObject({ tool_name: "fee_quote", status: "ok" });

    // ./learn_sample.json: the starting sample `edge learn sample init` writes for these tools.
    await run(["learn", "sample", "init", "--tools", "./tools.py", "--output", "./learn_sample.json"]);
    const sample = JSON.parse(readFileSync(join(work, "learn_sample.json"), "utf8"));
    const args: Record<string, object> = {
      calculate_fee: { amount: 1 },
      fee_quote: { amount: 1 },
      order_status: { order_id: "A-1" },
      prepare_order: { order_id: "A-1" },
      place_order: { order_id: "A-1" },
    };
    const evaluation = sample.questions.flatMap((q: { expected_tool: string | null }) =>
      q.expected_tool
        ? ["Not sure.", call(q.expected_tool, args[q.expected_tool] ?? {})]
        : [call("hello_world", {}), "I quote fees and look up orders."],
    );
    const learned = await run(asWritten(learnRun, {}, script("learn", evaluation)));
    expect(learned.json).toMatchObject({
      ok: true,
      tool_surface: "tools_file",
      evaluation: { scored: 7, matched_with_prefix: 7 },
    });

    const restored = await runModel(
      asWritten(
        chatImprint,
        { "<artifact-or-receipt-path>": learned.json.receipt_path },
        script("chat100", [call("fee_quote", { amount: 100 }), "The fee is 0.30."]),
      ),
    );
    expect(restored.json.receipt).toMatchObject({
      tool_instruction_mode: "imprint",
      imprint_id: learned.json.imprint_id,
    });
  });

  // With a real model: the generated GGUF in llama.cpp (random weights: the run's outcome is
  // whatever the model does, within the loop's rules; here every one answers or calls and ends 0).
  it.skipIf(!llama)(
    "the --model commands run with a real GGUF model (llama.cpp, the generated test model)",
    { timeout: 300_000 },
    async () => {
      const gguf = writeTestModel(LARGER_TEST_MODEL).path;
      const [chat250, , , , chat400, learnRun, chatImprint] = SEED_COMMANDS as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const first = await runModel(asWritten(chat250, {}, undefined, gguf));
      // A real model's speed is part of the line (engine_stats).
      expect(first.err).toMatch(
        /outcome: (answered|return_direct|pending_confirmation), tool calls: \d+, first token \d+ ms, [\d.]+ tokens\/s, receipt: run_/,
      );
      const quote = await runModel(asWritten(chat400, {}, undefined, gguf));
      expect(quote.json.receipt).toMatchObject({
        engine: "llamacpp",
        model_fingerprint: { runtime: "node-llama-cpp 3.22.1" },
      });
      const learned = await run(asWritten(learnRun, {}, undefined, gguf));
      expect(learned.json).toMatchObject({ ok: true, evaluation: { engine: "llamacpp" } });
      const restored = await runModel(
        asWritten(chatImprint, { "<artifact-or-receipt-path>": learned.json.receipt_path }, undefined, gguf),
      );
      expect(restored.json.receipt).toMatchObject({
        tool_instruction_mode: "imprint",
        imprint_id: learned.json.imprint_id,
        engine: "llamacpp",
      });
    },
  );
});

// The loop's rules with tools defined in TypeScript (fast); the same loop with real Python
// runners is exercised in session.python.test.ts.
import { describe, expect, it } from "vitest";
import { ScriptedEngine } from "../engines/scripted.ts";
import { createToolRuntime, defineTool, type ToolRuntime } from "../runtime/index.ts";
import { draftTool } from "../../test/fixtures/loop-tools.ts";
import { createChatSession } from "./session.ts";
import type { ChatEvent, ToolSurface } from "./types.ts";

interface Harness {
  runtime: ToolRuntime;
  ran: { name: string; args: unknown }[];
}

function harness(): Harness {
  const runtime = createToolRuntime();
  const ran: Harness["ran"] = [];
  runtime.register(
    defineTool({
      name: "add",
      description: "Add two integers.",
      parameters: {
        type: "object",
        properties: { a: { type: "integer" }, b: { type: "integer" } },
        required: ["a", "b"],
        additionalProperties: false,
      },
      execute: (args: { a: number; b: number }) => {
        ran.push({ name: "add", args });
        return { sum: args.a + args.b };
      },
    }),
  );
  runtime.register(draftTool((args) => ran.push({ name: "draft", args })));
  runtime.register(
    defineTool({
      name: "send",
      description: "Send for real.",
      parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
      executionLevel: "commit",
      returnDirect: true,
      outputSchema: {
        type: "object",
        properties: { sent: { type: "boolean" } },
        required: ["sent"],
        additionalProperties: false,
      },
      execute: () => {
        ran.push({ name: "send", args: {} });
        return { sent: true };
      },
    }),
  );
  return { runtime, ran };
}

async function session(script: string[] | ((m: unknown, turn: number) => string | undefined), h = harness()) {
  const engine = new ScriptedEngine(script as never);
  await engine.load();
  const s = await createChatSession({ engine, runtime: h.runtime });
  return { s, engine, ...h };
}

const call = (name: string, args: object) => JSON.stringify({ tool_name: name, arguments: args });

describe("the tool loop", () => {
  it("calls a tool, hands the result back, and returns the model's answer", async () => {
    const { s, engine, ran } = await session([call("add", { a: 2, b: 3 }), "The sum is 5."]);
    const events: ChatEvent[] = [];
    const run = await s.chat("What is 2+3?", { onEvent: (e) => events.push(e) });
    expect(run).toMatchObject({ ok: true, outcome: "answered", answer: "The sum is 5." });
    expect(ran).toEqual([{ name: "add", args: { a: 2, b: 3 } }]);
    const second = engine.calls[1]!.messages;
    expect(second[0]!.role).toBe("system");
    expect(second[0]!.content).toContain("- add(");
    expect(second.at(-1)).toEqual({ role: "tool", content: 'Result of add: {"sum":5}' });
    expect(run.receipt).toMatchObject({
      outcome: "answered",
      code: null,
      tool_instruction_mode: "contract",
      network_used_by_edge: false,
    });
    expect(run.receipt.calls).toHaveLength(1);
    expect(run.receipt.calls[0]).toMatchObject({ tool_name: "add", status: "ok", execution_level: "read" });
    expect(run.receipt.calls[0]!.args_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(events.map((e) => e.type)).toEqual(["model_output", "tool_call", "tool_result", "model_output"]);
  });

  it("the contract is deterministic byte for byte and its hash is in the receipt", async () => {
    const a = await session(["ok"]);
    const b = await session(["ok"]);
    expect(a.s.contract).toBe(b.s.contract);
    const run = await a.s.chat("hi");
    expect(run.receipt.tool_instruction_sha256).toMatch(/^sha256:/);
    expect(run.receipt.prompt_sha256).not.toBe(run.receipt.answer_sha256);
    expect(run.receipt).not.toHaveProperty("text");
  });

  it("return_direct hands the validated result straight to the caller", async () => {
    const { s, engine } = await session([call("draft", { x: "abc" })]);
    const run = await s.chat("draft it");
    expect(run).toMatchObject({ ok: true, outcome: "return_direct", result: { draft: "ABC" } });
    expect(engine.calls).toHaveLength(1);
  });

  it("one repair turn for a malformed call, then fail closed on the second", async () => {
    const repaired = await session(['{"tool_name": "add", "arguments": {"a": 1}}', call("add", { a: 1, b: 1 }), "2"]);
    const events: ChatEvent[] = [];
    const ok = await repaired.s.chat("1+1", { onEvent: (e) => events.push(e) });
    expect(ok.outcome).toBe("answered");
    expect(events.find((e) => e.type === "repair")).toMatchObject({ code: "invalid_tool_args" });
    expect(repaired.engine.calls[1]!.messages.at(-1)!.content).toContain("invalid_tool_args");

    for (const [bad, code] of [
      [call("nope", {}), "unknown_tool"],
      [call("add", { a: "1", b: 2 }), "invalid_tool_args"],
      [call("add", { a: 1, b: 2, c: 3 }), "invalid_tool_args"],
      ['{"tool_name": "add", "arguments": {"a": 1, "b": 2}', "invalid_tool_call"],
      ['{"tool_name": "add"}', "invalid_tool_call"],
      ['{"tool_name": "draft", "arguments": {"x": "\\ud800"}}', "invalid_tool_args"],
    ] as const) {
      const h = await session([bad, bad, "unreachable"]);
      const run = await h.s.chat("go");
      expect(run, bad).toMatchObject({ ok: false, outcome: "failed_closed", error: { code } });
      expect(run.receipt.code).toBe(code);
      expect(h.ran).toEqual([]);
    }
  });

  it("the fifth call in one prompt is refused; four ran", async () => {
    const { s, ran } = await session((_m, turn) => (turn < 10 ? call("add", { a: turn, b: 0 }) : "done"));
    const run = await s.chat("loop");
    expect(run).toMatchObject({ outcome: "failed_closed", error: { code: "tool_call_limit_exceeded" } });
    expect(ran).toHaveLength(4);
    expect(run.receipt.calls).toHaveLength(4);
  });

  it("a commit tool never runs from chat; with no approval handler it is denied", async () => {
    const { s, ran } = await session([call("send", {})]);
    const run = await s.chat("send it");
    expect(run.outcome).toBe("failed_closed");
    expect(run.error?.code).toBe("tool_denied");
    expect(ran).toEqual([]);
    expect(run.receipt.calls[0]).toMatchObject({
      tool_name: "send",
      status: "failed_closed",
      execution_level: "commit",
    });
  });

  it("an approval handler that asks for confirmation ends the turn pending", async () => {
    const h = harness();
    h.runtime.setApprovalHandler(() => ({
      decision: "deny",
      reason: "needs a person",
      code: "tool_confirmation_required",
    }));
    const { s } = await session([call("send", {})], h);
    const run = await s.chat("send it");
    expect(run.outcome).toBe("pending_confirmation");
    expect(run.receipt.calls[0]).toMatchObject({ status: "pending_confirmation", code: "tool_confirmation_required" });
    expect(h.ran).toEqual([]);
  });

  it("an engine failure mid-stream and an abort both fail closed with a receipt", async () => {
    const throwing = await session(() => {
      throw new Error("GPU lost");
    });
    const run = await throwing.s.chat("hi");
    expect(run.outcome).toBe("failed_closed");
    expect(run.receipt.outcome).toBe("failed_closed");

    const ctl = new AbortController();
    const slow = new ScriptedEngine(["a long answer ".repeat(50)], { chunkDelayMs: 5 });
    await slow.load();
    const s = await createChatSession({ engine: slow, runtime: harness().runtime });
    const pending = s.chat("hi", { signal: ctl.signal, onToken: () => ctl.abort() });
    const aborted = await pending;
    expect(aborted).toMatchObject({ outcome: "failed_closed", error: { code: "aborted" } });
  });

  it("raw text is stored only with includeText", async () => {
    const engine = new ScriptedEngine([call("add", { a: 1, b: 2 }), "3"]);
    await engine.load();
    const s = await createChatSession({ engine, runtime: harness().runtime, includeText: true });
    const run = await s.chat("1+2?");
    expect(run.receipt.text).toEqual({ prompt: "1+2?", answer: "3" });
    expect(run.receipt.calls[0]!.arguments).toEqual({ a: 1, b: 2 });
  });

  it("tool sources are mutually exclusive", async () => {
    const engine = new ScriptedEngine(["x"]);
    const src = { name: "t.py", read: async () => new Uint8Array() };
    const facts: ToolSurface = {
      kind: "facts_store",
      register: () => undefined,
      active_set_sha256: `sha256:${"0".repeat(64)}`,
      schema_generator_version: "x",
    };
    // `tools` is one source and a selection belongs to a tools file: neither of these type-checks,
    // and a plain-JS caller passing them the old way is refused.
    const file = { kind: "file", source: src } as const;
    // @ts-expect-error a second source under the retired key factsStore
    await expect(createChatSession({ engine, tools: file, factsStore: facts })).rejects.toMatchObject({
      code: "conflicting_tool_options",
    });
    // @ts-expect-error a selection without a tools file
    await expect(createChatSession({ engine, selection: { tool: ["a"] } })).rejects.toMatchObject({
      code: "conflicting_tool_options",
    });
  });
});

describe("fuzz: no tool runs unless its call is exactly valid", () => {
  // A small deterministic PRNG so failures reproduce.
  function rng(seed: number): () => number {
    let x = seed >>> 0;
    return () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
  }
  const pieces = [
    "{",
    "}",
    '"tool_name"',
    '"arguments"',
    ":",
    ",",
    '"add"',
    '"nope"',
    '{"a":1,"b":2}',
    '{"a":1}',
    '{"a":"x","b":2}',
    "[]",
    "null",
    "```json\n",
    "\n```",
    " ",
    "hello",
    '"__proto__"',
    "1",
    '{"a":1,"b":2,"c":3}',
    "\ud800",
  ];

  it("10,000 generated outputs", async () => {
    const next = rng(42);
    const h = harness();
    const outputs: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const n = 1 + Math.floor(next() * 9);
      let text = "";
      for (let j = 0; j < n; j++) text += pieces[Math.floor(next() * pieces.length)];
      if (i % 7 === 0) text = call("add", { a: i, b: 1 }); // some exactly valid calls
      outputs.push(text);
    }
    // Decide independently which outputs are exactly valid calls of `add`.
    const isExactAdd = (text: string): boolean => {
      const m = /^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/.exec(text.trim());
      const body = (m ? m[1]! : text).trim();
      try {
        const v = JSON.parse(body);
        const keys = Object.keys(v);
        const a = v.arguments;
        return (
          keys.length === 2 &&
          v.tool_name === "add" &&
          a &&
          typeof a === "object" &&
          !Array.isArray(a) &&
          Object.keys(a).length === 2 &&
          Number.isInteger(a.a) &&
          Number.isInteger(a.b)
        );
      } catch {
        return false;
      }
    };
    let expected = 0;
    let queue: string[] = [];
    const engine = new ScriptedEngine(() => queue.shift(), { chunkSize: 1 << 20 });
    await engine.load();
    const s = await createChatSession({ engine, runtime: freshRuntime(h) });
    for (const text of outputs) {
      const before = h.ran.length;
      queue = [text, "answer"];
      s.reset();
      const run = await s.chat("go");
      expect(["answered", "failed_closed"]).toContain(run.outcome);
      const ranNow = h.ran.length - before;
      if (isExactAdd(text)) expected++;
      expect(ranNow, JSON.stringify(text)).toBe(isExactAdd(text) ? 1 : 0);
    }
    expect(expected).toBeGreaterThan(1000);
  }, 120_000);

  function freshRuntime(h: Harness): ToolRuntime {
    const runtime = createToolRuntime();
    runtime.register(
      defineTool({
        name: "add",
        description: "Add two integers.",
        parameters: {
          type: "object",
          properties: { a: { type: "integer" }, b: { type: "integer" } },
          required: ["a", "b"],
          additionalProperties: false,
        },
        execute: (args: { a: number; b: number }) => {
          h.ran.push({ name: "add", args });
          return { sum: args.a + args.b };
        },
      }),
    );
    return runtime;
  }
});

describe("the 8-tool limit counts every tool the model sees", () => {
  it("Python tools plus built-ins beyond 8 are refused before any generation", async () => {
    const runtime = createToolRuntime();
    for (let i = 0; i < 9; i++) {
      runtime.register(
        defineTool({
          name: `t${i}`,
          description: "",
          parameters: { type: "object", properties: {}, additionalProperties: false },
          execute: () => ({}),
        }),
      );
    }
    const engine = new ScriptedEngine(["never"]);
    await engine.load();
    await expect(createChatSession({ engine, runtime })).rejects.toMatchObject({ code: "active_tool_limit_exceeded" });
    expect(engine.calls).toHaveLength(0);
  });
});

describe("guided decoding", () => {
  it("the response format built from the active tools reaches the engine on every model turn", async () => {
    const { toolCallOrTextResponseFormat } = await import("../engines/grammar.ts");
    const engine = new ScriptedEngine([call("add", { a: 1, b: 2 }), "3"]);
    await engine.load();
    const s = await createChatSession({
      engine,
      runtime: harness().runtime,
      responseFormat: toolCallOrTextResponseFormat,
    });
    await s.chat("1+2?");
    const expected = toolCallOrTextResponseFormat(s.runtime.schemas());
    expect(engine.calls.map((c) => c.responseFormat)).toEqual([expected, expected]);
    expect(String(expected.structural_tag)).toContain('"tool_name":{"const":"add"}');
  });

  it("once the call budget is spent, a generating engine's next turn may only answer (a model that keeps calling still finishes)", async () => {
    const { checkResponseFormat, textAnswerResponseFormat, toolCallOrTextResponseFormat, toolCallResponseFormat } =
      await import("../engines/grammar.ts");
    /** Replays its script, but the loop treats it as a model it guides (the policy keys on info()). */
    class Generating extends ScriptedEngine {
      constructor(
        script: string[],
        private readonly kind: "webllm" | "llamacpp",
      ) {
        super(script);
      }
      override info() {
        return { ...super.info(), kind: this.kind, modelId: "SmolLM2-135M-Instruct.Q4_1.gguf" };
      }
    }
    for (const [maxCalls, toolChoice] of [
      [1, "required"],
      [2, "auto"],
    ] as const) {
      // web-llm: one generation per turn; llama.cpp: checked turns (a proposal, then its check).
      for (const kind of ["webllm", "llamacpp"] as const) {
        const h = harness();
        const calls = Array.from({ length: maxCalls }, (_, i) => call("add", { a: i, b: 1 }));
        const checked = kind === "llamacpp" && toolChoice === "auto";
        // A check before any result asks whether the call matches ("yes" runs it); after one, whether
        // the results already answer the request ("no" runs it).
        const engine = new Generating(
          [...calls.flatMap((c, i) => (checked ? [c, i === 0 ? "yes" : "no"] : [c])), "Done."],
          kind,
        );
        await engine.load();
        const s = await createChatSession({ engine, runtime: h.runtime, maxCalls, toolChoice });
        const run = await s.chat("Add.");
        expect(run).toMatchObject({ ok: true, outcome: "answered", answer: "Done." });
        expect(h.ran).toHaveLength(maxCalls);
        const schemas = s.runtime.schemas();
        const single = [
          toolChoice === "required" ? toolCallResponseFormat(schemas) : toolCallOrTextResponseFormat(schemas),
          ...Array.from({ length: maxCalls - 1 }, () => toolCallOrTextResponseFormat(schemas)),
        ];
        const turns =
          kind === "webllm"
            ? single
            : checked
              ? calls.flatMap(() => [toolCallResponseFormat(schemas), checkResponseFormat()])
              : [toolCallResponseFormat(schemas)];
        expect(engine.calls.map((c) => c.responseFormat)).toEqual([...turns, textAnswerResponseFormat()]);
      }
    }
    // --max-calls 0: no call could ever run, so even the first turn is an answer.
    for (const kind of ["webllm", "llamacpp"] as const) {
      const engine = new Generating(["No tools today."], kind);
      await engine.load();
      const none = await createChatSession({ engine, runtime: harness().runtime, maxCalls: 0, toolChoice: "required" });
      expect(await none.chat("Add.")).toMatchObject({ outcome: "answered" });
      expect(engine.calls.map((c) => c.responseFormat)).toEqual([textAnswerResponseFormat()]);
    }
  });

  it("a call attempt once the budget is spent is refused as over it, with no repair turn (a repaired call could not run either)", async () => {
    // What SmolLM2-135M writes when only an answer is allowed: its call again, inside prose.
    for (const last of [`The add tool:\n${call("add", { a: 1, b: 1 })}`, '{"tool_name": "add"', call("nope", {})]) {
      const h = harness();
      const engine = new ScriptedEngine([call("add", { a: 1, b: 1 }), last, "unreachable"]);
      await engine.load();
      const s = await createChatSession({ engine, runtime: h.runtime, maxCalls: 1 });
      const run = await s.chat("Add.");
      expect(run, last).toMatchObject({ outcome: "failed_closed", error: { code: "tool_call_limit_exceeded" } });
      expect(engine.calls, last).toHaveLength(2);
      expect(h.ran).toHaveLength(1);
      expect(run.receipt.refused_calls).toBeUndefined();
    }
  });
});

describe("conversation history", () => {
  it("a follow-up prompt extends exactly what the model saw and said, tool turns included", async () => {
    const { s, engine } = await session([call("add", { a: 2, b: 3 }), "The sum is 5.", "It was 5.", "Hello."]);
    await s.chat("What is 2+3?");
    await s.chat("What was the sum again?");
    const first = engine.calls[1]!.messages; // system, user, assistant call, tool result
    const followUp = engine.calls[2]!.messages;
    expect(followUp.slice(0, first.length)).toEqual(first);
    expect(followUp.slice(first.length)).toEqual([
      { role: "assistant", content: "The sum is 5." },
      { role: "user", content: "What was the sum again?" },
    ]);
    s.reset();
    await s.chat("fresh start");
    expect(engine.calls[3]!.messages.map((m) => m.role)).toEqual(["system", "user"]);
  });
});

// One engine conformance suite: the same behaviours, checked for every engine (scripted, llama.cpp
// in Node and in Chromium, web-llm against its fake). Framework-free — plain async checks that
// throw — so vitest runs them in Node (conformance.test.ts) and a test page runs them in Chromium.
//
// An engine joins with a small adapter (an EngineSubject): how to get a loaded engine, how to
// steer it to a reply, and what it can do. Engines that replay (scripted, a fake) are steered by
// their script; engines that generate (llama.cpp on random weights) by the response format of
// each request — a grammar that admits only the wanted reply. Either way the loop re-parses and
// re-validates everything, exactly as in production.
import { argsProblem } from "../../src/contract/ajv.ts";
import { EdgeError, type ErrorCode } from "../../src/contract/errors.ts";
import type { JsonObject, ToolSchema } from "../../src/contract/types.ts";
import { createChatSession } from "../../src/chat/session.ts";
import { parseModelOutput } from "../../src/chat/parse.ts";
import type { ChatMessage, ChatRequest, Engine, ResponseFormat } from "../../src/engines/engine.ts";
import type { GuidedTool } from "../../src/engines/grammar.ts";
import type { RunnerHost, ToolSource } from "../../src/runner/host.ts";
import { expectedFeeQuote } from "../fixtures/conformance-tools.ts";

/** What the suite wants an engine to say next. */
export type Reply =
  | { kind: "call"; tool: string; arguments: JsonObject }
  | { kind: "text"; text: string }
  /** A long answer of about this many characters (streaming, abort). */
  | { kind: "long"; chars: number };

/** The exact text of a reply, for engines that replay a script (scripted, fakes). */
export function replyText(reply: Reply): string {
  if (reply.kind === "call") return JSON.stringify({ tool_name: reply.tool, arguments: reply.arguments });
  if (reply.kind === "text") return reply.text;
  return "lorem ipsum ".repeat(Math.ceil(reply.chars / 12)).slice(0, reply.chars);
}

export interface Capabilities {
  /** usage.promptTokensEvaluated shows the prompt-cache reuse of a follow-up. */
  promptCacheCounts: boolean;
  /** The engine knows its window and refuses an oversized turn before generating. */
  contextWindow: boolean;
  /** Engine.warmPrefix: a conversation start evaluated once is reused by later conversations. */
  prefixWarm?: boolean;
  /** The runtime also keeps earlier prompts aside (llama.cpp's server core in wllama: a RAM
   *  prompt cache), so another conversation may not push a warmed start out. */
  keepsEarlierPrompts?: boolean;
}

export interface EngineSubject {
  name: string;
  capabilities: Capabilities;
  /** A loaded engine that gives `replies` in order (generating engines ignore them: see steer). */
  create(replies: readonly Reply[]): Promise<Engine>;
  /** The response format that steers this engine to `reply` (replaying engines: undefined). */
  steer(reply: Reply, tools: readonly GuidedTool[]): ResponseFormat | undefined;
  /** An engine whose load() must fail (given `signal` when there is one), and the code it must fail with. */
  failingLoad(): Promise<{ engine: Engine; code: ErrorCode; signal?: AbortSignal }>;
  /** A loaded engine whose context window is smaller than the tool contract (contextWindow only). */
  smallWindow?(): Promise<Engine>;
}

export interface SuiteEnv {
  /** Runs the Python tools: the sandboxed runner of this environment. */
  host: RunnerHost;
  /** CONFORMANCE_TOOLS (test/fixtures/conformance-tools.ts). */
  tools: ToolSource;
}

export interface Check {
  name: string;
  needs?: keyof Capabilities;
  run(subject: EngineSubject, env: SuiteEnv): Promise<void>;
}

// ── tiny assertions (this file also runs in a browser page) ────────────────────────────────
function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}
function same(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}
async function rejectsWith(work: Promise<unknown>, code: ErrorCode, what: string): Promise<EdgeError> {
  try {
    await work;
  } catch (e) {
    check(e instanceof EdgeError, `${what}: expected an EdgeError, got ${String(e)}`);
    same(e.code, code, `${what}: error code`);
    return e;
  }
  throw new Error(`${what}: expected a rejection with ${code}, but it resolved`);
}

const SYSTEM: ChatMessage = { role: "system", content: "You are a careful assistant." };
const user = (content: string): ChatMessage => ({ role: "user", content });
const FEE = (amount: number, tier: "basic" | "pro"): Reply => ({
  kind: "call",
  tool: "fee_quote",
  arguments: { amount, tier },
});
/** The guided tool of the suite, as its schema looks after discovery (for engine-level checks). */
const FEE_TOOL: GuidedTool = {
  name: "fee_quote",
  parameters: {
    type: "object",
    properties: { amount: { type: "integer" }, tier: { type: "string", enum: ["basic", "pro"], default: "basic" } },
    required: ["amount"],
    additionalProperties: false,
  },
};

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

async function free(engine: Engine): Promise<void> {
  await engine.unload().catch(() => undefined);
}

/** `body` with a loaded engine that gives `replies`; the engine is unloaded whatever happens. */
async function withEngine(
  subject: EngineSubject,
  replies: readonly Reply[],
  body: (engine: Engine) => Promise<void>,
): Promise<void> {
  const engine = await subject.create(replies);
  try {
    await body(engine);
  } finally {
    await free(engine);
  }
}

/** A request steered to `reply`; a long reply gets room for it (and for a grammar's end). */
function steered(
  subject: EngineSubject,
  reply: Reply,
  messages: ChatMessage[],
  extra: Partial<ChatRequest> = {},
): ChatRequest {
  const responseFormat = subject.steer(reply, [FEE_TOOL]);
  return {
    messages,
    ...(responseFormat ? { responseFormat } : {}),
    ...(reply.kind === "long" ? { maxTokens: reply.chars + 64 } : {}),
    ...extra,
  };
}

export const CHECKS: readonly Check[] = [
  {
    name: "a guided call is always schema-valid and runs the real tool through the sandboxed runner",
    async run(subject, env) {
      const prompts = ["Quote the fee for 120 euros.", "What does 7 cost on pro?", "fee for 99999?"];
      const replies = [FEE(120, "basic"), FEE(7, "pro"), FEE(99999, "basic")];
      await withEngine(subject, replies, async (engine) => {
        const session = await createChatSession({
          engine,
          host: env.host,
          tools: { kind: "file", source: env.tools },
          includeText: true,
          responseFormat: (schemas) => subject.steer(replies[0]!, schemas),
        });
        const schema = session.toolset!.active[0]!.schema as ToolSchema;
        for (const prompt of prompts) {
          const run = await session.chat(prompt);
          check(
            run.ok && run.outcome === "return_direct",
            `${prompt}: expected a return_direct run, got ${run.outcome} ${JSON.stringify(run.error ?? null)}`,
          );
          same(run.receipt.calls.length, 1, `${prompt}: calls`);
          const call = run.receipt.calls[0]!;
          same(
            [call.tool_name, call.status, call.runner_secret_verified, call.tools_file_sha256_verified],
            ["fee_quote", "ok", true, true],
            `${prompt}: call receipt`,
          );
          const args = call.arguments as JsonObject;
          check(
            argsProblem(schema.parameters, args) === null,
            `${prompt}: arguments ${JSON.stringify(args)} do not match the schema`,
          );
          // The real Python function ran with exactly these arguments.
          same(run.result, expectedFeeQuote(args as { amount: number; tier?: string }), `${prompt}: tool result`);
        }
      });
    },
  },
  {
    name: "a plain answer ends the run without a tool call",
    async run(subject, env) {
      const reply: Reply = { kind: "text", text: "The fee is 3 euros." };
      await withEngine(subject, [reply], async (engine) => {
        const session = await createChatSession({
          engine,
          host: env.host,
          tools: { kind: "file", source: env.tools },
          responseFormat: (schemas) => subject.steer(reply, schemas),
        });
        const run = await session.chat("How much is the fee for 1000 euros?");
        check(
          run.ok && run.outcome === "answered",
          `expected an answered run, got ${run.outcome} ${JSON.stringify(run.error ?? null)}`,
        );
        same(run.answer, reply.text, "answer");
        same(run.receipt.calls.length, 0, "tool calls");
      });
    },
  },
  {
    name: "streaming delivers the text in order, in several pieces, before the result",
    async run(subject) {
      const reply: Reply = { kind: "long", chars: 120 };
      await withEngine(subject, [reply], async (engine) => {
        const deltas: string[] = [];
        let resolved = false;
        const result = await engine.chat(
          steered(subject, reply, [SYSTEM, user("Tell me a long story.")], {
            onToken: (d) => {
              check(!resolved, "a piece arrived after chat() resolved");
              deltas.push(d);
            },
          }),
        );
        resolved = true;
        // "Several", not "one per token": the browser's llama.cpp worker sends what was decoded every
        // 16 ms (the first piece at once), so how many pieces arrive depends on the machine's speed.
        check(deltas.length >= 2, `expected the text in several pieces, got ${deltas.length}`);
        same(deltas.join(""), result.text, "the pieces, joined");
        check(result.text.length >= 100, `expected a long text, got ${result.text.length} characters`);
      });
    },
  },
  {
    name: "abort mid-generation ends the stream with `aborted`, and the engine answers the next prompt",
    async run(subject) {
      const long: Reply = { kind: "long", chars: 400 };
      const after: Reply = { kind: "text", text: "Still here." };
      await withEngine(subject, [long, long, after], async (engine) => {
        // Once through a signal, once through abort().
        for (const how of ["signal", "abort()"] as const) {
          const controller = new AbortController();
          const deltas: string[] = [];
          const running = engine.chat(
            steered(subject, long, [SYSTEM, user(`Count slowly (${how}).`)], {
              signal: controller.signal,
              onToken: (d) => {
                deltas.push(d);
                // At the first piece: a fast machine may decode the whole answer in a few pieces.
                if (deltas.length === 1) how === "signal" ? controller.abort() : engine.abort();
              },
            }),
          );
          const e = await rejectsWith(running, "aborted", `abort via ${how}`);
          const partial = String(e.details["partialText"] ?? "");
          check(
            partial.startsWith(deltas[0] ?? "") && partial.length < 400,
            `abort via ${how}: partial text ${JSON.stringify(partial)}`,
          );
        }
        const next = await engine.chat(steered(subject, after, [SYSTEM, user("Are you there?")]));
        same(next.text, "Still here.", "the answer after the aborts");
      });
    },
  },
  {
    name: "a follow-up in the same conversation evaluates only the new tokens (prompt cache)",
    needs: "promptCacheCounts",
    async run(subject) {
      const first: Reply = { kind: "text", text: "Paris is the capital of France." };
      const second: Reply = { kind: "text", text: "About two million people." };
      await withEngine(subject, [first, second], async (engine) => {
        const turn1 = [SYSTEM, user("What is the capital of France?")];
        const r1 = await engine.chat(steered(subject, first, turn1));
        const turn2 = [...turn1, { role: "assistant" as const, content: r1.text }, user("How many people live there?")];
        const r2 = await engine.chat(steered(subject, second, turn2));
        const u1 = r1.usage!;
        const u2 = r2.usage!;
        // The whole prompt's size: from usage, or (web-llm reports only what it evaluated) counted.
        const total1 = u1.promptTokens ?? (await engine.countTokens?.(turn1));
        const total2 = u2.promptTokens ?? (await engine.countTokens?.(turn2));
        check(
          total1 !== undefined &&
            total2 !== undefined &&
            u1.promptTokensEvaluated !== undefined &&
            u2.promptTokensEvaluated !== undefined,
          "usage reports evaluated tokens, and the prompt's size is known",
        );
        if (u1.promptTokens !== undefined)
          same(u1.promptTokensEvaluated, u1.promptTokens, "turn 1 (nothing cached yet): evaluated");
        else
          check(
            u1.promptTokensEvaluated! > 0 && u1.promptTokensEvaluated! <= total1,
            `turn 1 evaluated ${u1.promptTokensEvaluated} of at most ${total1} tokens`,
          );
        // What turn 2 shares with turn 1's prompt is cached. Usually that is all of turn 1; a template
        // may render history unlike its generation prompt (Qwen3 drops the empty think block it opens
        // the reply with, 4 tokens), and then the tokens from there on are new too.
        const shared = engine.promptTokens
          ? commonPrefix(await engine.promptTokens(turn1), await engine.promptTokens(turn2))
          : total1;
        const newTokens = total2 - shared;
        check(
          u2.promptTokensEvaluated! > 0 && u2.promptTokensEvaluated! <= newTokens,
          `turn 2 evaluated ${u2.promptTokensEvaluated} of ${u2.promptTokens} tokens; only the ${newTokens} new ones may be`,
        );
      });
    },
  },
  {
    name: "a warmed conversation start (an imprint's prefix) is reused by every new conversation: only the new tokens are evaluated",
    needs: "prefixWarm",
    async run(subject) {
      const reply: Reply = { kind: "text", text: "Hello." };
      await withEngine(subject, [reply, reply, reply], async (engine) => {
        check(engine.warmPrefix, "the engine has warmPrefix once loaded");
        const start: ChatMessage[] = [
          { role: "system", content: `${SYSTEM.content} ${"Policy: answer briefly and politely. ".repeat(20)}` },
        ];
        const cold = await engine.warmPrefix(start);
        check(
          cold.tokens > 100 && cold.evaluated === cold.tokens,
          `the first warm evaluates the whole start: ${JSON.stringify(cold)}`,
        );
        for (const question of ["What is the fee for 10?", "Where is my order?"]) {
          // A new conversation with the same start: nothing of it is evaluated again.
          const warm = await engine.warmPrefix(start);
          same([warm.tokens, warm.evaluated], [cold.tokens, 0], `warm again before "${question}"`);
          const usage = (await engine.chat(steered(subject, reply, [...start, user(question)]))).usage!;
          // llama.cpp's server core re-evaluates the last cached token; allow that one.
          check(
            usage.promptTokensEvaluated! <= usage.promptTokens! - cold.tokens + 1,
            `"${question}": evaluated ${usage.promptTokensEvaluated} of ${usage.promptTokens} prompt tokens with ${cold.tokens} warm`,
          );
        }
        // Another conversation start takes the cache; warming the first one again says what that
        // cost (with one prompt cache: the start again), and the next conversation shows it is warm.
        await engine.chat(steered(subject, reply, [{ role: "system", content: "Another assistant." }, user("Hi")]));
        const again = await engine.warmPrefix(start);
        check(
          again.tokens === cold.tokens && (subject.capabilities.keepsEarlierPrompts || again.evaluated > 0),
          `after another conversation the start is evaluated again: ${JSON.stringify(again)}`,
        );
        const next = (await engine.chat(steered(subject, reply, [...start, user("And my order?")]))).usage!;
        check(
          next.promptTokensEvaluated! <= next.promptTokens! - cold.tokens + 1,
          `warm again: evaluated ${next.promptTokensEvaluated} of ${next.promptTokens} prompt tokens with ${cold.tokens} warm`,
        );
      });
    },
  },
  {
    name: "the context limit is enforced before the model is asked, with context_window_exceeded",
    needs: "contextWindow",
    async run(subject, env) {
      const ok: Reply = { kind: "text", text: "Short answer." };
      await withEngine(subject, [ok], async (engine) => {
        const window = engine.info().contextWindow;
        check(typeof window === "number" && window > 0, "info().contextWindow is known after load");
        let pieces = 0;
        const huge = user("x ".repeat(window * 2));
        const e = await rejectsWith(
          engine.chat(steered(subject, ok, [SYSTEM, huge], { onToken: () => pieces++ })),
          "context_window_exceeded",
          "an oversized turn",
        );
        same(pieces, 0, "pieces generated for the oversized turn");
        check(/context window/.test(e.message), `the message says what happened: ${e.message}`);
        same((await engine.chat(steered(subject, ok, [SYSTEM, user("Hi")]))).text, "Short answer.", "the next turn");
      });
      // A model whose window cannot even hold the tool contract: the run fails closed, no call.
      const small = await subject.smallWindow!();
      try {
        const session = await createChatSession({
          engine: small,
          host: env.host,
          tools: { kind: "file", source: env.tools },
          responseFormat: (schemas) => subject.steer(ok, schemas),
        });
        const run = await session.chat("Quote the fee for 5.");
        same(
          [run.outcome, run.error?.code, run.receipt.code, run.receipt.calls.length],
          ["failed_closed", "context_window_exceeded", "context_window_exceeded", 0],
          "a run on a too-small window",
        );
      } finally {
        await free(small);
      }
    },
  },
  {
    name: "a load failure is a coded error, and chat() before a load is engine_not_loaded",
    async run(subject) {
      const { engine, code, signal } = await subject.failingLoad();
      await rejectsWith(engine.load(undefined, signal), code, "the failing load");
      await rejectsWith(engine.chat({ messages: [user("hi")] }), "engine_not_loaded", "chat after the failed load");
    },
  },
  {
    name: "a guided reply parses as exactly one valid call, every time",
    async run(subject) {
      const replies = Array.from({ length: 5 }, (_, i) => FEE(10 + i, i % 2 ? "pro" : "basic"));
      await withEngine(subject, replies, async (engine) => {
        for (let i = 0; i < replies.length; i++) {
          const r = await engine.chat(steered(subject, replies[i]!, [SYSTEM, user(`Quote fee number ${i}.`)]));
          const parsed = parseModelOutput(r.text);
          check(
            parsed.kind === "call" && parsed.toolName === "fee_quote",
            `reply ${i} is not a fee_quote call: ${JSON.stringify(r.text)}`,
          );
          check(
            argsProblem(FEE_TOOL.parameters, parsed.args) === null,
            `reply ${i}: arguments ${JSON.stringify(parsed.args)} do not match the schema`,
          );
        }
      });
    },
  },
];

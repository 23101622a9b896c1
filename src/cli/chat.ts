// `edge chat`: the same tool loop as the browser, in Node. The model is a GGUF file run by
// llama.cpp (`--model`, see model.ts), or the scripted engine (a JSON array of the model's
// successive outputs); web-llm needs WebGPU, which Node lacks.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { EdgeError } from "../contract/errors.ts";
import { createChatSession, type ChatRun, type PendingTicket } from "../chat/session.ts";
import { createNodeFactsStore } from "../facts/store-node.ts";
import { factsStoreSurface, toolsManifestSurface, type FactsSurface } from "../facts/surface.ts";
import type { Engine } from "../engines/engine.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import { probeWebGPU } from "../engines/webgpu.ts";
import { createNodeRunnerHost, fileSource } from "../runner/node.ts";
import { createNodeReceiptStore } from "../store/node-receipts.ts";
import { imprintBindingFor } from "./imprints.ts";
import { EXIT_FAILED, EXIT_OK, formatError, printJson, UsageError, type CliIO } from "./io.ts";
import { nodeConfirmationBroker } from "./confirm.ts";
import { engineKind, loadModelEngine, maxTokensOf, MODEL_OPTIONS, toolChoiceOf } from "./model.ts";
import { cliWorkspace } from "./workspace-session.ts";

export async function chatCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      tools: { type: "string" },
      "tools-manifest": { type: "string" },
      "facts-store": { type: "string" },
      tool: { type: "string", multiple: true },
      "tool-tag": { type: "string", multiple: true },
      prompt: { type: "string" },
      engine: { type: "string" },
      ...MODEL_OPTIONS,
      script: { type: "string" },
      "max-calls": { type: "string" },
      "timeout-ms": { type: "string" },
      "include-text": { type: "boolean" },
      "with-imprint": { type: "string" },
      workspace: { type: "string" },
      builtins: { type: "string" },
      "allow-writes": { type: "boolean" },
      json: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.prompt) throw new UsageError("chat needs --prompt TEXT.");
  const sources = [values.tools, values["tools-manifest"], values["facts-store"]].filter((v) => v !== undefined);
  if (sources.length > 1) throw new EdgeError("conflicting_tool_options");
  if ((values.tool || values["tool-tag"]) && !values.tools) throw new UsageError("--tool / --tool-tag must be used with --tools.");
  const maxCalls = optionalInt(values["max-calls"], "--max-calls", 0);
  const timeoutMs = optionalInt(values["timeout-ms"], "--timeout-ms", 1);

  const kind = engineKind(values);
  // Guided decoding for generating engines (the scripted replay has none): src/engines/tool-turn.ts.
  const toolChoice = toolChoiceOf(values["tool-choice"]);
  const maxTokens = maxTokensOf(values);
  let engine: Engine;
  if (kind === "webllm") {
    // The real check, not an assumption: Node has no navigator.gpu, so this reports why.
    const probe = await probeWebGPU();
    if (!probe.available) {
      throw new EdgeError(
        "webgpu_unavailable",
        { reason: probe.reason },
        "The web-llm engine needs WebGPU, which Node does not have. Run the model in the browser (npm start opens the playground), or use --engine scripted --script OUTPUTS.json here.",
      );
    }
    throw new EdgeError("webgpu_unavailable", {}, "The web-llm engine runs in the browser only; use the playground, or --engine scripted here.");
  } else if (kind === "scripted") {
    if (!values.script) throw new UsageError("--engine scripted needs --script OUTPUTS.json (a JSON array of the model's outputs, as strings).");
    engine = new ScriptedEngine(await readScript(values.script));
    await engine.load();
  } else if (kind === "llamacpp") {
    engine = await loadModelEngine(values, io, values.json === true);
  } else {
    throw new UsageError(`Unknown engine "${kind}" (use llamacpp with --model, webllm or scripted).`);
  }

  // Facts surfaces (built-in lookups over $EDGE_DATA_DIR/facts) need no Python runner.
  const surface = await factsSurfaceFor(values["facts-store"], values["tools-manifest"]);
  const ws = await cliWorkspace(values.workspace, values.builtins, values["allow-writes"] === true);
  const host = createNodeRunnerHost({ spares: values.tools ? 1 : 0 });
  try {
    const session = await createChatSession({
      ...(ws.runtime ? { runtime: ws.runtime } : {}),
      ...(ws.approval ? { approval: ws.approval } : {}),
      ...(ws.workspace ? { workspace: ws.workspace } : {}),
      engine,
      host,
      ...(values.tools ? { tools: fileSource(values.tools), selection: { tool: values.tool, toolTag: values["tool-tag"] } } : {}),
      // A commit tool becomes a pending action (a 0600 file) confirmed with `edge tools confirm`.
      ...(values.tools ? { confirmations: nodeConfirmationBroker(values.tools, { tool: values.tool, toolTag: values["tool-tag"] }) } : {}),
      ...(surface?.kind === "facts_store" ? { factsStore: surface } : surface ? { toolsManifest: surface } : {}),
      // The imprint gate runs inside createChatSession, before any generation.
      ...(values["with-imprint"] !== undefined ? { imprint: await imprintBindingFor(values["with-imprint"]) } : {}),
      store: createNodeReceiptStore(),
      includeText: values["include-text"] === true,
      ...(maxCalls !== undefined ? { maxCalls } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      toolChoice,
      ...(maxTokens !== undefined ? { maxTokens } : {}),
    });
    const run = await session.chat(values.prompt);
    if (values.json) {
      printJson(io, {
        ok: run.ok,
        outcome: run.outcome,
        ...(run.answer !== undefined && run.outcome === "answered" ? { answer: run.answer } : {}),
        ...(run.outcome === "return_direct" ? { result: run.result } : {}),
        ...(run.truncated ? { truncated: true } : {}),
        ...(run.finish_reason ? { finish_reason: run.finish_reason } : {}),
        ...(run.engine_stats ? { engine_stats: run.engine_stats } : {}),
        run_id: run.run_id,
        receipt: run.receipt,
        ...(run.error ? { error: { code: run.error.code, message: run.error.message } } : {}),
        ...(run.pending_action ? { pending_action: pendingJson(run.pending_action) } : {}),
        ...(ws.info ? { workspace: ws.info } : {}),
      });
    } else {
      for (const s of ws.info?.skipped ?? []) io.err(`workspace: skipped ${s.path} (a symbolic link to ${s.target ?? "a missing target"}, outside or duplicating the folder: ${s.code})\n`);
      if (run.outcome === "answered") io.out(`${run.answer}\n`);
      if (run.truncated) io.err("note: the answer was cut off at the token limit (finish_reason: length); it is incomplete.\n");
      else if (run.outcome === "return_direct") io.out(`${JSON.stringify(run.result, null, 2)}\n`);
      const restore = imprintRestoreLine(run.receipt);
      if (restore) io.err(restore);
      if (run.pending_action) {
        io.out(`${run.pending_action.id} needs confirmation before it runs (expires ${run.pending_action.expires_at}):\n  ${String(run.pending_action.confirm_command)}\n`);
      } else if (run.error) io.err(`failed closed: ${formatError(run.error).trim()}\n`);
      const st = run.engine_stats;
      const speed = st ? `${st.time_to_first_token_ms !== undefined ? `, first token ${st.time_to_first_token_ms} ms` : ""}${st.decode_tokens_per_s !== undefined ? `, ${st.decode_tokens_per_s} tokens/s` : ""}` : "";
      io.err(`outcome: ${run.outcome}, tool calls: ${run.receipt.calls.length}${speed}, receipt: ${run.run_id}\n`);
    }
    return run.ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    await host.close();
    await engine.unload();
  }
}

export async function factsSurfaceFor(store: string | undefined, manifest: string | undefined): Promise<FactsSurface | undefined> {
  if (store !== undefined) return factsStoreSurface(createNodeFactsStore(), store);
  if (manifest === undefined) return undefined;
  let raw: Uint8Array;
  try {
    raw = await readFile(manifest);
  } catch (err) {
    throw new EdgeError("invalid_tools_manifest", { path: manifest }, `The tools manifest ${manifest} could not be read: ${(err as Error).message}`);
  }
  return toolsManifestSurface(createNodeFactsStore(), raw);
}

/** One line for people: how a restored imprint's prefix reached the model, and why not from its state. */
function imprintRestoreLine(receipt: ChatRun["receipt"]): string | null {
  const p = receipt.imprint_prefix;
  if (!receipt.imprint_restore || !p) return null;
  const how =
    p.prefix_cache === "state_file"
      ? `restored from its saved model state (${p.prefix_tokens} tokens, none evaluated)`
      : p.prefix_cache === "engine"
        ? `prefix evaluated (${p.prefix_tokens_evaluated} of ${p.prefix_tokens} tokens)`
        : "prefix sent as text";
  const why = p.state_fallback ? `; saved state not used: ${p.state_fallback.code} (${p.state_fallback.reason})` : "";
  return `imprint ${receipt.imprint_id}: ${how}${why}\n`;
}

export function pendingJson(p: PendingTicket): Record<string, unknown> {
  return {
    id: p.id,
    expires_at: p.expires_at,
    confirmation_token: p.confirmation_token,
    confirm_command: p.confirm_command,
    ...(p.pending_action_path ? { pending_action_path: p.pending_action_path } : {}),
  };
}

export async function readScript(path: string): Promise<string[]> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch (err) {
    throw new UsageError(`--script ${path} is not a readable JSON file: ${(err as Error).message}`);
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    throw new UsageError(`--script ${path} must be a JSON array of strings (the model's successive outputs).`);
  }
  return value;
}

function optionalInt(text: string | undefined, flag: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be an integer ≥ ${min}.`);
  return n;
}

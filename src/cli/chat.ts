// `edge chat`: the same tool loop as the browser, in Node. The model is a GGUF file run by
// llama.cpp (`--model`, see model.ts), or the scripted engine (a JSON array of the model's
// successive outputs, played as the playground plays it: src/chat/script.ts); web-llm needs WebGPU,
// which Node lacks.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { EdgeError } from "../contract/errors.ts";
import { createChatSession } from "../chat/session.ts";
import type { ChatTools } from "../chat/types.ts";
import { createNodeFactsStore } from "../facts/store-node.ts";
import { factsStoreSurface, toolsManifestSurface, type FactsSurface } from "../facts/surface.ts";
import type { Engine } from "../engines/engine.ts";
import { ScriptPlayer } from "../chat/script.ts";
import { probeWebGPU } from "../engines/webgpu.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import { toolsFileSource } from "./tools-source.ts";
import { createNodeReceiptStore } from "../receipts/store-node.ts";
import { imprintBindingFor } from "./imprints.ts";
import { printRunText, printWorkspaceNotes, runJson } from "./chat-print.ts";
import { interactiveChat } from "./interactive.ts";
import { readScript } from "./script-file.ts";
import { EXIT_FAILED, EXIT_OK, printJson, UsageError, type CliIO } from "./io.ts";
import { nodeConfirmationBroker } from "./confirm.ts";
import { contextSizeOf, engineKind, keepStartStates, loadModelEngine, maxTokensOf, MODEL_OPTIONS, toolChoiceOf } from "./model.ts";
import { cliWorkspace } from "./workspace-session.ts";

export async function chatCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      tools: { type: "string" },
      "tools-root": { type: "string" },
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
      "no-start-state": { type: "boolean" },
      workspace: { type: "string" },
      builtins: { type: "string" },
      "allow-writes": { type: "boolean" },
      json: { type: "boolean" },
      interactive: { type: "boolean", short: "i" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.prompt && !values.interactive) throw new UsageError("chat needs --prompt TEXT (or --interactive).");
  const sources = [values.tools, values["tools-manifest"], values["facts-store"]].filter((v) => v !== undefined);
  if (sources.length > 1) throw new EdgeError("conflicting_tool_options");
  if ((values.tool || values["tool-tag"] || values["tools-root"]) && !values.tools) throw new UsageError("--tool / --tool-tag / --tools-root must be used with --tools.");
  const maxCalls = optionalInt(values["max-calls"], "--max-calls", 0);
  const timeoutMs = optionalInt(values["timeout-ms"], "--timeout-ms", 1);

  const kind = engineKind(values);
  // Guided decoding for generating engines (the scripted replay has none): src/engines/tool-turn.ts.
  const toolChoice = toolChoiceOf(values["tool-choice"]);
  const maxTokens = maxTokensOf(values);
  let engine: Engine;
  let player: ScriptPlayer | undefined;
  if (kind === "webllm") {
    // The real check, not an assumption: Node has no navigator.gpu, so this reports why.
    const probe = await probeWebGPU();
    if (!probe.available) {
      throw new EdgeError(
        "webgpu_unavailable",
        { reason: probe.reason },
        "The web-llm engine needs WebGPU, which Node does not have: run a GGUF model here with --model FILE.gguf (once: npm run setup:llama), run the model in the browser (npm start opens the playground), or replay outputs with --engine scripted --script OUTPUTS.json.",
      );
    }
    throw new EdgeError("webgpu_unavailable", {}, "The web-llm engine runs in the browser only; use the playground, --model FILE.gguf, or --engine scripted here.");
  } else if (kind === "scripted") {
    if (!values.script) throw new UsageError("--engine scripted needs --script OUTPUTS.json (a JSON array of the model's outputs: strings, or tool calls as objects).");
    // --ctx-size gives the scripted demo a context window: the loop then fits the history to it
    // and receipts record the prompt's size (counted by the loop's byte estimate).
    const contextWindow = contextSizeOf(values);
    const outputs = await readScript(values.script);
    player = new ScriptPlayer(() => outputs, contextWindow !== undefined ? { contextWindow } : {});
    engine = player.engine;
    await engine.load();
  } else if (kind === "llamacpp") {
    engine = await loadModelEngine(values, io, values.json === true);
    keepStartStates(engine, values["no-start-state"] === true);
  } else {
    throw new UsageError(`Unknown engine "${kind}" (use llamacpp with --model, webllm or scripted).`);
  }

  // Facts surfaces (built-in lookups over $EDGE_DATA_DIR/facts) need no Python runner.
  const surface = await factsSurfaceFor(values["facts-store"], values["tools-manifest"]);
  const ws = await cliWorkspace(values.workspace, values.builtins, values["allow-writes"] === true);
  const host = createNodeRunnerHost({ spares: values.tools ? 1 : 0 });
  const selection = { tool: values.tool, toolTag: values["tool-tag"] };
  try {
    const tools: ChatTools | undefined = values.tools ? { kind: "file", source: toolsFileSource(values.tools, values["tools-root"]), selection } : surface ? { kind: "surface", surface } : undefined;
    const session = await createChatSession({
      ...(ws.runtime ? { runtime: ws.runtime } : {}),
      ...(ws.approval ? { approval: ws.approval } : {}),
      ...(ws.workspace ? { workspace: ws.workspace } : {}),
      engine,
      host,
      tools,
      // A commit tool becomes a pending action (a 0600 file) confirmed with `edge tools confirm`.
      ...(values.tools ? { confirmations: nodeConfirmationBroker(values.tools, selection, undefined, values["tools-root"]) } : {}),
      // The imprint gate runs inside createChatSession, before any generation.
      ...(values["with-imprint"] !== undefined ? { imprint: await imprintBindingFor(values["with-imprint"]) } : {}),
      store: createNodeReceiptStore(),
      includeText: values["include-text"] === true,
      ...(maxCalls !== undefined ? { maxCalls } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      toolChoice,
      ...(maxTokens !== undefined ? { maxTokens } : {}),
    });
    if (values.interactive) {
      const beforeTurn = player ? () => player.startPrompt() : undefined;
      return await interactiveChat({ session, io, json: values.json === true, ws, host, ...(beforeTurn ? { beforeTurn } : {}), ...(values.tools ? { toolsFile: values.tools } : {}), ...(values.prompt ? { firstPrompt: values.prompt } : {}) });
    }
    player?.startPrompt();
    const run = await session.chat(values.prompt!);
    if (values.json) printJson(io, runJson(run, ws));
    else {
      printWorkspaceNotes(io, ws);
      printRunText(io, run);
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
    throw new EdgeError("invalid_tools_manifest", { path: manifest }, `The tools manifest ${manifest} could not be read: ${(err as Error).message}. Check the path and its permissions.`);
  }
  return toolsManifestSurface(createNodeFactsStore(), raw);
}

function optionalInt(text: string | undefined, flag: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be an integer ≥ ${min}.`);
  return n;
}

// `edge chat`: the same tool loop as the browser, in Node. The model is a GGUF file run by
// llama.cpp (`--model`, see model.ts), or the scripted engine (a JSON array of the model's
// successive outputs, played as the playground plays it: src/chat/script.ts); web-llm needs WebGPU,
// which Node lacks.
import { parseArgs } from "node:util";
import { createNodeEdge, type NodeEngine, type NodeTools } from "../assembly/node.ts";
import { EdgeError } from "../contract/errors.ts";
import { probeWebGPU } from "../engines/webgpu.ts";
import { imprintBindingFor } from "./imprints.ts";
import { printRunText, printWorkspaceNotes, runJson } from "./chat-print.ts";
import { interactiveChat } from "./interactive.ts";
import { readScript } from "./script-file.ts";
import { EXIT_FAILED, EXIT_OK, printJson, UsageError, type CliIO } from "./io.ts";
import {
  contextSizeOf,
  engineKind,
  keepStartStates,
  maxTokensOf,
  modelChoiceOf,
  MODEL_OPTIONS,
  printProgress,
  toolChoiceOf,
} from "./model.ts";
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
  if ((values.tool || values["tool-tag"] || values["tools-root"]) && !values.tools)
    throw new UsageError("--tool / --tool-tag / --tools-root must be used with --tools.");
  const maxCalls = optionalInt(values["max-calls"], "--max-calls", 0);
  const timeoutMs = optionalInt(values["timeout-ms"], "--timeout-ms", 1);

  const kind = engineKind(values);
  if (kind === "webllm") await refuseWebLLM();
  if (kind !== "llamacpp" && kind !== "scripted")
    throw new UsageError(`Unknown engine "${kind}" (use llamacpp with --model, webllm or scripted).`);
  if (kind === "scripted" && !values.script)
    throw new UsageError(
      "--engine scripted needs --script OUTPUTS.json (a JSON array of the model's outputs: strings, or tool calls as objects).",
    );
  // Guided decoding for generating engines (the scripted replay has none): src/engines/tool-turn.ts.
  const toolChoice = toolChoiceOf(values["tool-choice"]);
  const maxTokens = maxTokensOf(values);
  const ws = await cliWorkspace(values.workspace, values.builtins, values["allow-writes"] === true);
  const edge = createNodeEdge({ spares: values.tools ? 1 : 0 });
  let loaded: NodeEngine | undefined;
  try {
    // --ctx-size gives the scripted demo a context window: the loop then fits the history to it
    // and receipts record the prompt's size (counted by the loop's byte estimate).
    loaded = await edge.engine(
      kind === "llamacpp"
        ? modelChoiceOf(values)
        : {
            kind: "scripted",
            outputs: await readScript(values.script!),
            ...optional("contextWindow", contextSizeOf(values)),
          },
    );
    await loaded.engine.load(printProgress(io, values.json === true));
    if (kind === "llamacpp") keepStartStates(loaded.engine, values["no-start-state"] === true);
    const selection = { tool: values.tool, toolTag: values["tool-tag"] };
    const tools: NodeTools | undefined = values.tools
      ? { kind: "file", file: values.tools, ...optional("root", values["tools-root"]), selection }
      : values["facts-store"] !== undefined
        ? { kind: "facts", store: values["facts-store"] }
        : values["tools-manifest"] !== undefined
          ? { kind: "manifest", path: values["tools-manifest"] }
          : undefined;
    // A commit tool becomes a pending action (a 0600 file) confirmed with `edge tools confirm`;
    // the imprint gate runs inside the session, before any generation.
    const session = await edge.session({
      engine: loaded.engine,
      ...(tools ? { tools } : {}),
      builtins: ws,
      ...(ws.workspace ? { workspace: ws.workspace } : {}),
      ...(values["with-imprint"] !== undefined ? { imprint: await imprintBindingFor(values["with-imprint"]) } : {}),
      includeText: values["include-text"] === true,
      ...optional("maxCalls", maxCalls),
      ...optional("timeoutMs", timeoutMs),
      toolChoice,
      ...optional("maxTokens", maxTokens),
    });
    const beforeTurn = loaded.beforePrompt;
    if (values.interactive) {
      return await interactiveChat({
        session,
        io,
        json: values.json === true,
        ws,
        edge,
        beforeTurn,
        ...(values.tools ? { toolsFile: values.tools } : {}),
        ...(values.prompt ? { firstPrompt: values.prompt } : {}),
      });
    }
    beforeTurn();
    const run = await session.chat(values.prompt!);
    if (values.json) printJson(io, runJson(run, ws));
    else {
      printWorkspaceNotes(io, ws);
      printRunText(io, run);
    }
    return run.ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    await edge.close();
    await loaded?.engine.unload();
  }
}

/** The web-llm engine needs WebGPU: the real check, not an assumption (Node has no navigator.gpu). */
async function refuseWebLLM(): Promise<never> {
  const probe = await probeWebGPU();
  if (!probe.available) {
    throw new EdgeError(
      "webgpu_unavailable",
      { reason: probe.reason },
      "The web-llm engine needs WebGPU, which Node does not have: run a GGUF model here with --model FILE.gguf (once: npm run setup:llama), run the model in the browser (npm start opens the playground), or replay outputs with --engine scripted --script OUTPUTS.json.",
    );
  }
  throw new EdgeError(
    "webgpu_unavailable",
    {},
    "The web-llm engine runs in the browser only; use the playground, --model FILE.gguf, or --engine scripted here.",
  );
}

/** `{ [key]: value }` when the value is given, else nothing (for optional options). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

function optionalInt(text: string | undefined, flag: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be an integer ≥ ${min}.`);
  return n;
}

// Command dispatch for `edge`. Each command lives in its own file; this one only routes.
import { toErrorJson } from "../contract/errors.ts";
import { EXIT_FAILED, EXIT_USAGE, printJson, UsageError, usageErrorJson, type CliIO } from "./io.ts";
import { chatCommand } from "./chat.ts";
import { factsCommand } from "./facts.ts";
import { imprintsCommand } from "./imprints.ts";
import { learnCommand } from "./learn.ts";
import { receiptsCommand } from "./receipts.ts";
import { toolsCommand } from "./tools.ts";
import { workspaceCommand } from "./workspace.ts";

export const HELP = `edge — Edge Web command line

Tools (a tools.py with @edge_tool functions, or a tools manifest):
  edge tools validate FILE [--tool NAME]... [--tool-tag TAG]... [--json]
  edge tools inspect  FILE [--tool NAME]... [--tool-tag TAG]... [--json]
  edge tools validate tools.manifest.json [--learn-sample SAMPLE.json] [--json]
  edge tools call     FILE TOOL --args JSON [--timeout-ms N] [--json]

Chat (the tool loop; in Node the model is the scripted engine, web-llm needs a browser's WebGPU):
  edge chat --tools FILE [--tool NAME]... [--tool-tag TAG]... --prompt TEXT
            --engine scripted --script OUTPUTS.json [--include-text] [--max-calls N]
            [--timeout-ms N] [--with-imprint ID|FILE] [--json]
  edge chat --facts-store STORE | --tools-manifest FILE  --prompt TEXT --engine scripted --script OUTPUTS.json [--json]

The workspace (built-in tools: read_file, write_file, edit_file, read_image, bash, goals):
  edge chat … --workspace DIR [--builtins read_file,bash,…] [--allow-writes]
                       built-ins over DIR; read_local Python tools see DIR read-only at /workspace
  edge workspace ls [--json]                           the stored workspace's files, sizes, sha256
  edge workspace import PATH [--into SUBDIR] [--json]  a .zip (bounded), a folder or a file
  edge workspace export -o FILE.zip [--json]

Confirmation of commit tools (edge chat prints the exact command):
  edge tools confirm  ID|PENDING_FILE --token TOKEN [--timeout-ms N] [--json]
  edge tools pending  list|show ID|reject ID|purge [--json]

Local facts:
  edge facts import FILE [--store STORE] [--json]   validate the whole file, then upsert by fact_id
  edge facts list|inspect STORE|delete STORE [--json]
  edge facts export STORE                          the store as an edge.demo.facts.v1 file

Neural Imprint:
  edge learn validate SAMPLE.json [--tools FILE] [--json]
  edge learn run --sample-file SAMPLE.json [--tools FILE] [--tool NAME]... [--max-calls N]
            --engine scripted --script OUTPUTS.json [--no-evaluate] [--json]
                       (script: per scored question, the output without the prefix, then with it)
  edge imprints list|show ID|export ID [-o FILE]|import FILE|delete ID [--json]

Receipts (stored under $EDGE_DATA_DIR):
  edge receipts list|show ID [--json]
  edge receipts export                 JSON Lines on stdout, oldest first
  edge receipts verify FILE [--json]   exit 0 if the chain holds, 1 at the first broken link

Exit codes: 0 valid / ok, 1 invalid / failed closed, 2 usage error.
Discovery imports FILE inside an isolated Pyodide runner: its top-level code runs.
Only point edge at tool files you trust.
`;

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const json = argv.includes("--json");
  try {
    const [group, ...rest] = argv;
    if (!group || group === "--help" || group === "-h" || group === "help") {
      io.out(HELP);
      return group ? 0 : EXIT_USAGE;
    }
    if (group === "tools") return await toolsCommand(rest, io);
    if (group === "chat") return await chatCommand(rest, io);
    if (group === "receipts") return await receiptsCommand(rest, io);
    if (group === "facts") return await factsCommand(rest, io);
    if (group === "learn") return await learnCommand(rest, io);
    if (group === "imprints") return await imprintsCommand(rest, io);
    if (group === "workspace") return await workspaceCommand(rest, io);
    throw new UsageError(`Unknown command "${group}".`);
  } catch (err) {
    if (err instanceof UsageError || (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS"))) {
      if (json) printJson(io, { ok: false, error: usageErrorJson(err.message) });
      else io.err(`edge: ${err.message}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    const e = toErrorJson(err);
    if (json) printJson(io, { ok: false, error: e });
    else io.err(`edge: ${e.code}: ${e.message}\n`);
    return EXIT_FAILED;
  }
}

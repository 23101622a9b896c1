// Command dispatch for `edge`. Each command lives in its own file; this one only routes.
import { toErrorJson } from "../contract/errors.ts";
import { EXIT_FAILED, EXIT_USAGE, printJson, UsageError, usageErrorJson, type CliIO } from "./io.ts";
import { chatCommand } from "./chat.ts";
import { factsCommand } from "./facts.ts";
import { imprintsCommand } from "./imprints.ts";
import { learnCommand } from "./learn.ts";
import { receiptsCommand } from "./receipts.ts";
import { toolsCommand } from "./tools.ts";

export const HELP = `edge — Edge Web command line

Usage:
  edge tools validate FILE [--tool NAME]... [--tool-tag TAG]... [--json]
  edge tools inspect  FILE [--tool NAME]... [--tool-tag TAG]... [--json]
  edge tools validate tools.manifest.json [--learn-sample SAMPLE.json] [--json]
  edge tools call     FILE TOOL --args JSON [--timeout-ms N] [--json]
  edge tools confirm  ID|PENDING_FILE --token TOKEN [--timeout-ms N] [--json]
                                       run a pending commit action once (printed by edge chat)
  edge tools pending list|show ID|reject ID|purge [--json]
  edge chat --tools FILE [--tool NAME]... [--tool-tag TAG]... --prompt TEXT
            --engine scripted --script OUTPUTS.json [--include-text] [--max-calls N] [--json]
  edge chat --facts-store STORE | --tools-manifest FILE  --prompt TEXT --engine scripted --script OUTPUTS.json [--json]
                                       (--engine webllm needs WebGPU: use the browser playground)
  edge facts import FILE [--store STORE] [--json]   validate the whole file, then upsert by fact_id
  edge facts list [--json]
  edge facts inspect STORE [--json]
  edge facts delete STORE [--json]
  edge facts export STORE              the store as an edge.demo.facts.v1 file on stdout
  edge learn validate SAMPLE.json [--tools FILE] [--json]   check an edge.demo.learn.sample.v1 file
  edge learn run --sample-file SAMPLE.json [--tools FILE] [--tool NAME]... [--max-calls N]
            --engine scripted --script OUTPUTS.json [--no-evaluate] [--json]
                                       learn a Neural Imprint (script: per scored question, the
                                       output without the prefix, then with it)
  edge chat ... --with-imprint ID|FILE restore an imprint (gate: tools, model, tool names, schemas)
  edge imprints list|show ID|export ID [-o FILE]|import FILE|delete ID [--json]
  edge receipts list [--json]          receipts stored under $EDGE_DATA_DIR, oldest first
  edge receipts show ID [--json]
  edge receipts export                 JSON Lines to stdout, oldest first
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

// The command table of `edge`: every command is data (its words, a one-line summary, its usage)
// plus the function that runs it. Dispatch, `--help` on every command and group, and the top-level
// help are all derived from this table, so a command cannot ship without its help (a test walks it).
import { LLAMACPP_CATALOG } from "../engines/llamacpp/catalog.ts";
import { chatCommand } from "./chat.ts";
import { confirmCommandCli, pendingList, pendingPurge, pendingReject, pendingShow } from "./confirm.ts";
import { factsDelete, factsExport, factsImport, factsInspect, factsList, factsStores } from "./facts.ts";
import { factsCrawlUrl, factsImportUrl } from "./facts-url.ts";
import { imprintsDelete, imprintsExport, imprintsImport, imprintsList, imprintsShow } from "./imprints.ts";
import type { CliIO } from "./io.ts";
import { learnSampleInit } from "./learn-sample.ts";
import { run as learnRun, validateSample } from "./learn.ts";
import { receiptsExport, receiptsList, receiptsShow, receiptsVerify } from "./receipts.ts";
import { toolsCall, toolsInspect, toolsValidate } from "./tools.ts";
import { workspaceExport, workspaceImport, workspaceLs } from "./workspace.ts";

export interface Command {
  /** The words after `edge` (and after an optional `demo`), e.g. ["tools", "validate"]. */
  readonly path: readonly string[];
  readonly summary: string;
  /** The full usage: synopsis lines first, then what the options do. */
  readonly usage: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

const SELECT = "--tool NAME (repeatable) and --tool-tag TAG (repeatable) narrow a tools.py's active set (at most 8 tools).";
const MODEL = `--model runs a GGUF model with llama.cpp (needs \`npm run setup:llama\` once): a file path, an
http(s) URL (downloaded once into $EDGE_DATA_DIR/models) or a catalog name
(${LLAMACPP_CATALOG.map((m) => m.id).join(", ")}). MODEL OPTIONS:
[--model-sha256 HEX] (pin the file) [--ctx-size N] (default 4096) [--threads N] [--max-tokens N]
[--tool-choice auto|required|none] (auto, the default: a call or an answer; required: the first
turn must call a tool; none: free text).`;
const SCRIPTED = `--engine scripted --script OUTPUTS.json: the model's successive outputs, a JSON array of strings
(no model runs). web-llm needs a browser's WebGPU (npm start opens the playground).`;
const JSON_OUT = "--json prints one JSON document on stdout.";

export const COMMANDS: readonly Command[] = [
  {
    path: ["tools", "validate"],
    summary: "check a tools.py (or a tools manifest): names, type hints, schemas, the 8-tool limit",
    usage: `edge tools validate FILE [--tool NAME]... [--tool-tag TAG]... [--json]
edge tools validate tools.manifest.json [--learn-sample SAMPLE.json] [--json]

Exit 0 valid, 1 invalid, 2 usage error. ${SELECT}
A .json file (or one starting with "{") is validated as a tools manifest, without any runner;
--learn-sample warns when the sample's tool_schema_export names other tools.
Discovery imports FILE inside an isolated Pyodide runner: its top-level code runs.
Only point edge at tool files you trust. ${JSON_OUT}`,
    run: toolsValidate,
  },
  {
    path: ["tools", "inspect"],
    summary: "validate, plus every tool's schema, schema_sha256, active_set_sha256 and tools_file_sha256",
    usage: `edge tools inspect FILE [--tool NAME]... [--tool-tag TAG]... [--json]
edge tools inspect tools.manifest.json [--json]

${SELECT} ${JSON_OUT}`,
    run: toolsInspect,
  },
  {
    path: ["tools", "call"],
    summary: "run one tool directly, with every check, and write a receipt (a commit tool becomes a pending action)",
    usage: `edge tools call FILE TOOL [--args JSON] [--timeout-ms N] [--json]

--args: the arguments as one JSON object (default {}); they are checked against the tool's schema.
A read or prepare tool runs in a fresh runner; a commit tool does not run: a pending action is
created and the exact \`edge tools confirm\` command is printed. Every call writes a receipt
(kind tool_call), chained with chat receipts. Exit 0 ok, 1 failed closed or pending. ${JSON_OUT}`,
    run: toolsCall,
  },
  {
    path: ["tools", "confirm"],
    summary: "run a commit tool's pending action, once, with its token",
    usage: `edge tools confirm ID|PENDING_FILE --token TOKEN [--timeout-ms N] [--json]

Chat (and edge tools call) print this exact command when a commit tool asks. The action is bound
to the tools file, the active set, the tool's schema and the arguments; any change, a wrong or
expired token, or a second confirmation fails closed. ${JSON_OUT}`,
    run: confirmCommandCli,
  },
  { path: ["tools", "pending", "list"], summary: "list pending actions", usage: `edge tools pending list [--json]`, run: pendingList },
  { path: ["tools", "pending", "show"], summary: "show one pending action", usage: `edge tools pending show ID [--json]`, run: pendingShow },
  { path: ["tools", "pending", "reject"], summary: "reject a pending action (it can no longer run)", usage: `edge tools pending reject ID [--json]`, run: pendingReject },
  { path: ["tools", "pending", "purge"], summary: "wipe and delete expired pending actions", usage: `edge tools pending purge [--json]`, run: pendingPurge },
  {
    path: ["chat"],
    summary: "the tool loop: one prompt (or --interactive: a session), with a tools.py, a facts store or a manifest",
    usage: `edge chat --tools FILE [--tool NAME]... [--tool-tag TAG]... --prompt TEXT
          (--model FILE.gguf|URL|NAME [MODEL OPTIONS] | --engine scripted --script OUTPUTS.json)
          [--include-text] [--max-calls N] [--timeout-ms N] [--with-imprint ID|FILE|LEARN_RECEIPT]
          [--workspace DIR [--builtins read_file,bash,...] [--allow-writes]] [--json]
edge chat --facts-store STORE | --tools-manifest FILE  --prompt TEXT
          (--model ... | --engine scripted --script OUTPUTS.json) [--with-imprint ...] [--json]
edge chat --interactive|-i [--prompt FIRST] [any option above]     a chat session in the terminal

--tools, --tools-manifest and --facts-store are mutually exclusive; ${SELECT}
${MODEL}
${SCRIPTED}
--workspace DIR mounts DIR read-only at /workspace for read_local Python tools; --builtins names the
built-in tools to give the model over DIR (read_file, write_file, edit_file, read_image, bash, goals;
reads stay inside DIR, ../ and links out of it are refused); their writes need --allow-writes.
--with-imprint restores a Neural Imprint (an id, an exported imprint file, or a learn receipt) under
its schema-level gates. --include-text stores the prompt and answer in the receipt.
--interactive: one session, many prompts (stdin, a line each). The model sees the earlier turns;
the tools are frozen once at start (a change to the file on disk is reported, never picked up:
calls then fail closed);
answers stream; each turn writes its receipt. On a terminal a commit tool's pending action is
asked y/N inline (no rejects it); from a pipe it is printed as in one-shot chat. Ctrl-C stops the
running turn (its receipt records the abort); a second Ctrl-C leaves (exit 130). /reset forgets
the conversation, /help lists the commands, /exit or end of input (Ctrl-D) leaves with exit 0.
With --json, one JSON document per turn, one per line. --ctx-size also applies to the scripted
engine (a context window for the history, counted by estimate).
Exit 0 answered, 1 failed closed or pending confirmation, 2 usage error. ${JSON_OUT}`,
    run: chatCommand,
  },
  {
    path: ["facts", "import"],
    summary: "validate a whole edge.demo.facts.v1 file, then upsert it by fact_id",
    usage: `edge facts import FILE [--store STORE] [--json]

The whole file is validated first; a bad file changes nothing and every problem is listed.
--store imports into another store than the one the file names. ${JSON_OUT}`,
    run: factsImport,
  },
  {
    path: ["facts", "import-url"],
    summary: "fetch one HTML page and import its text (or its table rows) as facts",
    usage: `edge facts import-url URL --store STORE [--split page|html-table-rows] [--topic TOPIC]
          [--tags a,b] [--fact-id-prefix PREFIX] [--max-bytes N] [--timeout SECONDS] [--json]

One http(s) URL, fetched once (no JavaScript runs, no links are followed). --split page (default)
keeps the page's main text (a readability extractor drops navigation, scripts and boilerplate),
split at paragraph boundaries into facts of at most 4,000 characters; --split html-table-rows makes
one fact per table row, its links made absolute. Each fact records source_url and the page's
sha256 in its provenance. Defaults: --max-bytes 2000000, --timeout 30 (their ceilings: 8 MiB, 300 s).
The facts are validated as one file before anything is written. ${JSON_OUT}`,
    run: factsImportUrl,
  },
  {
    path: ["facts", "crawl-url"],
    summary: "a bounded, same-origin crawl of a few linked HTML pages into facts",
    usage: `edge facts crawl-url URL --store STORE --max-depth N --max-urls N --max-bytes N
          --max-bytes-total N --timeout SECONDS [--split page|html-table-rows] [--topic TOPIC]
          [--tags a,b] [--fact-id-prefix PREFIX] [--json]

Every bound is required (there are no defaults; --max-pages is accepted for --max-urls):
--max-depth links from the start page (0: the start page only, ceiling 5), --max-urls pages in all
(ceiling 100), --max-bytes per page, --max-bytes-total for the crawl, --timeout for the whole crawl
in seconds (ceiling 300). Same origin only, always: other origins' links are not queued and a
redirect to another origin fails the crawl. Static HTML only (no JavaScript); robots.txt is not
consulted, so point it only at pages you may fetch. Nothing is written unless every fetched page
passes; pages that are not HTML or answer an HTTP error are skipped and listed. ${JSON_OUT}`,
    run: factsCrawlUrl,
  },
  {
    path: ["facts", "list"],
    summary: "the facts in one store (ids, topics, tags, sources; text with --include-text)",
    usage: `edge facts list --store STORE [--include-text] [--json]
edge facts list [--json]                  without --store: the stores (as edge facts stores)

Output is hash-first: each fact's text_sha256 and length; its text only with --include-text. ${JSON_OUT}`,
    run: factsList,
  },
  {
    path: ["facts", "inspect"],
    summary: "one fact of a store, or the store's topics and tags",
    usage: `edge facts inspect FACT_ID --store STORE [--include-text] [--json]
edge facts inspect --store STORE [--json]       the store: facts, topics, tags, revision

${JSON_OUT}`,
    run: factsInspect,
  },
  { path: ["facts", "stores"], summary: "list the facts stores", usage: `edge facts stores [--json]`, run: factsStores },
  { path: ["facts", "delete"], summary: "delete a facts store", usage: `edge facts delete --store STORE [--json]   (or: edge facts delete STORE)`, run: factsDelete },
  {
    path: ["facts", "export"],
    summary: "a store as an importable edge.demo.facts.v1 file on stdout",
    usage: `edge facts export --store STORE   (or: edge facts export STORE)`,
    run: factsExport,
  },
  {
    path: ["learn", "validate"],
    summary: "check a learn sample (edge.demo.learn.sample.v1), optionally against the tools",
    usage: `edge learn validate SAMPLE.json [--tools FILE [--tool NAME]... [--tool-tag TAG]...] [--json]

Prints counts and hashes, never the sample's text; warnings (e.g. tool_schema_export_name_mismatch,
fact_correction_unstable) never refuse. ${JSON_OUT}`,
    run: validateSample,
  },
  {
    path: ["learn", "run"],
    summary: "learn a Neural Imprint from a sample (or --dry-run: the plan, no model)",
    usage: `edge learn run --sample-file SAMPLE.json [--tools FILE [--tool NAME]... [--tool-tag TAG]...
          | --facts-store STORE | --tools-manifest FILE] [--max-calls N]
          (--model FILE.gguf|URL|NAME [MODEL OPTIONS] | --engine scripted --script OUTPUTS.json)
          [--no-evaluate] [--include-text] [--json]
edge learn run --dry-run --sample-file SAMPLE.json [--tools FILE | --facts-store STORE
          | --tools-manifest FILE] [--include-text] [--json]

${MODEL}
The imprint is bound to the tool surface it learned (a tools.py's active set, a facts store's
lookup, or a manifest's lookups); chat restores it with the same surface. With --model, the
prefix is evaluated once more and the model's state saved beside the imprint (bound to the model
file, runtime, --ctx-size and tokens): a chat with the same model loads it instead of evaluating
the prefix again. The script holds, per
scored question, the output without the prefix, then the output with it.
--dry-run validates everything and prints the plan (questions, corrections applied or skipped,
what would be scored, the prefix hash) without running a model or writing anything.
--include-text adds the question texts (dry run) and the prefix's text; output is hash-first
without it. ${JSON_OUT}`,
    run: learnRun,
  },
  {
    path: ["learn", "sample", "init"],
    summary: "write a valid, commented starting learn sample for your tools",
    usage: `edge learn sample init [--output FILE] [--tools FILE [--tool NAME]... [--tool-tag TAG]...
          | --facts-store STORE | --tools-manifest FILE] [--json]

Writes a sample that validates with no warnings against the given tool surface (or without
tools); each record and correction carries a "note" saying what to put there (notes are kept,
never rendered). Without --output it is printed; an existing --output file is never replaced.`,
    run: learnSampleInit,
  },
  {
    path: ["learn", "sample", "validate"],
    summary: "the same as edge learn validate",
    usage: `edge learn sample validate SAMPLE.json [--tools FILE] [--json]`,
    run: validateSample,
  },
  { path: ["workspace", "ls"], summary: "the stored workspace's files, sizes and sha256", usage: `edge workspace ls [--json]`, run: workspaceLs },
  {
    path: ["workspace", "import"],
    summary: "import a .zip (bounded), a folder or a file into the stored workspace",
    usage: `edge workspace import PATH [--into SUBDIR] [--json]

Every name and the workspace limits are checked first; the import is written as one change (a bad
archive or a symbolic link changes nothing). ${JSON_OUT}`,
    run: workspaceImport,
  },
  { path: ["workspace", "export"], summary: "write the stored workspace as a zip", usage: `edge workspace export -o FILE.zip [--json]`, run: workspaceExport },
  { path: ["imprints", "list"], summary: "list stored imprints", usage: `edge imprints list [--json]`, run: imprintsList },
  { path: ["imprints", "show"], summary: "show one imprint", usage: `edge imprints show ID [--json]`, run: imprintsShow },
  {
    path: ["imprints", "export"],
    summary: "an imprint as a sealed JSON file (with its saved model state, when it has one)",
    usage: `edge imprints export ID [-o FILE] [--without-state] [--json]    (an existing FILE is never replaced)

A saved model state travels in the same file (base64, checked against the imprint's sha256 on
import); a damaged one is refused: --without-state exports the imprint alone.`,
    run: imprintsExport,
  },
  { path: ["imprints", "import"], summary: "import (and verify) an exported imprint", usage: `edge imprints import FILE [--json]`, run: imprintsImport },
  { path: ["imprints", "delete"], summary: "delete an imprint", usage: `edge imprints delete ID [--json]`, run: imprintsDelete },
  { path: ["receipts", "list"], summary: "list stored receipts", usage: `edge receipts list [--json]`, run: receiptsList },
  { path: ["receipts", "show"], summary: "show one receipt", usage: `edge receipts show ID [--json]`, run: receiptsShow },
  { path: ["receipts", "export"], summary: "all receipts as JSON Lines on stdout, oldest first", usage: `edge receipts export`, run: receiptsExport },
  {
    path: ["receipts", "verify"],
    summary: "check a JSON Lines export's chain",
    usage: `edge receipts verify FILE [--json]    exit 0 if the chain holds, 1 at the first broken link`,
    run: receiptsVerify,
  },
];

export const commandName = (path: readonly string[]): string => `edge ${path.join(" ")}`;

/** Groups (a prefix shared by several commands, e.g. ["tools", "pending"]) in table order. */
export function groupsOf(commands: readonly Command[] = COMMANDS): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const c of commands) {
    for (let n = 1; n < c.path.length; n++) {
      const prefix = c.path.slice(0, n);
      if (!seen.has(prefix.join(" "))) {
        seen.add(prefix.join(" "));
        out.push(prefix);
      }
    }
  }
  return out;
}

/** The commands under a group prefix. */
export function commandsUnder(prefix: readonly string[], commands: readonly Command[] = COMMANDS): Command[] {
  return commands.filter((c) => c.path.length > prefix.length && prefix.every((w, i) => c.path[i] === w));
}

export function commandHelp(c: Command): string {
  return `${commandName(c.path)} — ${c.summary}\n\nUsage:\n${indent(c.usage)}\n`;
}

export function groupHelp(prefix: readonly string[]): string {
  const rows = commandsUnder(prefix).map((c) => `  ${commandName(c.path).padEnd(30)} ${c.summary}`);
  return `${commandName(prefix)} — subcommands:\n${rows.join("\n")}\n\nRun \`${commandName(prefix)} SUBCOMMAND --help\` for one command's usage.\n`;
}

const indent = (text: string): string =>
  text
    .split("\n")
    .map((l) => (l ? `  ${l}` : l))
    .join("\n");

export function topHelp(version: string): string {
  const rows = COMMANDS.map((c) => `  ${commandName(c.path).padEnd(30)} ${c.summary}`);
  return `edge ${version} — Edge Web command line: your Python tools, called by a local model, safely.

Commands:
${rows.join("\n")}

edge demo COMMAND … is the same as edge COMMAND … (Edge Studio's documented form).
Run \`edge COMMAND --help\` for a command's usage; \`edge --version\` prints the version.
Exit codes: 0 valid / ok, 1 invalid / failed closed, 2 usage error.
Data (receipts, pending actions, imprints, facts) lives under $EDGE_DATA_DIR.
Discovery imports a tools.py inside an isolated Pyodide runner: its top-level code runs.
Only point edge at tool files you trust.
`;
}

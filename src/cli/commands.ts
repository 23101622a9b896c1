// The command table of `edge`: every command is data (its words, a one-line summary, its usage)
// plus the function that runs it. Dispatch, `--help` on every command and group, and the top-level
// help are all derived from this table, so a command cannot ship without its help (a test walks it).
// Handlers are imported when their command runs, not before: `edge --help` loads this table only,
// and `edge tools validate` never loads the engines, the facts code or chat (the built CLI keeps
// each command's modules in their own chunks, scripts/build-cli.mjs).
import { LLAMACPP_CATALOG } from "../engines/llamacpp/catalog.ts";
import type { CliIO } from "./io.ts";

export interface Command {
  /** The words after `edge` (and after an optional `demo`), e.g. ["tools", "validate"]. */
  readonly path: readonly string[];
  readonly summary: string;
  /** The full usage: synopsis lines first, then what the options do. */
  readonly usage: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

/** A handler loaded on first use: `load` imports its module, `pick` names the function. */
function lazy<M>(load: () => Promise<M>, pick: (m: M) => Command["run"]): Command["run"] {
  return async (argv, io) => pick(await load())(argv, io);
}

const SELECT = "--tool NAME (repeatable) and --tool-tag TAG (repeatable) narrow a tools.py's active set (at most 8 tools).";
const MODEL = `--model runs a GGUF model with llama.cpp (needs \`npm run setup:llama\` once): a file path, an
http(s) URL (downloaded once into $EDGE_DATA_DIR/models) or a catalog name
(${LLAMACPP_CATALOG.map((m) => m.id).join(", ")}). MODEL OPTIONS:
[--model-sha256 HEX] (pin the file) [--ctx-size N] (default 4096) [--threads N] [--max-tokens N]
[--tool-choice auto|required|none] (auto, the default: a call or an answer; required: the first
turn must call a tool; none: free text).`;
const SCRIPTED = `--engine scripted --script OUTPUTS.json: the model's outputs as in the playground (strings or tool-call
objects, {{tool_result.KEY}}; docs/cli.md). web-llm needs a browser's WebGPU (npm start opens the playground).`;
const JSON_OUT = "--json prints one JSON document on stdout.";
const PROJECT = `--tools-root DIR: the tools project (default: the folder of FILE), mounted read-only at /tools,
the working directory and first on sys.path, so FILE imports its sibling modules and opens its data
files as in CPython. Every file is hashed into tools_bundle_sha256; an edit after the freeze fails
closed (tools_file_changed, naming the file). Hidden names, __pycache__, node_modules, virtualenvs
and Edge's own data are skipped; at most 1000 files and 16 MiB (docs/tools-projects.md).
--tools-root FILE (the tools file itself) mounts it alone.`;

export const COMMANDS: readonly Command[] = [
  {
    path: ["tools", "validate"],
    summary: "check a tools.py (or a tools manifest): names, type hints, schemas, the 8-tool limit",
    usage: `edge tools validate FILE [--tools-root DIR] [--tool NAME]... [--tool-tag TAG]... [--json]
edge tools validate tools.manifest.json [--learn-sample SAMPLE.json] [--json]

Exit 0 valid, 1 invalid, 2 usage error. ${SELECT}
A .json file (or one starting with "{") is validated as a tools manifest, without any runner;
--learn-sample warns when the sample's tool_schema_export names other tools.
Discovery imports FILE inside an isolated Pyodide runner: its top-level code runs.
Only point edge at tool files you trust. ${PROJECT}
${JSON_OUT}`,
    run: lazy(() => import("./tools.ts"), (m) => m.toolsValidate),
  },
  {
    path: ["tools", "inspect"],
    summary: "validate, plus every tool's schema and hash, and the tools project's files and tools_bundle_sha256",
    usage: `edge tools inspect FILE [--tools-root DIR] [--tool NAME]... [--tool-tag TAG]... [--json]
edge tools inspect tools.manifest.json [--json]

${SELECT}
${PROJECT}
${JSON_OUT}`,
    run: lazy(() => import("./tools.ts"), (m) => m.toolsInspect),
  },
  {
    path: ["tools", "call"],
    summary: "run one tool directly, with every check, and write a receipt (a commit tool becomes a pending action)",
    usage: `edge tools call FILE TOOL [--args JSON] [--tools-root DIR] [--timeout-ms N] [--workspace DIR] [--json]

--args: the arguments as one JSON object (default {}); they are checked against the tool's schema.
A read_local tool sees --workspace DIR, or without it the stored workspace (edge workspace import),
read-only at /workspace.
A read or prepare tool runs in a fresh runner; a commit tool does not run: a pending action is
created and the exact \`edge tools confirm\` command is printed. Every call writes a receipt
(kind tool_call), chained with chat receipts. Exit 0 ok, 1 failed closed or pending.
${PROJECT}
${JSON_OUT}`,
    run: lazy(() => import("./tools.ts"), (m) => m.toolsCall),
  },
  {
    path: ["tools", "confirm"],
    summary: "run a commit tool's pending action, once, with its token",
    usage: `edge tools confirm ID|PENDING_FILE --token TOKEN [--timeout-ms N] [--workspace DIR] [--json]

Chat (and edge tools call) print this exact command when a commit tool asks. The action is bound
to the tools file, the active set, the tool's schema and the arguments; any change, a wrong or
expired token, or a second confirmation fails closed. ${JSON_OUT}`,
    run: lazy(() => import("./confirm.ts"), (m) => m.confirmCommandCli),
  },
  { path: ["tools", "pending", "list"], summary: "list pending actions", usage: `edge tools pending list [--json]`, run: lazy(() => import("./confirm.ts"), (m) => m.pendingList) },
  { path: ["tools", "pending", "show"], summary: "show one pending action", usage: `edge tools pending show ID [--json]`, run: lazy(() => import("./confirm.ts"), (m) => m.pendingShow) },
  { path: ["tools", "pending", "reject"], summary: "reject a pending action (it can no longer run)", usage: `edge tools pending reject ID [--json]`, run: lazy(() => import("./confirm.ts"), (m) => m.pendingReject) },
  { path: ["tools", "pending", "purge"], summary: "wipe and delete expired pending actions", usage: `edge tools pending purge [--json]`, run: lazy(() => import("./confirm.ts"), (m) => m.pendingPurge) },
  {
    path: ["chat"],
    summary: "the tool loop: one prompt (or --interactive: a session), with a tools.py, a facts store or a manifest",
    usage: `edge chat --tools FILE [--tools-root DIR] [--tool NAME]... [--tool-tag TAG]... --prompt TEXT
          (--model FILE.gguf|URL|NAME [MODEL OPTIONS] | --engine scripted --script OUTPUTS.json)
          [--include-text] [--max-calls N] [--timeout-ms N] [--with-imprint ID|FILE|LEARN_RECEIPT]
          [--workspace DIR] [--builtins read_file,bash,... [--allow-writes]] [--no-start-state] [--json]
edge chat --facts-store STORE | --tools-manifest FILE  --prompt TEXT
          (--model ... | --engine scripted --script OUTPUTS.json) [--with-imprint ...] [--json]
edge chat --interactive|-i [--prompt FIRST] [any option above]     a chat session in the terminal

--tools, --tools-manifest and --facts-store are mutually exclusive; ${SELECT}
${PROJECT}
${MODEL}
${SCRIPTED}
--workspace DIR mounts DIR read-only at /workspace for read_local Python tools; without it, the
stored workspace (edge workspace import …) is mounted, once it exists. --builtins names the built-in
tools to give the model over the same files (read_file, write_file, edit_file, read_image, bash,
goals; reads stay inside it, ../ and links out of a DIR are refused); writes need --allow-writes.
--with-imprint restores a Neural Imprint (an id, an exported imprint file, or a learn receipt) under
its schema-level gates. --include-text stores the prompt and answer in the receipt.
With --model, the evaluated tool contract is kept as llama.cpp state in $EDGE_DATA_DIR/start-states
(bound to model file, runtime, --ctx-size, tokens; 256 MiB, least recently used out:
EDGE_START_STATE_MAX_MB): the next chat loads it (receipt: contract_prefix); one that does not fit
is evaluated instead. --no-start-state (or EDGE_START_STATE=0) neither loads nor saves one.
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
    run: lazy(() => import("./chat.ts"), (m) => m.chatCommand),
  },
  {
    path: ["mcp", "serve"],
    summary: "serve a tools.py's frozen tools to any MCP client (stdio, or Streamable HTTP on loopback)",
    usage: `edge mcp serve FILE [--tools-root DIR] [--tool NAME]... [--tool-tag TAG]... [--http 127.0.0.1:PORT]
          [--max-sessions N] [--session-idle-ms MS] [--timeout-ms N] [--workspace DIR]

An MCP server (the official SDK) over the same runtime as chat: the tools are frozen at start
(${SELECT}); each tools/call has its arguments checked, runs in a fresh hash-checked runner, has
its result checked, and writes a receipt (surface "mcp", the client's name and version). An edited
FILE fails closed (tools_file_changed) until you restart, or send the server SIGHUP to re-freeze
it (clients are told the tool list changed). A commit tool runs once confirmed: by a client with
elicitation (receipt: confirmed_via "elicitation"), else by the command printed on stderr only.
Without --http it speaks over stdin/stdout (a client starts it); --http serves Streamable HTTP at
http://HOST:PORT/mcp on the loopback interface only (port 0 picks a free one) and prints a bearer
token on stderr that every request must send; --max-sessions (100) and --session-idle-ms (600000) bound its
sessions. Logs go to stderr. Ctrl-C (SIGINT/SIGTERM) or the client leaving stops it; a running call is aborted.
A read_local tool sees --workspace DIR, or without it the stored workspace, read-only at /workspace.
${PROJECT}`,
    run: lazy(() => import("./mcp.ts"), (m) => m.mcpServe),
  },
  {
    path: ["facts", "import"],
    summary: "validate a whole edge.demo.facts.v1 file, then upsert it by fact_id",
    usage: `edge facts import FILE [--store STORE] [--json]

The whole file is validated first; a bad file changes nothing and every problem is listed.
--store imports into another store than the one the file names. ${JSON_OUT}`,
    run: lazy(() => import("./facts.ts"), (m) => m.factsImport),
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
    run: lazy(() => import("./facts-url.ts"), (m) => m.factsImportUrl),
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
    run: lazy(() => import("./facts-url.ts"), (m) => m.factsCrawlUrl),
  },
  {
    path: ["facts", "list"],
    summary: "the facts in one store (ids, topics, tags, sources; text with --include-text)",
    usage: `edge facts list --store STORE [--include-text] [--json]
edge facts list [--json]                  without --store: the stores (as edge facts stores)

Output is hash-first: each fact's text_sha256 and length; its text only with --include-text. ${JSON_OUT}`,
    run: lazy(() => import("./facts.ts"), (m) => m.factsList),
  },
  {
    path: ["facts", "inspect"],
    summary: "one fact of a store, or the store's topics and tags",
    usage: `edge facts inspect FACT_ID --store STORE [--include-text] [--json]
edge facts inspect --store STORE [--json]       the store: facts, topics, tags, revision

${JSON_OUT}`,
    run: lazy(() => import("./facts.ts"), (m) => m.factsInspect),
  },
  { path: ["facts", "stores"], summary: "list the facts stores", usage: `edge facts stores [--json]`, run: lazy(() => import("./facts.ts"), (m) => m.factsStores) },
  { path: ["facts", "delete"], summary: "delete a facts store", usage: `edge facts delete --store STORE [--json]   (or: edge facts delete STORE)`, run: lazy(() => import("./facts.ts"), (m) => m.factsDelete) },
  {
    path: ["facts", "export"],
    summary: "a store as an importable edge.demo.facts.v1 file on stdout",
    usage: `edge facts export --store STORE   (or: edge facts export STORE)`,
    run: lazy(() => import("./facts.ts"), (m) => m.factsExport),
  },
  {
    path: ["learn", "validate"],
    summary: "check a learn sample (edge.demo.learn.sample.v1), optionally against the tools",
    usage: `edge learn validate SAMPLE.json [--tools FILE [--tool NAME]... [--tool-tag TAG]...] [--json]

Prints counts and hashes, never the sample's text; warnings (e.g. tool_schema_export_name_mismatch,
fact_correction_unstable) never refuse. ${JSON_OUT}`,
    run: lazy(() => import("./learn.ts"), (m) => m.validateSample),
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
    run: lazy(() => import("./learn.ts"), (m) => m.run),
  },
  {
    path: ["learn", "sample", "init"],
    summary: "write a valid, commented starting learn sample for your tools",
    usage: `edge learn sample init [--output FILE] [--tools FILE [--tool NAME]... [--tool-tag TAG]...
          | --facts-store STORE | --tools-manifest FILE] [--json]

Writes a sample that validates with no warnings against the given tool surface (or without
tools); each record and correction carries a "note" saying what to put there (notes are kept,
never rendered). Without --output it is printed; an existing --output file is never replaced.`,
    run: lazy(() => import("./learn-sample.ts"), (m) => m.learnSampleInit),
  },
  {
    path: ["learn", "sample", "validate"],
    summary: "the same as edge learn validate",
    usage: `edge learn sample validate SAMPLE.json [--tools FILE] [--json]`,
    run: lazy(() => import("./learn.ts"), (m) => m.validateSample),
  },
  { path: ["workspace", "ls"], summary: "the stored workspace's files, sizes and sha256", usage: `edge workspace ls [--json]`, run: lazy(() => import("./workspace.ts"), (m) => m.workspaceLs) },
  {
    path: ["workspace", "import"],
    summary: "import a .zip (bounded), a folder or a file into the stored workspace",
    usage: `edge workspace import PATH [--into SUBDIR] [--json]

Every name and the workspace limits are checked first; the import is written as one change (a bad
archive or a symbolic link changes nothing). edge chat and edge tools call use the stored workspace
when they get no --workspace DIR: read_local tools see it at /workspace, --builtins work on it. ${JSON_OUT}`,
    run: lazy(() => import("./workspace.ts"), (m) => m.workspaceImport),
  },
  { path: ["workspace", "export"], summary: "write the stored workspace as a zip", usage: `edge workspace export -o FILE.zip [--json]`, run: lazy(() => import("./workspace.ts"), (m) => m.workspaceExport) },
  { path: ["imprints", "list"], summary: "list stored imprints", usage: `edge imprints list [--json]`, run: lazy(() => import("./imprints.ts"), (m) => m.imprintsList) },
  { path: ["imprints", "show"], summary: "show one imprint", usage: `edge imprints show ID [--json]`, run: lazy(() => import("./imprints.ts"), (m) => m.imprintsShow) },
  {
    path: ["imprints", "export"],
    summary: "an imprint as a sealed JSON file (with its saved model state, when it has one)",
    usage: `edge imprints export ID [-o FILE] [--without-state] [--json]    (an existing FILE is never replaced)

A saved model state travels in the same file (base64, checked against the imprint's sha256 on
import); a damaged one is refused: --without-state exports the imprint alone.`,
    run: lazy(() => import("./imprints.ts"), (m) => m.imprintsExport),
  },
  { path: ["imprints", "import"], summary: "import (and verify) an exported imprint", usage: `edge imprints import FILE [--json]`, run: lazy(() => import("./imprints.ts"), (m) => m.imprintsImport) },
  { path: ["imprints", "delete"], summary: "delete an imprint", usage: `edge imprints delete ID [--json]`, run: lazy(() => import("./imprints.ts"), (m) => m.imprintsDelete) },
  {
    path: ["packages", "add"],
    summary: "fetch Python packages of Pyodide's lock (with their dependencies) onto this device, each checked against the lock's sha256",
    usage: `edge packages add NAME... [--package-source DIR|URL] [--json]

NAME: a package of Pyodide's lock (numpy, pandas, beautifulsoup4 …) or an import name (bs4); its
dependencies come too. Each wheel is fetched from --package-source (a folder, file:// or http(s)://
URL; default $EDGE_PACKAGE_SOURCE, else Pyodide's CDN), checked against the lock's sha256 before it is
kept in $EDGE_DATA_DIR/packages, and not fetched again while intact. $EDGE_PACKAGE_LOCK names another
pyodide-lock.json for the same Pyodide. A package from PyPI is declared and locked instead (edge packages lock).
${JSON_OUT}`,
    run: lazy(() => import("./packages.ts"), (m) => m.packagesAdd),
  },
  { path: ["packages", "list"], summary: "the Python packages stored on this device (or, with --available, every package of the lock)", usage: `edge packages list [--available] [--json]`, run: lazy(() => import("./packages.ts"), (m) => m.packagesList) },
  { path: ["packages", "verify"], summary: "hash every stored wheel against Pyodide's lock (exit 1 on a mismatch)", usage: `edge packages verify [--json]`, run: lazy(() => import("./packages.ts"), (m) => m.packagesVerify) },
  { path: ["packages", "remove"], summary: "delete stored packages' wheels (not their dependencies)", usage: `edge packages remove NAME... [--json]`, run: lazy(() => import("./packages.ts"), (m) => m.packagesRemove) },
  {
    path: ["packages", "lock"],
    summary: "resolve a tools file's declared dependencies (PEP 723 or requirements.txt) from PyPI into pylock.toml, and fetch the wheels it pins",
    usage: `edge packages lock TOOLS.PY [--tools-root DIR] [--index-url URL] [--upgrade] [--package-source DIR|URL] [--json]

Resolves the tools file's "# /// script" dependencies and the requirements.txt beside it against the
index (--index-url, $EDGE_PACKAGE_INDEX, else PyPI) into pylock.toml (PEP 751) beside the tools file
— kept while it matches the declarations, unless --upgrade — taking for each package the newest
wheel Pyodide installs (else Pyodide's own build, from --package-source), and fetches every wheel
it pins into $EDGE_DATA_DIR/packages, checked by sha256. Calls are offline from then on (docs/packages.md).
${JSON_OUT}`,
    run: lazy(() => import("./packages-lock.ts"), (m) => m.packagesLock),
  },
  { path: ["receipts", "list"], summary: "list stored receipts", usage: `edge receipts list [--json]`, run: lazy(() => import("./receipts.ts"), (m) => m.receiptsList) },
  { path: ["receipts", "show"], summary: "show one receipt", usage: `edge receipts show ID [--json]`, run: lazy(() => import("./receipts.ts"), (m) => m.receiptsShow) },
  { path: ["receipts", "export"], summary: "all receipts as JSON Lines on stdout, oldest first", usage: `edge receipts export`, run: lazy(() => import("./receipts.ts"), (m) => m.receiptsExport) },
  {
    path: ["receipts", "verify"],
    summary: "check a JSON Lines export's chain",
    usage: `edge receipts verify FILE [--json]    exit 0 if the chain holds, 1 at the first broken link`,
    run: lazy(() => import("./receipts.ts"), (m) => m.receiptsVerify),
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

Each call runs in its own Node process under Node's permission model: no file writes, child
processes, workers or inspector, reads only of Pyodide's files, no environment, no inherited
descriptors. The network (docs/security.md): on Linux each runner gets its own empty network
namespace (\`unshare --user --net\`, where unprivileged user namespaces are allowed), so TCP and UDP
reach nothing. Elsewhere, and where that is refused, Node below 25 does not restrict the network:
only the removal of Node's network modules from the runner (not a boundary) stands between tool
code and TCP/UDP services. Unix sockets that are files are not covered by a network namespace:
below Node 25 only that removal covers them. From Node 25 the permission model itself denies the
network (Node's documentation; not yet tested with Edge).
`;
}

// The command table's first part (commands.ts): the commands that run tools — validate, inspect,
// call and confirm a tools.py's tools, chat with a model that calls them, serve them over MCP.
import { lazy, SELECT, MODEL, SCRIPTED, JSON_OUT, PROJECT, type Command } from "./command-table.ts";

export const TOOLS_COMMANDS: readonly Command[] = [
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
    run: lazy(
      () => import("./tools.ts"),
      (m) => m.toolsValidate,
    ),
  },
  {
    path: ["tools", "inspect"],
    summary: "validate, plus every tool's schema and hash, and the tools project's files and tools_bundle_sha256",
    usage: `edge tools inspect FILE [--tools-root DIR] [--tool NAME]... [--tool-tag TAG]... [--json]
edge tools inspect tools.manifest.json [--json]

${SELECT}
${PROJECT}
${JSON_OUT}`,
    run: lazy(
      () => import("./tools.ts"),
      (m) => m.toolsInspect,
    ),
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
    run: lazy(
      () => import("./tools.ts"),
      (m) => m.toolsCall,
    ),
  },
  {
    path: ["tools", "confirm"],
    summary: "run a commit tool's pending action, once, with its token",
    usage: `edge tools confirm ID|PENDING_FILE --token TOKEN [--timeout-ms N] [--workspace DIR] [--json]

Chat (and edge tools call) print this exact command when a commit tool asks. The action is bound
to the tools file, the active set, the tool's schema and the arguments; any change, a wrong or
expired token, or a second confirmation fails closed. ${JSON_OUT}`,
    run: lazy(
      () => import("./confirm.ts"),
      (m) => m.confirmCommandCli,
    ),
  },
  {
    path: ["tools", "pending", "list"],
    summary: "list pending actions",
    usage: `edge tools pending list [--json]`,
    run: lazy(
      () => import("./confirm.ts"),
      (m) => m.pendingList,
    ),
  },
  {
    path: ["tools", "pending", "show"],
    summary: "show one pending action",
    usage: `edge tools pending show ID [--json]`,
    run: lazy(
      () => import("./confirm.ts"),
      (m) => m.pendingShow,
    ),
  },
  {
    path: ["tools", "pending", "reject"],
    summary: "reject a pending action (it can no longer run)",
    usage: `edge tools pending reject ID [--json]`,
    run: lazy(
      () => import("./confirm.ts"),
      (m) => m.pendingReject,
    ),
  },
  {
    path: ["tools", "pending", "purge"],
    summary: "wipe and delete expired pending actions",
    usage: `edge tools pending purge [--json]`,
    run: lazy(
      () => import("./confirm.ts"),
      (m) => m.pendingPurge,
    ),
  },
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
    run: lazy(
      () => import("./chat.ts"),
      (m) => m.chatCommand,
    ),
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
    run: lazy(
      () => import("./mcp.ts"),
      (m) => m.mcpServe,
    ),
  },
];

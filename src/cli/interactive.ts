// `edge chat --interactive`: one chat session in the terminal. The session keeps the history
// (the model sees earlier turns) and the tools it froze at start; each turn streams its answer,
// writes its receipt as one-shot chat does, and can be stopped with Ctrl-C (a second Ctrl-C
// leaves). A commit tool's pending action is asked y/N inline when stdin is a terminal.
import { toErrorJson } from "../contract/errors.ts";
import { firstChangedFile, freezeProject, manifestOf, readProjectSnapshot } from "../toolset/project.ts";
import type { JsonObject } from "../contract/types.ts";
import type { ChatRun, ChatSession } from "../chat/types.ts";
import { changedEntries, reduce, type TranscriptEntry, type TranscriptEvent } from "../chat/transcript.ts";
import type { NodeEdge } from "../assembly/node.ts";
import { printRunText, printWorkspaceNotes, runJson } from "./chat-print.ts";
import { EXIT_INTERRUPTED, EXIT_OK, type CliIO } from "./io.ts";
import { settleInline } from "./interactive-confirm.ts";
import { openTerminal, type Terminal } from "./terminal.ts";
import type { CliWorkspace } from "./workspace-session.ts";

export interface InteractiveOptions {
  session: ChatSession;
  io: CliIO;
  json: boolean;
  ws: CliWorkspace;
  /** The root the session came from (an inline confirm runs through it). */
  edge: NodeEdge;
  /** The tools file the session froze (watched for changes, to say they are not picked up). */
  toolsFile?: string;
  /** --prompt: the first turn. */
  firstPrompt?: string;
  /** Called before each prompt's turn (the scripted demo starts its script again after the last output). */
  beforeTurn?: () => void;
}

const PROMPT = "you> ";
const HELP = `/help    this list
/reset   forget the conversation (the tools stay frozen)
/exit    leave (also /quit, or Ctrl-D)
Ctrl-C stops the running turn (its receipt records the abort); Ctrl-C again leaves.
`;

export async function interactiveChat(o: InteractiveOptions): Promise<number> {
  const { io } = o;
  const term = openTerminal();
  const toolsChanged = toolsFileWatch(o, io);
  // Set by the first Ctrl-C; a second one before the next prompt line is sent leaves.
  let armed = false;
  let turn: AbortController | undefined;
  let leave = false;
  term.onInterrupt(() => {
    if (!turn) return;
    if (armed) leave = true;
    else io.err("\n^C stopping this turn (Ctrl-C again to leave)\n");
    armed = true;
    turn.abort();
  });
  printBanner(o);
  let first = o.firstPrompt;
  try {
    for (;;) {
      const input = first !== undefined ? ({ kind: "line", text: first } as const) : await term.read(PROMPT);
      first = undefined;
      if (input.kind === "eof") return EXIT_OK;
      if (input.kind === "interrupt") {
        if (input.cleared) continue;
        if (armed) return EXIT_INTERRUPTED;
        armed = true;
        io.err("(Ctrl-C again, /exit or Ctrl-D to leave)\n");
        continue;
      }
      const text = input.text.trim();
      if (!text) continue;
      armed = false;
      if (text.startsWith("/")) {
        if (slashCommand(text, o)) return EXIT_OK;
        continue;
      }
      await toolsChanged();
      turn = new AbortController();
      try {
        await oneTurn(o, term, text, turn.signal);
      } finally {
        turn = undefined;
      }
      if (leave) return EXIT_INTERRUPTED;
    }
  } finally {
    term.close();
  }
}

/** Runs a slash command; true when the session should end. */
function slashCommand(text: string, o: InteractiveOptions): boolean {
  const word = text.split(/\s+/)[0];
  if (word === "/exit" || word === "/quit") return true;
  if (word === "/reset") {
    o.session.reset();
    o.io.err(
      `history cleared: the next prompt starts a new conversation${o.session.runtime.schemas().length ? " (the tools stay frozen)" : ""}.\n`,
    );
  } else if (word === "/help") o.io.err(HELP);
  else o.io.err(`unknown command ${word ?? ""}; the commands are:\n${HELP}`);
  return false;
}

async function oneTurn(o: InteractiveOptions, term: Terminal, prompt: string, signal: AbortSignal): Promise<void> {
  const { io } = o;
  const view = transcriptPrinter(io, o.json);
  let run: ChatRun;
  try {
    o.beforeTurn?.();
    run = await o.session.chat(prompt, {
      signal,
      onToken: (delta) => view.apply({ type: "token", delta }),
      onEvent: view.apply,
    });
  } catch (err) {
    // The session could not even run (e.g. the receipt could not be stored): say so, keep going.
    const e = toErrorJson(err);
    io.err(`edge: ${e.code}: ${e.message}\n`);
    return;
  }
  view.apply({ type: "run", run });
  if (o.json) return io.out(`${JSON.stringify(runJson(run, o.ws))}\n`);
  const lastCall = view.lastCall();
  const inline = run.pending_action !== undefined && term.tty && lastCall !== undefined;
  printRunText(io, run, { answerShown: view.answerShown(), pending: !inline });
  if (inline)
    await settleInline({ io, term, edge: o.edge, ws: o.ws, ticket: run.pending_action!, call: lastCall!, signal });
}

/**
 * Prints one turn's transcript as it grows: the model's prose as it streams (on stdout), never a
 * generation that starts like a tool call (the transcript's call-start rule), and the tool
 * activity instead (on stderr). Quiet (--json): nothing.
 */
function transcriptPrinter(io: CliIO, quiet: boolean) {
  let entries: TranscriptEntry[] = [];
  /** How much of each prose generation (by entry) is on stdout. */
  const printed = new Map<number, number>();
  const show = (was: TranscriptEntry | undefined, e: TranscriptEntry, i: number): void => {
    if (e.kind === "model") {
      const text = e.text.trimStart();
      const done = printed.get(i) ?? 0;
      if (e.start === "prose" && text.length > done) {
        io.out(text.slice(done));
        printed.set(i, text.length);
      }
      // The generation ended (or was stopped): finish its line.
      if (e.start === "prose" && e.state !== "streaming" && was?.kind === "model" && was.state === "streaming")
        io.out("\n");
    } else if (e.kind === "tool") {
      if (was?.kind !== "tool") io.err(`→ ${e.tool_name} ${JSON.stringify(e.arguments)}\n`);
      const c = e.receipt;
      if (c && !(was?.kind === "tool" && was.receipt))
        io.err(`← ${c.tool_name}: ${c.status}${c.code ? ` (${c.code})` : ""}, ${c.duration_ms} ms\n`);
    } else if (e.kind === "repair" && was === undefined)
      io.err(`(the model's tool call was refused: ${e.code}; it gets one chance to repair it)\n`);
  };
  return {
    apply(event: TranscriptEvent): void {
      const before = entries;
      entries = reduce(entries, event);
      if (!quiet) for (const i of changedEntries(before, entries)) show(before[i], entries[i]!, i);
    },
    /** The answer streamed as prose (so it is not printed again). */
    answerShown: (): boolean => entries.some((e) => e.kind === "answer" && e.stream === "prose"),
    lastCall: (): { tool_name: string; arguments: JsonObject } | undefined =>
      entries.findLast((e) => e.kind === "tool"),
  };
}

function printBanner(o: InteractiveOptions): void {
  const { io, session } = o;
  printWorkspaceNotes(io, o.ws);
  const names = session.runtime.schemas().map((s) => s.name);
  const frozen = session.toolset
    ? `tools frozen for this session: ${names.join(", ") || "none"} (${o.toolsFile}, tools_file_sha256 ${session.toolset.tools_file_sha256.slice(7, 19)}…; edits to the file are not picked up until you start a new session)`
    : names.length
      ? `tools for this session: ${names.join(", ")}`
      : "no tools";
  io.err(
    `edge chat — interactive; ${frozen}.\n/help lists the commands; Ctrl-C stops a turn; /exit or Ctrl-D leaves.\n`,
  );
}

/** Before each turn: has the frozen tools file changed on disk? Said once per change. */
function toolsFileWatch(o: InteractiveOptions, io: CliIO): () => Promise<void> {
  const toolset = o.session.toolset;
  const file = o.toolsFile;
  let differs = false;
  return async () => {
    if (!toolset || !file) return;
    // The whole tools project, as the runner will check it (the tools file and the files beside it).
    const now = await readProjectSnapshot(toolset.source).then(freezeProject, () => null);
    const changed =
      now === null
        ? file
        : now.tools_bundle_sha256 !== toolset.tools_bundle_sha256
          ? (firstChangedFile(manifestOf(toolset.project).files, manifestOf(now).files) ?? file)
          : null;
    if (changed && !differs) {
      const what = changed === file || changed === toolset.project.entry ? file : `${changed} (beside ${file})`;
      io.err(
        `note: ${what} changed on disk since this session started. The session keeps the tools it froze at start (the active set does not change); calls to them now fail closed (tools_file_changed). Start a new session to use the new file.\n`,
      );
    } else if (!changed && differs) io.err(`note: ${file} matches the frozen tools again.\n`);
    differs = changed !== null;
  };
}

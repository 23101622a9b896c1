// The terminal side of `edge chat --interactive`: lines from stdin (a TTY gets a prompt and line
// editing; a pipe is read as it comes, lines typed ahead wait their turn), and Ctrl-C as one
// event whether it arrives as a keypress (readline, raw mode) or as SIGINT (a pipe, `kill -INT`).
import { createInterface } from "node:readline/promises";

export type TerminalInput =
  | { kind: "line"; text: string }
  | { kind: "eof" }
  /** Ctrl-C while waiting for a line; `cleared`: it only erased a half-typed line (TTY). */
  | { kind: "interrupt"; cleared: boolean };

export interface Terminal {
  readonly tty: boolean;
  /** The next line; the prompt is shown on a TTY only (a pipe's output stays clean). */
  read(prompt: string): Promise<TerminalInput>;
  /** Ctrl-C while no read() is waiting (a turn is running). */
  onInterrupt(handler: () => void): void;
  close(): void;
}

export function openTerminal(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stdout,
): Terminal {
  const tty = input.isTTY === true;
  const rl = createInterface(tty ? { input, output, terminal: true } : { input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  // A read interrupted by Ctrl-C keeps its pending line for the next read (never lost).
  let nextLine: Promise<IteratorResult<string>> | undefined;
  let wake: ((input: TerminalInput) => void) | undefined;
  let onBusy: () => void = () => {};
  const interrupt = (): void => {
    if (!wake) return onBusy();
    const cleared = tty && rl.line.length > 0;
    if (cleared) {
      // Erase the half-typed line, as a shell does.
      rl.write(null, { ctrl: true, name: "e" });
      rl.write(null, { ctrl: true, name: "u" });
    }
    if (tty) output.write("^C\n");
    wake({ kind: "interrupt", cleared });
  };
  rl.on("SIGINT", interrupt);
  process.on("SIGINT", interrupt);
  return {
    tty,
    async read(prompt) {
      if (tty) {
        rl.setPrompt(prompt);
        rl.prompt();
      }
      nextLine ??= lines.next();
      const woken = new Promise<TerminalInput>((resolve) => (wake = resolve));
      const got = await Promise.race([
        nextLine.then((r): TerminalInput => (r.done ? { kind: "eof" } : { kind: "line", text: r.value })),
        woken,
      ]);
      wake = undefined;
      if (got.kind !== "interrupt") nextLine = undefined;
      return got;
    },
    onInterrupt(handler) {
      onBusy = handler;
    },
    close() {
      process.off("SIGINT", interrupt);
      rl.close();
    },
  };
}

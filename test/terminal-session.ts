// `edge` as a long-running session a person (or a script) talks to: bin/edge.cjs as its own process,
// lines written to its stdin as they are typed, its output watched as it arrives. With `tty` it runs
// on a pseudo-terminal (util-linux `script`), as at a real terminal: stdin is then a TTY, so
// `edge chat --interactive` shows its prompt and asks y/N inline, and stdout and stderr arrive
// together through the terminal. Shared by src/cli/interactive.test.ts and the real-model CLI tests.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { BIN } from "./cli.ts";

export interface EdgeSession {
  child: ChildProcessWithoutNullStreams;
  out(): string;
  err(): string;
  /** Resolves when stdout + stderr together match `re` (checked as output arrives); rejects with
   *  everything printed so far when `waitMs` pass first or edge exits without it. */
  waitFor(re: RegExp): Promise<void>;
  /** The exit code once edge has ended. */
  exit: Promise<number | null>;
  /** Ends a session that is still running (a failed test must not leave a model loaded). */
  close(): Promise<void>;
}

export interface EdgeSessionOptions {
  env: NodeJS.ProcessEnv;
  /** Generous on a loaded machine: a runner boots, a model loads and generates while waiting. */
  waitMs: number;
  /** Run edge on a pseudo-terminal, as a person at a terminal does. */
  tty?: boolean;
}

/** One word of a POSIX shell command line (`script -c` takes the command as one string). */
const shellWord = (arg: string): string => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`);

export function startEdgeSession(argv: string[], { env, waitMs, tty = false }: EdgeSessionOptions): EdgeSession {
  const command = [process.execPath, BIN, ...argv];
  const child = tty
    ? spawn("script", ["-qfec", command.map(shellWord).join(" "), "/dev/null"], { env })
    : spawn(command[0]!, command.slice(1), { env });
  let out = "";
  let err = "";
  const waiters: { re: RegExp; resolve: () => void; reject: (e: Error) => void }[] = [];
  const check = (): void => {
    for (const w of [...waiters]) if (w.re.test(out + err)) waiters.splice(waiters.indexOf(w), 1) && w.resolve();
  };
  child.stdout.on("data", (d: Buffer) => ((out += d), check()));
  child.stderr.on("data", (d: Buffer) => ((err += d), check()));
  const exit = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      check();
      for (const w of waiters.splice(0))
        w.reject(new Error(`edge exited (${code}) before ${w.re}; stdout:\n${out}\nstderr:\n${err}`));
      resolve(code);
    }),
  );
  return {
    child,
    out: () => out,
    err: () => err,
    waitFor: (re) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${re} within ${waitMs} ms; stdout:\n${out}\nstderr:\n${err}`)),
          waitMs,
        );
        waiters.push({
          re,
          resolve: () => (clearTimeout(timer), resolve()),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        check();
      }),
    exit,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // On a terminal, `script` ends and edge gets the terminal's hang-up, as when a window closes.
      child.kill("SIGTERM");
      const hard = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exit;
      clearTimeout(hard);
    },
  };
}

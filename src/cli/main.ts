// `edge` — the Node CLI over the same core the browser uses. Exit codes: 0 ok/valid,
// 1 invalid or failed closed, 2 usage error.
import { closeInheritedDescriptors } from "../runner/descriptors.ts";
import { reopenNamedDescriptors } from "./named-descriptors.ts";
import { runCli } from "./run.ts";

// Nothing the CLI starts gets a descriptor it inherited (`edge … 97<secret 99>>out` from a shell);
// one the command line names as a file (`--script <(…)`) is read through a close-on-exec copy.
const argv = reopenNamedDescriptors(process.argv.slice(2));
closeInheritedDescriptors();

// A reader that stopped reading (`edge … | head -1`) is not an error of the command: end quietly,
// as command-line tools do, instead of a stack trace (its runners end with this process).
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    process.exit(process.exitCode ?? 0);
  });
}

// The runner keeper a one-shot command starts in the background (src/runner/keeper.ts): not a
// command of the table, never typed by a person.
if (process.argv[2] === "__runner-keeper") {
  const { serveRunnerKeeper } = await import("../runner/keeper.ts");
  process.exit(await serveRunnerKeeper(process.argv[3] ?? "", process.env).catch(() => 1));
}

const code = await runCli(argv, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
process.exitCode = code;

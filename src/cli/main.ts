// `edge` — the Node CLI over the same core the browser uses. Exit codes: 0 ok/valid,
// 1 invalid or failed closed, 2 usage error.
import { runCli } from "./run.ts";

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
process.exitCode = code;

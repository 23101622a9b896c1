// `edge` — the Node CLI over the same core the browser uses. Exit codes: 0 ok/valid,
// 1 invalid or failed closed, 2 usage error.
import { closeInheritedDescriptors } from "../runner/descriptors.ts";
import { runCli } from "./run.ts";

// Nothing the CLI starts gets a descriptor it inherited (`edge … 97<secret 99>>out` from a shell).
closeInheritedDescriptors();

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
process.exitCode = code;

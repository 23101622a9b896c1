// The runner host of a one-shot command (edge tools validate|inspect|call|confirm, learn's tools
// surface): its first runner starts booting when the host is created, while the command reads and
// hashes the tools file (docs/cli.md). No spares: nothing runs after the command's own jobs. Its
// job runners come from the runner keeper when one runs (src/runner/keeper-client.ts, docs/cli.md).
//
// Discoveries are kept between commands (src/runner/discovery-cache.ts): `validate` and `inspect`
// always discover (their job is to import the file) and keep what they found; the other commands
// use a kept discovery of the same bytes, so `edge tools call` usually needs one runner, for its
// call. When it must discover, its second runner starts at that moment, while the discovery runs.
//
// ajv sets itself up (≈ 20–30 ms of CPU: it compiles the JSON Schema meta-schema) one turn after
// a discovery was handed to a runner: it then overlaps the discovery instead of delaying it. A
// command that discovers nothing compiles its schemas when it checks them.
import { warmSchemaChecks } from "../contract/ajv.ts";
import { createNodeRunnerHost, launchNotice } from "../runner/node.ts";
import type { PoolRunnerHost } from "../runner/pool.ts";

export interface OneShotPlan {
  /** "refresh" for the commands whose job is to import the file (validate, inspect). */
  discoveries: "use" | "refresh";
  /** A call follows the discovery (tools call, tools confirm): it needs a runner of its own. */
  call: boolean;
}

/** `notice`: where the command tells the person its runners start with a weaker boundary
 *  (launchNotice: no network namespace or parent-death signal on Linux), once. */
export function oneShotRunnerHost(plan: OneShotPlan, notice: (text: string) => void): PoolRunnerHost {
  let told = false;
  const host: PoolRunnerHost = createNodeRunnerHost({
    spares: 0,
    prestart: 1,
    keeper: true,
    onLaunch: (launch) => {
      const line = told ? undefined : launchNotice(launch);
      if (line) notice(line);
      told ||= line !== undefined;
    },
    discoveries: plan.discoveries,
    onDiscover: () => {
      if (plan.call) host.prestart(1);
      setImmediate(warmSchemaChecks);
    },
  });
  return host;
}

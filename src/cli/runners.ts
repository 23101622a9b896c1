// The runner host of a one-shot command (edge tools validate|inspect|call|confirm, learn's tools
// surface): `prestart` runners start booting when it is created, while the command reads and
// hashes the tools file (docs/cli.md), and ajv sets itself up while they boot instead of after
// the discovery. No spares: nothing runs after the command's own jobs.
import { warmSchemaChecks } from "../contract/ajv.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import type { PoolRunnerHost } from "../runner/pool.ts";

export function oneShotRunnerHost(prestart: number): PoolRunnerHost {
  const host = createNodeRunnerHost({ spares: 0, prestart });
  void host.started().then(warmSchemaChecks);
  return host;
}

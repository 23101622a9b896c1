// The runner host of a one-shot command (edge tools validate|inspect|call|confirm, learn's tools
// surface): `prestart` runners start booting when it is created, while the command reads and
// hashes the tools file (docs/cli.md). No spares: nothing runs after the command's own jobs. Its
// job runners come from the runner keeper when one runs (src/runner/keeper-client.ts, docs/cli.md).
// ajv sets itself up (≈ 50 ms of CPU) once the runners are booted, one turn after the first job
// was sent to one: it then overlaps the discovery in the runner instead of delaying the keeper's
// answer, or the discovery's reply, on this thread.
import { warmSchemaChecks } from "../contract/ajv.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import type { PoolRunnerHost } from "../runner/pool.ts";

export function oneShotRunnerHost(prestart: number): PoolRunnerHost {
  const host = createNodeRunnerHost({ spares: 0, prestart, keeper: true });
  void host.warm().then(() => setImmediate(warmSchemaChecks));
  return host;
}

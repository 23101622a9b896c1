// Discoveries kept between one-shot commands (docs/cli.md, "A discovery is kept"). `edge tools call`
// used to run two runners one after the other: one to discover the tools file, one to call the
// tool. A discovery depends only on the bytes a runner is given (the tools file, every file of its
// project, the packages' wheels) and on the runner itself (Pyodide, edge_runner), so one made for the
// same bytes by the same runner is the same discovery: it is kept under a key over all of them,
// and a later command with the same key uses it instead of discovering again.
//
// The call still imports the file in its own fresh runner, and there the runner derives the
// called tool's schema again and refuses to call it when the hash differs from the one frozen
// (CallJob.expectedSchemaSha256, tool_schema_changed): a tools file whose schema depends on the
// time or on randomness is refused, never called with arguments checked against another import's
// schema. Such a refusal also drops every entry this host used or kept, so the next command
// discovers again. What is kept is the runner's reply as the host verified it; a kept one is verified again,
// by the same checks as a runner's reply (verify.ts), whenever it is used.
import { sha256Json } from "../contract/hash.ts";
import type { CallJob, CallOutcome, DiscoverJob, DiscoverOutcome } from "./host.ts";
import type { PoolRunnerHost } from "./pool.ts";
import { verifyDiscoverReply } from "./verify.ts";

/** Bumped when what is kept, or what the key covers, changes meaning. */
const FORMAT = "edge-discovery.v1";

/** Where discoveries are kept: a key → the reply text. Failures are misses, never errors. */
export interface DiscoveryStore {
  get(key: string): Promise<string | undefined>;
  put(key: string, reply: string): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface DiscoveryCacheOptions {
  store: DiscoveryStore;
  /** What the runner is: its Pyodide, Python files and snapshot format (node.ts snapshotKey), and
   *  its JavaScript (the runner script's sha256). */
  runner: () => Promise<string>;
  /** "use": a kept discovery answers; "refresh": every discovery runs (edge tools validate and
   *  inspect, whose job is to import the file) and is kept for the next command. */
  mode: "use" | "refresh";
  /** Called when a discovery runs in a runner (a miss, or refresh), as its job is handed over. */
  onDiscover?: () => void;
}

/** The key of a discovery job: every byte a runner is given, and the runner. */
async function discoveryKey(job: DiscoverJob, runner: string): Promise<string> {
  const packages = (job.packages ?? []).map((p) => [p.name, p.file_name, p.install_dir, p.sha256]);
  const sha = await sha256Json({
    format: FORMAT,
    runner,
    tools_file_sha256: job.expectedSha256,
    filename: job.filename,
    // The manifest names every mounted file with its sha256; a discovery runner checks the files
    // against it before anything is imported.
    tools_bundle_sha256: job.project?.expectedSha256 ?? null,
    packages,
  });
  return sha.slice("sha256:".length);
}

/** The reply a runner would have sent for this outcome (what verifyDiscoverReply reads). */
function replyText(outcome: DiscoverOutcome): string {
  const { ok, tools_file_sha256, schema_generator_version, tools, errors, warnings, stderr } = outcome;
  return JSON.stringify({ ok, tools_file_sha256, schema_generator_version, tools, errors, warnings, stderr });
}

/** `host` with its discoveries kept in `options.store` (see the top of this file). */
export function withDiscoveryCache(host: PoolRunnerHost, options: DiscoveryCacheOptions): PoolRunnerHost {
  /** The entries this host used or kept (with the write still under way, if any). */
  const touched = new Map<string, Promise<unknown>>();
  let runner: Promise<string> | undefined;

  async function discover(job: DiscoverJob, signal?: AbortSignal): Promise<DiscoverOutcome> {
    const started = performance.now();
    const key = await discoveryKey(job, await (runner ??= options.runner()));
    if (options.mode === "use") {
      const kept = await options.store.get(key).catch(() => undefined);
      const verdict =
        kept === undefined
          ? undefined
          : verifyDiscoverReply({ type: "done", jobId: key, reply: kept }, key, job.expectedSha256);
      if (verdict?.ok) {
        touched.set(key, Promise.resolve());
        return { ...verdict, duration_ms: Math.round(performance.now() - started) };
      }
    }
    const running = host.discover(job, signal);
    options.onDiscover?.();
    const outcome = await running;
    // Only a discovery without problems is kept (a failed one is discovered again, so its messages
    // and its stderr are always the runner's own), in the background: the command goes on.
    if (outcome.ok && outcome.errors.length === 0)
      touched.set(
        key,
        options.store.put(key, replyText(outcome)).catch(() => undefined),
      );
    return outcome;
  }

  async function call(job: CallJob, signal?: AbortSignal): Promise<CallOutcome> {
    const outcome = await host.call(job, signal);
    if (outcome.error?.code === "tool_schema_changed" && touched.size) {
      // After its write, if one is under way: a delete before it would leave the entry behind.
      await Promise.all(
        [...touched].map(([key, written]) => written.then(() => options.store.delete(key)).catch(() => undefined)),
      );
      touched.clear();
    }
    return outcome;
  }

  return { ...host, discover, call };
}

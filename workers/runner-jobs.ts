// The one job of a booted runner worker: its packages installed, the tools project and the
// workspace mounted read-only, then edge_runner.discover or edge_runner.call, and the reply posted
// once (with its HMAC for a call that produced a result). The HMAC is computed here, in
// JavaScript (hmac-sha256.ts), never in the Python interpreter that runs tool code: there tool code
// can replace anything (hmac.HMAC, a function's code) and would learn the key. Everything that runs
// after tool code has run uses only references captured before any tool code existed: the
// globals below (when this module is evaluated) and the job context (when the worker started).
import type { BoundedText } from "./bounded-text.ts";
import { hmacSha256Hex } from "./hmac-sha256.ts";
import { MAX_REPLY_CHARS, type CallJobMessage, type DiscoverJobMessage, type WorkerToHost } from "./protocol.ts";
import type { Runtime } from "./runner-boot.ts";
import { mountProject, mountWorkspace, type MemFs } from "./runner-mounts.ts";
import { installPackages } from "./runner-packages.ts";
import {
  describe,
  failedCall,
  failedDiscovery,
  oversizedDiscovery,
  oversizedResult,
  safeParse,
} from "./runner-replies.ts";

const parseJson = JSON.parse;
const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty) as (o: object, key: string) => boolean;

/** What a job needs from its worker (runner-core.ts), captured when the worker started. */
export interface JobContext {
  post(msg: WorkerToHost): void;
  /** Report a fatal error (once) and finish the worker. */
  fatal(message: string): void;
  /** The worker has nothing more to do. */
  finish(): void;
  /** The job's captured output. */
  sink: BoundedText;
}

/** Run the job and post its one reply (or a fatal error). */
export async function runJob(
  rt: Runtime,
  fs: MemFs | undefined,
  job: DiscoverJobMessage | CallJobMessage,
  ctx: JobContext,
): Promise<void> {
  const { post, fatal, finish, sink } = ctx;
  const jobId = String(job.jobId);
  let source: unknown;
  try {
    // Python packages first (no tool code exists yet): checked against the lock's hash, then
    // installed by Pyodide's own installer into site-packages. A refusal is the job's reply.
    const refused = job.packages?.length ? await installPackages(rt.installer, job.packages) : undefined;
    if (refused) {
      post({
        type: "done",
        jobId,
        reply: job.type === "discover" ? failedDiscovery(refused) : failedCall(refused),
        stderr: sink.text,
      });
      return finish();
    }
    source = rt.toBytes(job.source);
    let reply: unknown;
    let hmac: string | undefined;
    // The tools project, read-only, before anything is imported; edge_runner checks it first.
    // (undefined, not null: Pyodide passes JS null to Python as jsnull, undefined as None.)
    const project = job.project ? mountProject(fs!, job.project) : undefined;
    if (job.type === "discover") {
      reply = rt.discover(source, String(job.expectedSha256), String(job.filename), project);
      if (typeof reply === "string" && reply.length > MAX_REPLY_CHARS) reply = oversizedDiscovery(reply.length);
    } else {
      // The secret lives only in this function: Python never sees it.
      const secret = String(job.secret);
      const callId = String(job.callId);
      // The person's files, read-only, before the tools file (and its top-level code) loads.
      if (job.workspace) mountWorkspace(fs!, job.workspace);
      const schemaSha = job.expectedSchemaSha256 === undefined ? undefined : String(job.expectedSchemaSha256);
      reply = rt.call(
        source,
        String(job.expectedSha256),
        String(job.filename),
        String(job.toolName),
        String(job.argsJson),
        callId,
        project,
        schemaSha,
      );
      if (typeof reply === "string" && reply.length > MAX_REPLY_CHARS) reply = oversizedResult(reply.length);
      else if (typeof reply === "string") {
        const parsed = safeParse(parseJson, reply);
        if (
          parsed &&
          hasOwn(parsed, "ok") &&
          parsed.ok === true &&
          hasOwn(parsed, "result_sha256") &&
          typeof parsed.result_sha256 === "string"
        ) {
          hmac = hmacSha256Hex(secret, callId + parsed.result_sha256);
        }
      }
    }
    if (typeof reply !== "string") return fatal("edge_runner returned a non-string reply");
    // One literal, no assignment after: a setter tool code put on Object.prototype never runs.
    const out: WorkerToHost =
      hmac === undefined
        ? { type: "done", jobId, reply, stderr: sink.text }
        : { type: "done", jobId, reply, hmac, stderr: sink.text };
    post(out);
    finish();
  } catch (err) {
    fatal(`job failed: ${describe(err)}`);
  } finally {
    (source as { destroy?: () => void } | undefined)?.destroy?.();
  }
}

// A job's message to its runner and what its end means: the outcome of a discovery, the verdict of
// a call (the reply checks are verify.ts'), or the failure of a job that sent no reply.
import { errorJson, type ErrorCode } from "../contract/errors.ts";
import { randomHex } from "../contract/hash.ts";
import {
  parseWorkerToHost,
  type CallJobMessage,
  type DiscoverJobMessage,
  type WorkerToHost,
} from "../../workers/protocol.ts";
import type { CallJob, DiscoverJob, DiscoverOutcome } from "./host.ts";
import type { JobEnd } from "./pool-runner.ts";
import { failedDiscovery, unverifiedCall, verifyCallReply, verifyDiscoverReply, type CallVerdict } from "./verify.ts";

export function discoverMessage(job: DiscoverJob): DiscoverJobMessage {
  return {
    type: "discover",
    jobId: randomHex(16),
    source: job.bytes,
    expectedSha256: job.expectedSha256,
    filename: job.filename,
    ...(job.project ? { project: job.project } : {}),
    ...(job.packages?.length ? { packages: job.packages } : {}),
  };
}

/** A discovery's outcome, without its duration. */
export function discoverOutcome(
  end: JobEnd,
  msg: DiscoverJobMessage,
  timeoutMs: number,
  stderrLimit: number,
  bootFix?: string,
): Omit<DiscoverOutcome, "duration_ms"> {
  if (end.kind === "message") {
    const parsed = parseWorkerToHost(end.msg);
    if (parsed.ok && parsed.message.type === "fatal") {
      return {
        ...failedDiscovery("runner_crashed", msg.expectedSha256),
        diagnostics: { reason: fatalReason(parsed.message) },
      };
    }
    // A malformed message is refused by the verifier as not a reply to this job, like any non-`done`.
    return verifyDiscoverReply(parsed.ok ? parsed.message : undefined, msg.jobId, msg.expectedSha256, stderrLimit);
  }
  const { code, diagnostics, message } = failure(end, timeoutMs, "Discovering the tools file", bootFix);
  return { ...failedDiscovery(code, msg.expectedSha256, "", message ? { message } : {}), diagnostics };
}

export function callMessage(job: CallJob): CallJobMessage {
  return {
    type: "call",
    jobId: randomHex(16),
    source: job.bytes,
    expectedSha256: job.expectedSha256,
    filename: job.filename,
    toolName: job.toolName,
    argsJson: JSON.stringify(job.args),
    ...(job.expectedSchemaSha256 ? { expectedSchemaSha256: job.expectedSchemaSha256 } : {}),
    callId: job.callId ?? `call_${randomHex(12)}`,
    secret: randomHex(32),
    ...(job.workspace ? { workspace: job.workspace } : {}),
    ...(job.project ? { project: job.project } : {}),
    ...(job.packages?.length ? { packages: job.packages } : {}),
  };
}

export interface CallChecks {
  outputSchema: CallJob["outputSchema"];
  maxResultBytes: number;
  stderrLimit: number;
  timeoutMs: number;
  /** RunnerWorkerFactory.bootFailureFix: what a person does when the runner cannot start here. */
  bootFix?: string;
}

/** A call's verdict: its reply checked, or how it ended without one. */
export async function callVerdict(end: JobEnd, msg: CallJobMessage, checks: CallChecks): Promise<CallVerdict> {
  if (end.kind !== "message") {
    const { code, diagnostics, message } = failure(end, checks.timeoutMs, `Tool ${msg.toolName}`, checks.bootFix);
    return {
      ok: false,
      tools_file_sha256_verified: false,
      runner_secret_verified: false,
      stderr: "",
      error: errorJson(code, message ? { message } : {}),
      diagnostics,
    };
  }
  const parsed = parseWorkerToHost(end.msg);
  if (!parsed.ok) return unverifiedCall(`the runner's message is not a reply to this job (${parsed.reason})`);
  // The worker's own error path (the interpreter died under it); fail closed as a crash.
  if (parsed.message.type === "fatal") return crashed(fatalReason(parsed.message));
  const { jobId, callId, secret } = msg;
  return verifyCallReply(parsed.message, {
    jobId,
    callId,
    secret,
    outputSchema: checks.outputSchema,
    maxResultBytes: checks.maxResultBytes,
    stderrLimit: checks.stderrLimit,
  });
}

function crashed(reason: string): CallVerdict {
  return {
    ok: false,
    tools_file_sha256_verified: false,
    runner_secret_verified: false,
    stderr: "",
    error: errorJson("runner_crashed"),
    diagnostics: { reason },
  };
}

/** The reason of a worker's `fatal` message (untrusted text, for people). */
function fatalReason(msg: Extract<WorkerToHost, { type: "fatal" }>): string {
  return `runner reported: ${msg.message.slice(0, 4000)}`;
}

/** How a job that sent no reply ended. A timeout states the limit that stopped it (`what` ran); a
 *  runner that could not start says why, and what to do where it runs when its factory says so. */
function failure(
  end: Exclude<JobEnd, { kind: "message" }>,
  timeoutMs: number,
  what: string,
  bootFix?: string,
): { code: ErrorCode; diagnostics: Record<string, unknown>; message?: string } {
  switch (end.kind) {
    case "timeout":
      return {
        code: "runner_timeout",
        diagnostics: { timeout_ms: timeoutMs },
        message: `${what} ran longer than its ${timeoutMs.toLocaleString("en-US")} ms time limit and was stopped; make it faster, or raise the limit (--timeout-ms N in the CLI).`,
      };
    case "aborted":
      return { code: "aborted", diagnostics: {} };
    case "crashed":
      return { code: "runner_crashed", diagnostics: { reason: end.reason } };
    case "boot_failed":
      return {
        code: "runner_boot_failed",
        diagnostics: { reason: end.reason },
        ...(bootFix
          ? { message: `The Python runner could not start: ${end.reason.replace(/[.\s]+$/, "")}. ${bootFix}` }
          : {}),
      };
  }
}

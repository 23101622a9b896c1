// bash: just-bash (a shell written in TypeScript) on the workspace VFS, replacing a host shell.
// It sees only the VFS (there is nothing outside it to read), has no network (curl is absent),
// no Python/JavaScript runtimes, and runs under execution limits (time, loop iterations,
// command count, recursion, output and string sizes). Hitting a limit fails the call closed
// (bash_limit_exceeded); so does filling the workspace (vfs_quota_exceeded).
import { Bash, type BashOptions, type IFileSystem } from "just-bash";

export type ExecutionLimits = NonNullable<BashOptions["executionLimits"]>;
import { EdgeError } from "../contract/errors.ts";
import { defineTool, type AnyToolDefinition } from "../runtime/index.ts";
import { BUILTIN_KIND, closedOutputSchema, type BuiltinMeta } from "./shared.ts";
import { WORKSPACE_DIR, type EdgeVfs } from "./vfs/core.ts";

const DEFAULT_BASH_LIMITS: ExecutionLimits = {
  maxExecutionTimeMs: 10_000,
  maxLoopIterations: 10_000,
  maxCommandCount: 10_000,
  maxCallDepth: 64,
  maxSubstitutionDepth: 20,
  maxAwkIterations: 100_000,
  maxSedIterations: 100_000,
  maxJqIterations: 100_000,
  maxOutputSize: 1024 * 1024,
  maxStringLength: 4 * 1024 * 1024,
  maxHeredocSize: 1024 * 1024,
  maxArrayElements: 100_000,
  maxBraceExpansionResults: 10_000,
  maxGlobOperations: 100_000,
  maxSourceBytes: 64 * 1024,
  maxLiveBytes: 64 * 1024 * 1024,
  maxInputBytes: 64 * 1024 * 1024,
};

export interface BashToolOptions {
  limits?: ExecutionLimits;
  /** Tool-level timeout for the runtime's timeoutPolicy (ms). Default: the time limit + 2 s. */
  timeoutMs?: number;
}

// How just-bash words its limit errors
// (exit code 126), and its wall-time deadline (exit code 124, like timeout(1)).
const LIMIT_RE =
  /executionLimits|too many|maximum|limit exceeded|exceeded maximum|size exceeded|iteration limit|execution deadline/i;

export function bashTool(vfs: EdgeVfs, options: BashToolOptions = {}): AnyToolDefinition {
  const limits = { ...DEFAULT_BASH_LIMITS, ...options.limits };
  const meta: BuiltinMeta = { kind: BUILTIN_KIND, writes: true };
  return defineTool<{ command: string }>({
    name: "bash",
    description:
      "Run a bash script in the workspace (cwd /workspace) with common Unix tools (ls, cat, grep, sed, awk, sort, uniq, wc, head, tail, jq, find, …). No network, no host access; loops and output are limited.",
    parameters: {
      type: "object",
      properties: { command: { type: "string", minLength: 1, maxLength: 16_384 } },
      required: ["command"],
      additionalProperties: false,
    },
    executionLevel: "commit",
    outputSchema: closedOutputSchema(
      { exit_code: { type: "integer" }, stdout: { type: "string" }, stderr: { type: "string" } },
      { spill: true },
    ),
    timeoutMs: options.timeoutMs ?? (limits.maxExecutionTimeMs ?? 10_000) + 2_000,
    meta,
    async execute({ command }, ctx) {
      const quota: EdgeError[] = [];
      if (!(await vfs.exists(WORKSPACE_DIR))) await vfs.mkdir(WORKSPACE_DIR, { recursive: true });
      const shell = new Bash({
        fs: watchQuota(vfs, quota),
        cwd: WORKSPACE_DIR,
        env: { HOME: WORKSPACE_DIR, USER: "edge" },
        executionLimits: limits,
        python: false,
        javascript: false,
      });
      const r = await shell.exec(command, { signal: ctx.signal });
      if (ctx.signal.aborted) throw ctx.signal.reason ?? new EdgeError("aborted");
      if (quota.length) {
        const q = quota[0]!;
        throw EdgeError.withTableFix(
          "vfs_quota_exceeded",
          { ...q.details, stderr: tail(r.stderr) },
          `bash: ${q.message}. The workspace is full; nothing more was written.`,
        );
      }
      if ((r.exitCode === 126 || r.exitCode === 124) && LIMIT_RE.test(r.stderr)) {
        throw EdgeError.withTableFix(
          "bash_limit_exceeded",
          { stderr: tail(r.stderr), exit_code: r.exitCode },
          `bash stopped at an execution limit: ${lastLine(r.stderr)}.`,
        );
      }
      return { exit_code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
    },
  });
}

/** The VFS as just-bash sees it, noting every quota refusal (a shell would only print it). */
function watchQuota(vfs: EdgeVfs, seen: EdgeError[]): IFileSystem {
  return new Proxy(vfs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const note = (err: unknown) => {
          if (err instanceof EdgeError && err.code === "vfs_quota_exceeded") seen.push(err);
          throw err;
        };
        try {
          const out = (value as (...a: unknown[]) => unknown).apply(target, args);
          return out instanceof Promise ? out.catch(note) : out;
        } catch (err) {
          return note(err);
        }
      };
    },
  });
}

function tail(text: string, n = 2000): string {
  return text.length > n ? text.slice(-n) : text;
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return lines[lines.length - 1] ?? "";
}

// The ToolRuntime's public types: what a tool is, what a call is, what a stage may decide and
// what one execution reports. Every hook receives read-only views; the only way to influence a
// call is the decision a hook returns, so what a stage may change is fixed by these shapes.
import type { ErrorCode, ErrorJson } from "../contract/errors.ts";
import type { ExecutionLevel, JsonObject } from "../contract/types.ts";

/** Deeply read-only view of a value; hooks and observers get frozen snapshots typed this way. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer U)[]
    ? readonly DeepReadonly<U>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** What the tool body (and finalizeContent) receives besides its arguments. */
export interface ToolContext {
  /** Aborts when the caller cancels or an around-dispatch policy (e.g. timeout) fires. */
  readonly signal: AbortSignal;
  readonly callId: string;
  readonly toolName: string;
  readonly sessionId?: string;
  /** Caller-supplied data passed through untouched (e.g. a VFS handle, a run id). */
  readonly meta: Readonly<Record<string, unknown>>;
}

/** The argument of `defineTool`. `A` is the validated argument object, `R` the result. */
export interface ToolSpec<A extends object = JsonObject, R = unknown> {
  name: string;
  description: string;
  /** JSON Schema of the arguments (`{"type":"object",...}`); compiled in ajv strict mode. */
  parameters: JsonObject;
  execute(args: A, ctx: ToolContext): Promise<R> | R;
  /** Safe to run in parallel with other safe calls (no shared mutable state). Default false. */
  isConcurrencySafe?: boolean;
  /** Per-tool limit used by `timeoutPolicy()`; milliseconds, > 0. */
  timeoutMs?: number;
  /** Turns the (post-execute) result into the content the model sees. */
  finalizeContent?(result: R, ctx: ToolContext): R | Promise<R>;
  executionLevel?: ExecutionLevel;
  returnDirect?: boolean;
  outputSchema?: JsonObject | null;
  /** Not model-visible. `kind: "python"` marks Python tools (see spillPolicy). */
  meta?: Record<string, unknown>;
}

/** A validated, frozen tool definition; only `defineTool` makes these. */
export interface ToolDefinition<A extends object = JsonObject, R = unknown> {
  readonly name: string;
  readonly description: string;
  readonly parameters: DeepReadonly<JsonObject>;
  // Declared as methods (not function properties) on purpose: method parameters are bivariant,
  // which lets a registry hold definitions with different argument types as AnyToolDefinition.
  execute(args: A, ctx: ToolContext): Promise<R> | R;
  finalizeContent?(result: R, ctx: ToolContext): R | Promise<R>;
  readonly isConcurrencySafe: boolean;
  readonly timeoutMs?: number;
  readonly executionLevel: ExecutionLevel;
  readonly returnDirect: boolean;
  readonly outputSchema: DeepReadonly<JsonObject> | null;
  readonly meta: Readonly<Record<string, unknown>>;
}

/** Any registered tool, whatever its argument and result types. */
export type AnyToolDefinition = ToolDefinition<never, unknown>;

export interface ToolCall {
  id: string;
  name: string;
  args: JsonObject;
}

/** What the caller of `execute` passes. */
export interface ExecuteContext {
  signal?: AbortSignal;
  sessionId?: string;
  meta?: Readonly<Record<string, unknown>>;
}

export type ExecutionStatus = "ok" | "denied" | "blocked" | "failed" | "aborted" | "timeout";

export type StageName =
  | "pre-execute"
  | "approval"
  | "guard"
  | "around-dispatch"
  | "body"
  | "post-execute"
  | "finalize"
  | "emit";

/** One line of the per-call trace: which stage ran, what it decided. */
export interface StageRecord {
  stage: StageName;
  /** e.g. "allow", "deny", "ask", "accept", "replace", "block", "ok", "raised", "replaced-signal". */
  outcome: string;
  /** Index of the hook within its stage (registration order), when the record is per hook. */
  hook?: number;
  reason?: string;
}

export interface ToolExecution {
  id: string;
  name: string;
  status: ExecutionStatus;
  /** The result after post-execute (absent unless status is "ok"). */
  result?: unknown;
  /** What the model sees: finalizeContent(result), or the result itself. */
  content?: unknown;
  error?: ErrorJson;
  duration_ms: number;
  stages?: StageRecord[];
}

// ── stage decisions ──────────────────────────────────────────────────────────────────────────

export type PreDecision =
  | { decision: "allow" }
  | { decision: "deny"; reason: string; code?: ErrorCode }
  | { decision: "ask"; reason: string };

export type ApprovalDecision = { decision: "allow" } | { decision: "deny"; reason: string; code?: ErrorCode };

export type PostDecision =
  | { action: "accept" }
  | { action: "replace"; result: unknown }
  | { action: "block"; reason: string; code?: ErrorCode };

/** What an around-dispatch hook may hand back: a signal, plus a cleanup run after the body. */
export interface DispatchReplacement {
  signal: AbortSignal;
  /** Called once the body settled or was abandoned (e.g. to clear a timer). */
  release?: () => void;
}

/** The read-only view every hook gets about the call. */
export interface HookView {
  readonly call: DeepReadonly<ToolCall>;
  readonly tool: AnyToolDefinition;
  readonly sessionId?: string;
  readonly meta: Readonly<Record<string, unknown>>;
}

export interface PreExecuteView extends HookView {
  /** The verdict so far; a hook can see a deny but cannot undo it. */
  readonly verdict: "allow" | "ask" | "deny";
  readonly signal: AbortSignal;
}

export interface ApprovalRequest extends HookView {
  /** The reasons of every "ask", in hook order. */
  readonly reasons: readonly string[];
  readonly signal: AbortSignal;
}

export interface DispatchView extends HookView {
  /** The signal the body would get if this hook changes nothing. */
  readonly signal: AbortSignal;
}

export interface PostExecuteView extends HookView {
  /** The current result (the body's, or the last replacement), as a frozen snapshot. */
  readonly result: DeepReadonly<unknown>;
  readonly signal: AbortSignal;
}

export type PreExecuteHook = (view: PreExecuteView) => PreDecision | Promise<PreDecision>;
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;
export type AroundDispatchHook = (
  view: DispatchView,
) => DispatchReplacement | void | Promise<DispatchReplacement | void>;
export type PostExecuteHook = (view: PostExecuteView) => PostDecision | Promise<PostDecision>;
export type ResultObserver = (execution: DeepReadonly<ToolExecution>) => void;

export type Disposer = () => void;

export interface SchemaQuery {
  /** Only these names (unknown names are ignored: the registry may not hold them yet). */
  allow?: readonly string[];
  /** At most this many, after filtering, in registration order. */
  limit?: number;
}

export interface ToolRuntimeOptions {
  /** Parallel cap for consecutive concurrency-safe calls in executeBatch. Default 10. */
  maxConcurrency?: number;
  /** Where errors of result observers go (they never change an outcome). Default: dropped. */
  reportError?: (error: unknown, where: "observer") => void;
}

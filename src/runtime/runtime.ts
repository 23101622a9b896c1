// createToolRuntime: the registry plus the hook lists, wired to the pipeline and the scheduler.
// The runtime knows no tools and no policies; both plug in through register() and the hooks.
import { EdgeError } from "../contract/errors.ts";
import type { ToolSchema } from "../contract/types.ts";
import { HookList } from "./hooks.ts";
import { runPipeline, type PipelineHooks } from "./pipeline.ts";
import { ToolRegistry } from "./registry.ts";
import { runScheduled } from "./schedule.ts";
import type {
  AnyToolDefinition,
  ApprovalHandler,
  AroundDispatchHook,
  Disposer,
  ExecuteContext,
  PostExecuteHook,
  PreExecuteHook,
  ResultObserver,
  SchemaQuery,
  ToolCall,
  ToolExecution,
  ToolRuntimeOptions,
} from "./types.ts";

export const DEFAULT_MAX_CONCURRENCY = 10;

export interface ToolRuntime {
  register(def: AnyToolDefinition): Disposer;
  get(name: string): AnyToolDefinition | undefined;
  list(): AnyToolDefinition[];
  schemas(query?: SchemaQuery): ToolSchema[];
  onPreExecute(hook: PreExecuteHook): Disposer;
  onAroundDispatch(hook: AroundDispatchHook): Disposer;
  onPostExecute(hook: PostExecuteHook): Disposer;
  onResult(observer: ResultObserver): Disposer;
  /** One handler at a time; setting a new one replaces the old. */
  setApprovalHandler(handler: ApprovalHandler): Disposer;
  execute(call: ToolCall, ctx?: ExecuteContext): Promise<ToolExecution>;
  executeBatch(calls: readonly ToolCall[], ctx?: ExecuteContext): Promise<ToolExecution[]>;
}

export function createToolRuntime(options: ToolRuntimeOptions = {}): ToolRuntime {
  const cap = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  if (!(Number.isInteger(cap) && cap >= 1)) {
    throw new EdgeError(
      "invalid_option",
      { maxConcurrency: cap },
      "maxConcurrency must be an integer ≥ 1. Pass 1 or more.",
    );
  }
  const reportError = options.reportError ?? (() => undefined);
  const registry = new ToolRegistry();
  const pre = new HookList<PreExecuteHook>();
  const around = new HookList<AroundDispatchHook>();
  const post = new HookList<PostExecuteHook>();
  const observers = new HookList<ResultObserver>();
  let approval: { handler: ApprovalHandler } | null = null;

  // Hooks are captured when a call starts, so (un)registering mid-call affects the next call.
  const hooksNow = (): PipelineHooks => ({
    pre: pre.current(),
    approval: approval?.handler ?? null,
    around: around.current(),
    post: post.current(),
    observers: observers.current(),
    reportError,
  });

  const execute = (call: ToolCall, ctx: ExecuteContext = {}): Promise<ToolExecution> =>
    runPipeline(registry.get(call.name), call, ctx, hooksNow());

  return {
    register: (def) => registry.register(def),
    get: (name) => registry.get(name),
    list: () => registry.list(),
    schemas: (query) => registry.schemas(query),
    onPreExecute: (hook) => pre.add(hook),
    onAroundDispatch: (hook) => around.add(hook),
    onPostExecute: (hook) => post.add(hook),
    onResult: (observer) => observers.add(observer),
    setApprovalHandler(handler) {
      const entry = { handler };
      approval = entry;
      return () => {
        if (approval === entry) approval = null;
      };
    },
    execute,
    executeBatch(calls, ctx = {}) {
      // An unknown tool is scheduled as a barrier: it settles at once, and treating the
      // unknown as unsafe is the conservative choice.
      const jobs = calls.map((call) => ({
        safe: registry.get(call.name)?.isConcurrencySafe === true,
        run: () => execute(call, ctx),
      }));
      return runScheduled(jobs, cap);
    },
  };
}

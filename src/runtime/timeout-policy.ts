// TimeoutPolicy as an ordinary around-dispatch hook: it hands the body a signal that also fires
// after the tool's timeoutMs (or the default). The pipeline races the body against that signal,
// so the call settles as "timeout" on time even if the body never looks at it.
import { EdgeError } from "../contract/errors.ts";
import type { AroundDispatchHook } from "./types.ts";

export interface TimeoutPolicyOptions {
  /** Used for tools without their own timeoutMs; omit to leave those unlimited. */
  defaultMs?: number;
}

export function timeoutPolicy(options: TimeoutPolicyOptions = {}): AroundDispatchHook {
  const { defaultMs } = options;
  if (defaultMs !== undefined && !(Number.isFinite(defaultMs) && defaultMs > 0)) {
    throw new EdgeError(
      "invalid_option",
      { defaultMs },
      "timeoutPolicy: defaultMs must be a positive number. Pass a number above 0.",
    );
  }
  return ({ tool }) => {
    const ms = tool.timeoutMs ?? defaultMs;
    if (ms === undefined) return undefined;
    const controller = new AbortController();
    // setTimeout rather than AbortSignal.timeout(): the reason carries our code and the
    // limit, and release() can clear the timer as soon as the body settles.
    const timer = setTimeout(() => {
      controller.abort(
        EdgeError.withTableFix(
          "tool_timeout",
          { tool: tool.name, timeoutMs: ms },
          `Tool ${tool.name} did not finish within ${ms} ms.`,
        ),
      );
    }, ms);
    return { signal: controller.signal, release: () => clearTimeout(timer) };
  };
}

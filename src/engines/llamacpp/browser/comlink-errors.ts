// comlink turns an Error thrown across a worker boundary into a plain Error (message, name, stack),
// which would lose an EdgeError's code and details. Both sides install this once: the "throw"
// handler then carries an EdgeError whole (its details are plain data) and leaves every other
// thrown value to comlink's own handler.
import { transferHandlers, type TransferHandler } from "comlink";
import { EdgeError, isErrorCode } from "../../../contract/errors.ts";

interface EdgeThrown {
  edge: true;
  code: string;
  message: string;
  details: Record<string, unknown>;
}

let installed = false;

export function installEdgeErrorTransfer(): void {
  if (installed) return;
  installed = true;
  const original = transferHandlers.get("throw") as TransferHandler<{ value: unknown }, unknown>;
  transferHandlers.set("throw", {
    canHandle: original.canHandle,
    serialize(thrown: { value: unknown }) {
      const e = thrown.value;
      if (e instanceof EdgeError)
        return [{ edge: true, code: e.code, message: e.message, details: e.details } satisfies EdgeThrown, []];
      return original.serialize(thrown);
    },
    deserialize(serialized: unknown) {
      const s = serialized as Partial<EdgeThrown>;
      if (s.edge === true && isErrorCode(s.code)) throw new EdgeError(s.code, s.details ?? {}, s.message);
      return original.deserialize(serialized);
    },
  } as TransferHandler<unknown, unknown>);
}

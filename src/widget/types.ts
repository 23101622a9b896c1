// The widget's public shapes: event details, the run ask() resolves with, its configuration.
// Type-only imports: nothing here costs bytes in the initial bundle.
import type { EngineKind } from "../engines/engine.ts";
import type { ToolChoice } from "../engines/tool-turn.ts";
import type { ChatRun } from "../chat/types.ts";
import type { Receipt, ReceiptBody } from "../receipts/types.ts";
import type { ErrorCode } from "../contract/errors.ts";
import type { JsonObject } from "../contract/types.ts";
import type { ConfirmOutcome } from "../confirm/types.ts";

/** `edge-pending-action` detail. The confirmation token is NOT here: it stays in the widget
 *  (confirm(id) uses it); a host that needs it asks with `confirmationToken(id)`. */
export interface PendingActionDetail {
  id: string;
  tool: string;
  arguments: JsonObject;
  expires_at: string;
}

/** `edge-error` detail: a code from Edge's error table and the sentence for people. */
export interface EdgeErrorDetail {
  code: ErrorCode;
  message: string;
  tool?: string;
}

/** `edge-receipt` detail: the chained receipt as stored (chat or confirm). */
export type EdgeReceiptDetail = Receipt | ReceiptBody;

/** What ask() resolves with: the session's ChatRun, with the pending action's token removed. */
export type WidgetRun = Omit<ChatRun, "pending_action"> & { pending_action?: PendingActionDetail };

/** What confirm(id) / reject(id) resolve with. */
export type WidgetConfirmOutcome = ConfirmOutcome;

/** The element's attributes, resolved (URLs absolute against the host page). */
export interface WidgetConfig {
  toolsUrl: string | null;
  factsUrl: string | null;
  tool: string[];
  toolTag: string[];
  /** The engine the widget runs (the `engine` attribute "auto" resolves to webllm or llamacpp). */
  engine: EngineKind;
  /** webllm: a web-llm model id; llamacpp: a catalog id or a GGUF URL (absolute). */
  model: string | null;
  /** llamacpp: a GGUF file the visitor picked, used instead of `model` (read on the device: never
   *  uploaded, never stored). */
  modelFile: File | null;
  /** Guided tool calls for webllm and llamacpp (src/engines/tool-turn.ts). */
  toolChoice: ToolChoice;
  /** The scripted demo's script (src/chat/script.ts), inline or its URL. */
  script: string | null;
  pyodideBaseUrl: string;
  /** IndexedDB name (default Edge's one database, `edge-web`). */
  dbName: string | null;
  /** Built-in tools offered on the visitor's files (opt-in, none by default). */
  builtins: string[];
}

declare global {
  interface HTMLElementEventMap {
    "edge-receipt": CustomEvent<EdgeReceiptDetail>;
    "edge-pending-action": CustomEvent<PendingActionDetail>;
    "edge-error": CustomEvent<EdgeErrorDetail>;
  }
}

// The widget's entry (dist/widget/edge-chat.js): defines <edge-chat> once and exports its class
// and types. Importing it twice (two script tags, two versions) never throws.
import { EdgeChatElement } from "./edge-chat.ts";

export { EdgeChatElement };
export type {
  EdgeErrorDetail,
  EdgeReceiptDetail,
  PendingActionDetail,
  WidgetRun,
  WidgetConfirmOutcome,
} from "./types.ts";
export type { EngineKind } from "../engines/engine.ts";

if (!customElements.get("edge-chat")) customElements.define("edge-chat", EdgeChatElement);

declare global {
  interface HTMLElementTagNameMap {
    "edge-chat": EdgeChatElement;
  }
}

// The Node side of asking for a confirmation: the broker `edge chat`, `edge tools call` and
// `edge mcp serve` use (pending actions as files under $EDGE_DATA_DIR/pending, the tools file's
// absolute path), and the exact `edge tools confirm` command printed with each pending action.
import path from "node:path";
import type { ConfirmationBroker } from "../chat/types.ts";
import type { Selection } from "../contract/types.ts";
import { createConfirmationBroker } from "./broker.ts";
import { createNodePendingStore, type NodePendingStore } from "./store-node.ts";

/** The exact command printed with a pending action (issue 5 §6). */
export function confirmCommand(id: string, token: string): string {
  return `npx edge tools confirm ${id} --token ${token} --json`;
}

/** Node file store, absolute tools path, the CLI command and the record's file on the ticket. */
export function nodeConfirmationBroker(toolsFile: string, selection: Selection, store: NodePendingStore = createNodePendingStore(), toolsRoot?: string): ConfirmationBroker {
  return createConfirmationBroker({
    store,
    toolsFile: path.resolve(toolsFile),
    ...(toolsRoot !== undefined ? { toolsRoot: path.resolve(toolsRoot) } : {}),
    selection,
    decorate: (record, token) => ({ confirm_command: confirmCommand(record.id, token), pending_action_path: store.fileOf(record.id) }),
  });
}

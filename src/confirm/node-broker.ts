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

/** Where a printed command finds this installation: Node, bin/edge.cjs and the data folder, all absolute. */
export interface EdgeInstallation {
  node: string;
  bin: string;
  dataDir: string;
}

/** Text as one POSIX shell word, always single-quoted (a path with spaces or quotes reads back as is). */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * The confirm command as a person can paste it in any folder: this installation's `edge` by
 * absolute path (outside the checkout `npx edge` is another package) and the data folder the
 * action is stored in (without it the command looks in the default one). POSIX shell syntax.
 */
export function absoluteConfirmCommand(id: string, token: string, at: EdgeInstallation): string {
  return `EDGE_DATA_DIR=${shellQuote(at.dataDir)} ${shellQuote(at.node)} ${shellQuote(at.bin)} tools confirm ${id} --token ${token}`;
}

/** Node file store, absolute tools path, the CLI command and the record's file on the ticket. */
export function nodeConfirmationBroker(
  toolsFile: string,
  selection: Selection,
  store: NodePendingStore = createNodePendingStore(),
  toolsRoot?: string,
  command: (id: string, token: string) => string = confirmCommand,
): ConfirmationBroker {
  return createConfirmationBroker({
    store,
    toolsFile: path.resolve(toolsFile),
    ...(toolsRoot !== undefined ? { toolsRoot: path.resolve(toolsRoot) } : {}),
    selection,
    decorate: (record, token) => ({ confirm_command: command(record.id, token), pending_action_path: store.fileOf(record.id) }),
  });
}

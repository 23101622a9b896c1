// The Node side of asking for a confirmation: the broker `edge chat`, `edge tools call` and
// `edge mcp serve` use (pending actions as files under $EDGE_DATA_DIR/pending, the tools file's
// absolute path), and the exact `edge tools confirm` command printed with each pending action.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ConfirmationBroker } from "../chat/types.ts";
import type { Selection } from "../contract/types.ts";
import { shellQuote } from "../platform/shell.ts";
import { createConfirmationBroker } from "./broker.ts";
import { createNodePendingStore, type NodePendingStore } from "./store-node.ts";

/** Where a printed command finds this installation: Node, bin/edge.cjs and the data folder, all absolute. */
export interface EdgeInstallation {
  node: string;
  bin: string;
  dataDir: string;
}

/** This installation with the data folder `dataDir`: the Node running it and its bin/edge.cjs
 *  (the CLI's build keeps each source's own import.meta.url, so this resolves from a build too). */
export function thisInstallation(dataDir: string): EdgeInstallation {
  return { node: process.execPath, bin: fileURLToPath(new URL("../../bin/edge.cjs", import.meta.url)), dataDir };
}

/**
 * The confirm command printed with a pending action, as a person can paste it in any folder: this
 * installation's `edge` by absolute path (outside the checkout `npx edge` is another package, or
 * none) and the data folder the action is stored in (without it the command looks in the default
 * one). POSIX shell syntax; no `--json` (a person reads its answer).
 */
export function confirmCommand(id: string, token: string, at: EdgeInstallation): string {
  return `${edgeCommand(at)} tools confirm ${id} --token ${token}`;
}

/** The command that refuses a pending action, in the same form. */
function rejectCommand(id: string, at: EdgeInstallation): string {
  return `${edgeCommand(at)} tools pending reject ${id}`;
}

/** This installation's `edge`, by absolute path, with its data folder. */
function edgeCommand(at: EdgeInstallation): string {
  return `EDGE_DATA_DIR=${shellQuote(at.dataDir)} ${shellQuote(at.node)} ${shellQuote(at.bin)}`;
}

/** Node file store, absolute tools path, the confirm command (naming the store's data folder) and
 *  the record's file on the ticket. */
export function nodeConfirmationBroker(
  toolsFile: string,
  selection: Selection,
  store: NodePendingStore = createNodePendingStore(),
  toolsRoot?: string,
): ConfirmationBroker {
  // store.dir is <data folder>/pending.
  const at = thisInstallation(path.dirname(store.dir));
  return createConfirmationBroker({
    store,
    toolsFile: path.resolve(toolsFile),
    ...(toolsRoot !== undefined ? { toolsRoot: path.resolve(toolsRoot) } : {}),
    selection,
    decorate: (record, token) => ({
      confirm_command: confirmCommand(record.id, token, at),
      reject_command: rejectCommand(record.id, at),
      pending_action_path: store.fileOf(record.id),
    }),
  });
}

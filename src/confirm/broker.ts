// The session's confirmation seam (ConfirmationBroker in src/chat/types.ts): when chat reaches a
// commit tool, the broker stores a pending action and hands back its ticket — the token appears
// there once and is never stored.
import type { ConfirmationBroker, PendingRequest, PendingTicket } from "../chat/types.ts";
import type { Selection } from "../contract/types.ts";
import { buildPendingAction, ticketOf, type CreatePendingOptions } from "./pending.ts";
import type { PendingAction } from "./types.ts";
import type { PendingStore } from "./store.ts";

export interface ConfirmationBrokerOptions extends CreatePendingOptions {
  store: PendingStore;
  /** The tools source's name/path, as confirm will re-read it (the CLI: an absolute path). */
  toolsFile: string;
  /** The tools root the session read its project from, when it is not the tools file's folder. */
  toolsRoot?: string;
  /** The selection the session froze its active set with. */
  selection?: Selection;
  /** Extra ticket fields (the CLI adds confirm_command and pending_action_path). */
  decorate?: (record: PendingAction, token: string) => Record<string, unknown>;
  /** Observe created actions (the UI shows a card). */
  onCreated?: (record: PendingAction, ticket: PendingTicket) => void;
}

export function createConfirmationBroker(options: ConfirmationBrokerOptions): ConfirmationBroker {
  return {
    async request(req: PendingRequest): Promise<PendingTicket> {
      const { record, token } = await buildPendingAction(
        {
          tool_name: req.tool_name,
          arguments: req.arguments,
          execution_level: req.execution_level,
          tools_file: options.toolsFile,
          selection: options.selection,
          tools_file_sha256: req.tools_file_sha256,
          ...(options.toolsRoot !== undefined ? { tools_root: options.toolsRoot } : {}),
          ...(req.tools_bundle ? { tools_bundle: req.tools_bundle } : {}),
          active_set_sha256: req.active_set_sha256,
          tool_schema_sha256: req.tool_schema_sha256,
          run_id: req.run_id,
          call_id: req.call_id,
        },
        options,
      );
      await options.store.create(record);
      const ticket: PendingTicket = { ...ticketOf(record, token), ...(options.decorate?.(record, token) ?? {}) };
      options.onCreated?.(record, ticket);
      return ticket;
    },
  };
}

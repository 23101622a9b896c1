// Pending actions and their confirmation (SPEC §6). Core only: the stores are adapters
// (idb-pending.ts for the browser, node-pending.ts for Node) imported from their own modules.
export * from "./types.ts";
export { buildPendingAction, bindingSha256, isPendingId, newToken, ticketOf, viewOf, isExpired, type NewPendingAction, type CreatePendingOptions } from "./pending.ts";
export { confirm, reject, purgeExpired, startPurging, type ConfirmContext, type PurgeReport } from "./confirm.ts";
export { createConfirmationBroker, type ConfirmationBrokerOptions } from "./broker.ts";

// Pending actions and their confirmation (docs/contract.md §6). Core only: the stores are adapters
// (store-idb.ts for the browser, store-node.ts for Node) imported from their own modules.
export * from "./types.ts";
export * from "./store.ts";
export { buildPendingAction, bindingSha256, isPendingId, newToken, ticketOf, viewOf, isExpired, type NewPendingAction, type CreatePendingOptions } from "./pending.ts";
export { confirm, reject, purgeExpired, startPurging, type ConfirmContext, type PurgeReport } from "./confirm.ts";
export { createConfirmationBroker, type ConfirmationBrokerOptions } from "./broker.ts";

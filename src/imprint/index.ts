// Neural Imprint (docs/contract.md §7): learn once, restore under schema-level gates. Environment-neutral
// exports; the Node file store is in store-node.ts, the IndexedDB store in store-idb.ts.
export * from "./sample.ts";
export * from "./sample-rules.ts";
export * from "./prefix.ts";
export * from "./record.ts";
export * from "./store.ts";
export * from "./gate.ts";
export * from "./evaluate.ts";
export * from "./learn.ts";
export * from "./plan.ts";
export * from "./transfer.ts";
export * from "./store-memory.ts";
export * from "./state.ts";

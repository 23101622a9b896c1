// Local facts (docs/contract.md §8): the file format, the store seam, import, the local_facts_lookup tool,
// tool manifests, and the tool surfaces the chat session takes. Storage adapters are imported
// from their own files (store-idb.ts for the browser, store-node.ts for Node).
export * from "./format.ts";
export * from "./store.ts";
export * from "./import.ts";
export * from "./lookup.ts";
export * from "./manifest.ts";
export * from "./surface.ts";

// Browser entry points: the same core plus the browser adapters (Vite-built pages only: the
// runner host bundles its worker through Vite).
export * from "./index.ts";
export { createBrowserRunnerHost, type BrowserRunnerHost, type BrowserRunnerHostOptions } from "./runner/browser/index.ts";
export { openEdgeDb } from "./store/idb.ts";
export { createIdbReceiptStore } from "./receipts/store-idb.ts";
export { createIdbPendingStore } from "./confirm/store-idb.ts";
export { createIdbImprintStore } from "./imprint/store-idb.ts";
export { createIdbFactsStore } from "./facts/store-idb.ts";
export { openIdbVfs } from "./builtins/vfs/store-idb.ts";

// The browser entry (Vite-built pages: the runner host bundles its worker through Vite): the public
// API plus the browser composition root (createBrowserEdge: IndexedDB stores, the sandboxed runner
// frame, the confirm step, engines imported on first use).
export * from "./index.ts";
export {
  createBrowserEdge,
  type BrowserEdge,
  type BrowserEdgeOptions,
  type BrowserEngine,
  type BrowserEngineChoice,
  type BrowserSessionRequest,
  type BrowserStorage,
  type BrowserTools,
} from "./assembly/browser.ts";

// The <edge-chat> widget's own build: ONE ES module entry, dist/widget/edge-chat.js, plus the
// chunks it loads lazily (the chat core on first use; web-llm only when a model is loaded) and
// Pyodide's files under dist/widget/pyodide/. Everything is found relative to edge-chat.js
// (import.meta.url), so the folder can be hosted on any origin that sends CORS headers.
//
//   npx vite build -c vite.widget.config.ts            (→ dist/widget/)
//   npx vite build -c vite.widget.config.ts --outDir X (another folder; the e2e specs use this)
//
// The two plugins that make the runner sandbox work (Pyodide's files, the runner worker as one
// classic-script string) are the playground's, taken from vite.config.ts by name so there is one
// definition of each.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type PluginOption, type Plugin } from "vite";
import appConfig from "./vite.config.ts";

const root = path.dirname(fileURLToPath(import.meta.url));
const SHARED_PLUGINS = ["edge-pyodide-files", "edge-runner-worker-bundle"];

function sharedPlugins(): Plugin[] {
  const flat = (list: PluginOption[] | undefined): Plugin[] =>
    (list ?? []).flatMap((p) =>
      Array.isArray(p) ? flat(p) : p && typeof p === "object" && "name" in p ? [p as Plugin] : [],
    );
  const found = flat(appConfig.plugins).filter((p) => SHARED_PLUGINS.includes(p.name));
  if (found.length !== SHARED_PLUGINS.length)
    throw new Error(`vite.widget.config.ts: expected plugins ${SHARED_PLUGINS.join(", ")} in vite.config.ts`);
  return found;
}

export default defineConfig({
  root,
  // import.meta.env.MODE === "widget" tells src/widget/assets.ts to find its files next to itself.
  mode: "widget",
  // Relative base: chunk and worker URLs resolve against import.meta.url, not the page.
  base: "./",
  publicDir: false,
  plugins: sharedPlugins(),
  worker: { format: "es" },
  build: {
    target: "es2022",
    outDir: "dist/widget",
    emptyOutDir: true,
    copyPublicDir: false,
    sourcemap: false,
    // Library builds of ES modules are not minified by default; this one ships to browsers.
    minify: "oxc",
    lib: {
      entry: path.join(root, "src/widget/index.ts"),
      formats: ["es"],
      fileName: () => "edge-chat.js",
    },
    rolldownOptions: {
      output: {
        // Every chunk beside edge-chat.js: modules find their files relative to import.meta.url
        // (src/widget/assets.ts), whichever chunk they end up in.
        chunkFileNames: "edge-chat.[name]-[hash].js",
        // Library mode keeps ES output readable (codegen: false) for re-bundling; this file ships
        // to browsers as is, so minify fully.
        minify: true,
        assetFileNames: "assets/[name]-[hash][extname]",
      },
    },
    // web-llm is ~6 MB per side and loads only when a model is loaded; do not warn about it.
    chunkSizeWarningLimit: 8000,
  },
});

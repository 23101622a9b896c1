// Vite config for the playground (and, later, the widget page).
//
// Two small plugins do the work that makes the runner sandbox possible:
//  * `edgePyodideFiles` serves Pyodide's files from the app's own origin under /pyodide/ (dev
//    middleware) and copies them into dist/pyodide/ at build time. Never a CDN: the host page
//    fetches these itself (so a service worker can serve them offline) and hands the bytes to the
//    sandbox frame.
//  * `edgeRunnerWorkerBundle` provides `virtual:edge-runner-worker`, whose default export is the
//    runner worker (workers/runner.worker.ts and everything it imports, Pyodide's own JavaScript
//    included) bundled as ONE classic script (IIFE) string. The sandbox frame starts each job's
//    worker from a blob: URL of that string; module workers from blob URLs fail inside an
//    opaque-origin sandbox, and the worker may load no further script (its CSP has no blob: in
//    script-src), so it must be one classic script with no imports left in it. The bundle is made
//    with Vite's own `build()` (Rolldown, `write: false`), in dev on first request and again when a
//    bundled file changes.
import { readdirSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { build, defineConfig, type Plugin, type ViteDevServer } from "vite";
import { VitePWA } from "vite-plugin-pwa";

const root = path.dirname(fileURLToPath(import.meta.url));
// Its real path: the bundler names modules by real path, so a linked node_modules (a git worktree
// sharing another checkout's) must still match in pyodideWithoutImportMeta.
const pyodideDir = realpathSync(path.join(root, "node_modules", "pyodide"));

/** The only Pyodide files the app fetches (no wheels: tools use the standard library only).
 *  Pyodide's JavaScript (pyodide.mjs, pyodide.asm.mjs) is inside the runner worker bundle. */
export const PYODIDE_FILES = ["pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"] as const;

const CONTENT_TYPES: Record<string, string> = {
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".zip": "application/zip",
  ".json": "application/json",
};

function edgePyodideFiles(): Plugin {
  return {
    name: "edge-pyodide-files",
    configureServer(server) {
      server.middlewares.use(async (req, res, next) => {
        const url = (req.url ?? "").split("?")[0] ?? "";
        const m = /^\/pyodide\/([^/]+)$/.exec(url);
        const file = m?.[1];
        if (!file || !(PYODIDE_FILES as readonly string[]).includes(file)) return next();
        try {
          const body = await readFile(path.join(pyodideDir, file));
          res.setHeader("Content-Type", CONTENT_TYPES[path.extname(file)] ?? "application/octet-stream");
          res.setHeader("Cache-Control", "no-cache");
          res.end(body);
        } catch (err) {
          next(err);
        }
      });
    },
    async generateBundle() {
      for (const file of PYODIDE_FILES) {
        this.emitFile({
          type: "asset",
          fileName: `pyodide/${file}`,
          source: await readFile(path.join(pyodideDir, file)),
        });
      }
    },
  };
}

/** What `import.meta.url` means inside Pyodide's modules in the worker bundle: the placeholder
 *  origin the runner also passes as indexURL (PLACEHOLDER_INDEX_URL in pyodide-from-bytes.ts). */
const PYODIDE_PLACEHOLDER_URL = "https://pyodide.invalid/";

/** Pyodide tells a classic worker from a module worker by trying `importScripts("data:…")` when
 *  its modules are evaluated. In the runner (a classic worker, on purpose) the frame's CSP and
 *  Trusted Types refuse that script, which is the answer Pyodide needs; but Firefox logs each
 *  refusal as a CSP violation, one per runner. The answer is given without asking the browser:
 *  the probe throws as the refused call would, and nothing is attempted. The CSP is unchanged, and
 *  tool code calling importScripts still meets it (e2e/sandbox.spec.ts). */
const CLASSIC_WORKER_PROBE = 'globalThis.importScripts("data:text/javascript,")';
const CLASSIC_WORKER_ANSWER = '(()=>{throw new TypeError("the runner loads no script")})()';

/**
 * Pyodide's ES modules read `import.meta.url` (their own location). A classic script has none,
 * and Vite's lib mode would turn `new URL("pyodide.asm.wasm", import.meta.url)` into a 13 MB
 * data: URL. The runner never loads anything from that location (it hands Pyodide the compiled
 * wasm and the stdlib bytes), so the placeholder is substituted before Vite's own plugins run.
 */
function pyodideWithoutImportMeta(): Plugin {
  return {
    name: "edge-pyodide-without-import-meta",
    enforce: "pre",
    transform(code, id) {
      if (!id.startsWith(pyodideDir + path.sep)) return undefined;
      const file = path.basename(id.split("?")[0] ?? id);
      const replaced = code
        .replaceAll("import.meta.url", JSON.stringify(PYODIDE_PLACEHOLDER_URL + file))
        .replaceAll(CLASSIC_WORKER_PROBE, CLASSIC_WORKER_ANSWER);
      if (/\bimport\.meta\b/.test(replaced))
        this.error(`${file} uses import.meta beyond .url; the classic runner worker bundle cannot carry it`);
      if (/importScripts\(/.test(replaced))
        this.error(
          `${file} calls importScripts in a way this plugin does not know; the runner's CSP refuses every script URL`,
        );
      return { code: replaced, map: null };
    },
  };
}

const RUNNER_WORKER_ID = "virtual:edge-runner-worker";
const RESOLVED_RUNNER_WORKER_ID = "\0" + RUNNER_WORKER_ID;
const RUNNER_WORKER_ENTRY = path.join(root, "workers", "runner.worker.ts");

/** Bundle the runner worker entry into one IIFE script with Vite's build API. */
async function bundleRunnerWorker(minify: boolean): Promise<{ code: string; files: string[] }> {
  const out = await build({
    configFile: false,
    root,
    logLevel: "warn",
    publicDir: false,
    plugins: [pyodideWithoutImportMeta()],
    build: {
      write: false,
      minify,
      sourcemap: false,
      emptyOutDir: false,
      copyPublicDir: false,
      lib: {
        entry: RUNNER_WORKER_ENTRY,
        formats: ["iife"],
        name: "EdgeRunnerWorker",
        fileName: () => "runner.worker.js",
      },
      rolldownOptions: {
        output: { codeSplitting: false },
        // Pyodide's modules carry Node-only branches (node: imports, eval, `module`) that never run
        // in the worker; their warnings would be printed on every build.
        onLog(level, log, handler) {
          if (
            level === "warn" &&
            `${log.id ?? ""} ${log.message}`.includes(`${path.sep}node_modules${path.sep}pyodide${path.sep}`)
          )
            return;
          handler(level, log);
        },
      },
    },
  });
  const results = Array.isArray(out) ? out : [out];
  const files = new Set<string>();
  let code: string | undefined;
  for (const result of results) {
    if (!("output" in result)) throw new Error("runner worker bundle: unexpected watcher result");
    for (const item of result.output) {
      if (item.type !== "chunk") continue;
      if (code !== undefined)
        throw new Error("runner worker bundle produced more than one chunk; it must be one classic script");
      code = item.code;
      for (const id of item.moduleIds) if (!id.startsWith("\0")) files.add(id);
    }
  }
  if (code === undefined) throw new Error("runner worker bundle produced no code");
  if (/^\s*(import|export)\s/m.test(code)) throw new Error("runner worker bundle still contains ES module syntax");
  return { code, files: [...files] };
}

function edgeRunnerWorkerBundle(): Plugin {
  let server: ViteDevServer | undefined;
  let isBuild = false;
  let bundledFiles = new Set<string>();
  return {
    name: "edge-runner-worker-bundle",
    configResolved(config) {
      isBuild = config.command === "build";
    },
    configureServer(s) {
      server = s;
      // A change in any file of the worker bundle invalidates the virtual module (full reload).
      s.watcher.on("change", (file) => {
        if (!bundledFiles.has(path.resolve(file))) return;
        const mod = s.moduleGraph.getModuleById(RESOLVED_RUNNER_WORKER_ID);
        if (mod) {
          s.moduleGraph.invalidateModule(mod);
          s.ws.send({ type: "full-reload" });
        }
      });
    },
    resolveId(id) {
      return id === RUNNER_WORKER_ID ? RESOLVED_RUNNER_WORKER_ID : undefined;
    },
    async load(id) {
      if (id !== RESOLVED_RUNNER_WORKER_ID) return undefined;
      const { code, files } = await bundleRunnerWorker(isBuild);
      bundledFiles = new Set(files.map((f) => path.resolve(f)));
      if (!server) for (const f of files) this.addWatchFile(f);
      return `export default ${JSON.stringify(code)};`;
    },
  };
}

/** Test-only pages (e2e/pages/*.html) are build inputs only when EDGE_E2E_PAGES is set (the
 *  Playwright webServer sets it), so the shipped dist never contains them. */
function e2ePages(): Record<string, string> {
  if (!process.env.EDGE_E2E_PAGES) return {};
  const dir = path.join(root, "e2e", "pages");
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".html"));
  } catch {
    return {};
  }
  return Object.fromEntries(names.map((n) => [`e2e-${n.replace(/\.html$/, "")}`, path.join(dir, n)]));
}

/** The playground's PWA (vite-plugin-pwa, Workbox generateSW): precache the app shell, every JS
 *  chunk (the runner worker bundle is inside one), the examples and Pyodide's files under /pyodide/,
 *  so after one online visit the app reloads and runs tools offline. web-llm keeps model weights in
 *  its own cache, the llama.cpp engine in OPFS. "prompt": a new version waits until the person
 *  presses Reload (src/app/pwa.ts). */
function edgePwa(): Plugin[] {
  return VitePWA({
    registerType: "prompt",
    injectRegister: false,
    workbox: {
      globPatterns: ["**/*.{html,js,mjs,css,svg,png,ico,webmanifest,json,py,wasm,zip}"],
      // Test-only pages and the separately built widget are not part of the app shell.
      globIgnores: ["e2e/**", "widget/**", "**/*.map"],
      // pyodide.asm.wasm is ~10 MB, python_stdlib.zip ~2.5 MB.
      maximumFileSizeToCacheInBytes: 32 * 1024 * 1024,
      navigateFallback: "index.html",
      // Pathname + search: "/" and "/?anything" open the app offline; other pages keep their own.
      navigateFallbackAllowlist: [/^\/(index\.html)?(\?.*)?$/],
      cleanupOutdatedCaches: true,
      // web-llm's chunks (~6 MB each side), llama.cpp's wasm and worker script (wllama, ~10 MB and
      // wllama-*.js, 140 KB) and wllama's compat build for browsers without JSPI (wllama-*.js + an
      // 18 MB wasm: Safari only) are not precached for everyone: they are cached the first time a
      // person loads a model (below), so a downloaded model also works offline.
      manifestTransforms: [
        async (entries) => ({
          manifest: entries.filter(
            (e) =>
              !(/^assets\/.*\.js$/.test(e.url) && e.size > 1_500_000) &&
              !/^assets\/(.*\.wasm|wllama-[^/]*\.js)$/.test(e.url),
          ),
          warnings: [],
        }),
      ],
      runtimeCaching: [
        {
          // Hashed file names never change content: cache-first is safe.
          urlPattern: ({ url, sameOrigin }) => sameOrigin && /^\/assets\/.+\.(js|wasm)$/.test(url.pathname),
          handler: "CacheFirst",
          options: { cacheName: "edge-lazy-chunks", expiration: { maxEntries: 32 } },
        },
      ],
    },
    manifest: {
      id: "/",
      name: "Edge playground",
      short_name: "Edge",
      description:
        "A small language model in your browser calling your own Python tools, each call in a sandboxed, hash-checked Pyodide runner, with receipts.",
      start_url: "/",
      scope: "/",
      display: "standalone",
      theme_color: "#0f766e",
      background_color: "#0f141b",
      icons: [
        { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
        { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
        { src: "/icons/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
      ],
    },
  });
}

/**
 * Cross-origin isolation for the playground and the PWA: with these two headers on every response
 * the page (and the workers it starts) can use SharedArrayBuffer, so llama.cpp (wllama) runs
 * multi-threaded. require-corp: everything the app loads is same-origin, and models from other
 * origins are fetched with CORS, which needs no Cross-Origin-Resource-Policy. The service worker
 * serves precached responses with the headers they were fetched with (e2e/offline.spec.ts checks
 * that an offline reload is still isolated). A host that cannot send them gets one thread.
 */
export const CROSS_ORIGIN_ISOLATION = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
} as const;

export default defineConfig({
  plugins: [edgePyodideFiles(), edgeRunnerWorkerBundle(), ...edgePwa()],
  // Pre-bundling Pyodide makes the dev server reload the page the first time it is imported.
  optimizeDeps: { exclude: ["pyodide"] },
  // Test artefacts written during a dev-server e2e run must not reload the page under test.
  server: {
    port: 5173,
    headers: CROSS_ORIGIN_ISOLATION,
    watch: { ignored: ["**/.cache/**", "**/test-results/**", "**/playwright-report/**", "**/dist/**"] },
  },
  preview: { port: 4173, strictPort: true, headers: CROSS_ORIGIN_ISOLATION },
  // Long-lived app workers (the llm worker) are module workers with code splitting. The runner
  // worker is NOT built through this: it is the classic IIFE bundle of edgeRunnerWorkerBundle.
  worker: { format: "es" },
  build: {
    target: "es2022",
    rolldownOptions: {
      input: {
        main: path.join(root, "index.html"),
        ...e2ePages(),
      },
    },
  },
});

// Two tiny static servers for the <edge-chat> widget, so it runs the way a docs site uses it:
//  * the ASSET host (origin A) serves the built widget folder (edge-chat.js, chunks, Pyodide's
//    files) with Access-Control-Allow-Origin — what the widget requires of its host;
//  * the DOCS host (origin B, another port = another origin) serves static pages, the sample
//    widget.html and the tools file, with NO CORS and (unless a test asks) NO COOP/COEP headers.
// Both listen on port 0 (the OS picks a free port: no clash with other engineers' servers), count
// their requests, and close themselves after `lifetimeMs` even if a test forgets to.
//
// Also: ensureWidgetBuild() builds the widget (vite.widget.config.ts) into a folder when the
// build there is missing or older than the sources.
//
// Run as a script to try the sample page by hand (fixed ports 8787/8788 that widget.html uses):
//   node --import tsx e2e/widget-servers.ts        → http://127.0.0.1:8787/widget.html
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The origin widget.html's script tag points at; the docs server rewrites it to the real one. */
export const SAMPLE_ASSET_ORIGIN = "http://127.0.0.1:8788";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".zip": "application/zip",
  ".json": "application/json",
  ".py": "text/x-python; charset=utf-8",
  ".css": "text/css",
};

export interface Route {
  body: string | Uint8Array;
  type?: string;
  status?: number;
}

export interface StaticServer {
  readonly origin: string;
  /** Paths requested so far, in order (e.g. "/tools.py"). */
  readonly requests: string[];
  /** Serve this body at this path (overrides the folder). */
  route(pathname: string, route: Route | string): void;
  url(pathname: string): string;
  close(): Promise<void>;
}

export interface StaticServerOptions {
  /** Folder served for paths without a route. */
  dir?: string;
  /** Send Access-Control-Allow-Origin: * (the asset host must). */
  cors?: boolean;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Host name used in this server's URLs, e.g. "localhost" (another site than 127.0.0.1). */
  urlHost?: string;
  port?: number;
  /** Close by itself after this long (default 10 minutes). */
  lifetimeMs?: number;
  /** Sent with every response (e.g. COOP/COEP: a cross-origin-isolated docs page). */
  headers?: Readonly<Record<string, string>>;
  /** Put first in the <head> of every HTML page served, so it runs before the page's own scripts
   *  (the WebKit journeys' console capture, e2e/browsers/page-capture.ts). */
  headScript?: string;
}

/** `html` with `script` as the first element of its <head> (or of the document, without one). */
function withHeadScript(html: string | Uint8Array, script: string | undefined): string | Uint8Array {
  if (!script) return html;
  const text = typeof html === "string" ? html : Buffer.from(html).toString("utf8");
  const tag = `<script>${script}</script>`;
  const head = /<head[^>]*>/i.exec(text);
  return head ? text.slice(0, head.index + head[0].length) + tag + text.slice(head.index + head[0].length) : tag + text;
}

export async function startStaticServer(options: StaticServerOptions = {}): Promise<StaticServer> {
  const routes = new Map<string, Route>();
  const requests: string[] = [];
  const host = options.host ?? "127.0.0.1";
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(pathname);
    if (options.cors) {
      res.setHeader("Access-Control-Allow-Origin", "*");
      res.setHeader("Vary", "Origin");
    }
    res.setHeader("Cache-Control", "no-store");
    for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
    if (req.method === "OPTIONS") {
      res.writeHead(204).end();
      return;
    }
    const send = (status: number, type: string, body: string | Uint8Array) => {
      res.writeHead(status, { "Content-Type": type });
      res.end(type.startsWith("text/html") ? withHeadScript(body, options.headScript) : body);
    };
    const route = routes.get(pathname);
    if (route)
      return send(
        route.status ?? 200,
        route.type ?? TYPES[path.extname(pathname)] ?? "application/octet-stream",
        route.body,
      );
    if (options.dir) {
      const file = path.resolve(options.dir, "." + pathname + (pathname.endsWith("/") ? "index.html" : ""));
      if (file.startsWith(path.resolve(options.dir) + path.sep) && existsSync(file) && statSync(file).isFile()) {
        return send(200, TYPES[path.extname(file)] ?? "application/octet-stream", await readFile(file));
      }
    }
    res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
  };
  const server = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("server has no port");
  const displayHost = options.urlHost ?? (host === "::1" ? "[::1]" : host);
  const origin = `http://${displayHost}:${address.port}`;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closed;
  };
  const timer = setTimeout(() => void close(), options.lifetimeMs ?? 10 * 60_000);
  timer.unref();
  return {
    origin,
    requests,
    route(pathname, route) {
      routes.set(pathname, typeof route === "string" ? { body: route } : route);
    },
    url: (pathname) => new URL(pathname, origin).href,
    close: () => {
      clearTimeout(timer);
      return close();
    },
  };
}

/** The sample docs page, its script tag pointed at `assetOrigin`. */
export async function sampleWidgetPage(assetOrigin: string): Promise<string> {
  const html = await readFile(path.join(ROOT, "widget.html"), "utf8");
  return html.split(SAMPLE_ASSET_ORIGIN).join(assetOrigin.replace(/\/$/, ""));
}

/** A minimal docs page with the widget; `attrs` are written as given (test-controlled). */
export function docsPage(options: {
  widgetUrl: string;
  attrs: string;
  css?: string;
  body?: string;
  title?: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${options.title ?? "Docs page"}</title>
<link rel="icon" href="data:,">
<script type="module" src="${options.widgetUrl}"></script>
${options.css ? `<style>${options.css}</style>` : ""}
</head>
<body>
<main>
<h1>${options.title ?? "Docs page"}</h1>
${options.body ?? ""}
<edge-chat ${options.attrs}></edge-chat>
</main>
</body>
</html>`;
}

export function newestMtime(dir: string, skip: RegExp): number {
  let newest = 0;
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (skip.test(p)) continue;
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  if (existsSync(dir)) walk(dir);
  return newest;
}

/**
 * Build the widget into `outDir` (absolute, or relative to the repo) unless a build there is newer
 * than every source it depends on. Returns the folder.
 */
export function ensureWidgetBuild(outDir = process.env.EDGE_WIDGET_DIR ?? "dist/widget"): string {
  const out = path.resolve(ROOT, outDir);
  const entry = path.join(out, "edge-chat.js");
  const skip = /(__pycache__|[\\/]tests[\\/]|\.test\.ts$)/;
  const sources = Math.max(
    newestMtime(path.join(ROOT, "src"), /(__pycache__|[\\/]tests[\\/]|\.test\.ts$|[\\/]src[\\/]app[\\/])/),
    newestMtime(path.join(ROOT, "workers"), skip),
    newestMtime(path.join(ROOT, "runner-pyodide"), skip),
    statSync(path.join(ROOT, "vite.widget.config.ts")).mtimeMs,
    statSync(path.join(ROOT, "vite.config.ts")).mtimeMs,
  );
  if (existsSync(entry) && statSync(entry).mtimeMs > sources) return out;
  const r = spawnSync("npx", ["vite", "build", "-c", "vite.widget.config.ts", "--outDir", out, "--logLevel", "warn"], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: process.env,
  });
  if (r.status !== 0 || !existsSync(entry)) throw new Error(`widget build failed (exit ${r.status})`);
  return out;
}

/** Asset host + docs host for the sample page (and for benches). */
export async function startWidgetSites(options: {
  widgetDir: string;
  /** Host names in the two origins' URLs (default 127.0.0.1 for both). */
  assetHost?: string;
  docsHost?: string;
  assetPort?: number;
  docsPort?: number;
  lifetimeMs?: number;
  /** The docs host's head script (StaticServerOptions.headScript). */
  headScript?: string;
}): Promise<{
  assets: StaticServer;
  docs: StaticServer;
  close(): Promise<void>;
}> {
  const lifetimeMs = options.lifetimeMs;
  const assets = await startStaticServer({
    dir: options.widgetDir,
    cors: true,
    urlHost: options.assetHost,
    port: options.assetPort,
    lifetimeMs,
  });
  const docs = await startStaticServer({
    urlHost: options.docsHost,
    port: options.docsPort,
    lifetimeMs,
    headScript: options.headScript,
  });
  // The docs site: the sample page, its example tools, facts and demo script.
  docs.route("/widget.html", await sampleWidgetPage(assets.origin));
  for (const name of ["tools.py", "facts.json", "widget-demo.script.json"]) {
    docs.route(`/examples/${name}`, { body: await readFile(path.join(ROOT, "public", "examples", name)) });
  }
  return {
    assets,
    docs,
    close: async () => {
      await Promise.all([assets.close(), docs.close()]);
    },
  };
}

// `node --import tsx e2e/widget-servers.ts`: the sample page on fixed ports, until Ctrl-C (or 1 h).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const widgetDir = ensureWidgetBuild();
  const sites = await startWidgetSites({ widgetDir, assetPort: 8788, docsPort: 8787, lifetimeMs: 60 * 60_000 });
  console.log(`widget assets: ${sites.assets.origin}/edge-chat.js\nsample docs page: ${sites.docs.origin}/widget.html`);
}

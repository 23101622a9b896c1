// A tiny static file server for the Chromium benches: serves one built dist folder on loopback
// only, on a free port the OS picks, GET/HEAD only, no path outside the folder, and closes itself
// after `maxLifetimeMs` even if the bench forgets to (or dies half-way).
//
// Used instead of `vite preview` because Vite keeps one preview lock per project: another engineer's
// preview of the same checkout would make ours fail.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { extname, resolve, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".zip": "application/zip",
  ".py": "text/x-python; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webmanifest": "application/manifest+json",
  ".txt": "text/plain; charset=utf-8",
};

export interface StaticServer {
  /** e.g. http://127.0.0.1:40123/ */
  readonly url: string;
  /** Requests served so far (for a sanity check or a log line). */
  readonly requests: number;
  close(): Promise<void>;
}

export interface StaticServerOptions {
  /** The server closes itself after this long (default 10 minutes). */
  maxLifetimeMs?: number;
  /** At most this many open connections (default 64); more are dropped. */
  maxConnections?: number;
  /** Sent with every file (e.g. COOP/COEP for a cross-origin-isolated page). */
  headers?: Readonly<Record<string, string>>;
}

export async function serveStatic(dir: string, options: StaticServerOptions = {}): Promise<StaticServer> {
  const root = resolve(dir);
  let requests = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests++;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (pathname.endsWith("/")) pathname += "index.html";
    const file = resolve(root, "." + pathname);
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    stat(file).then(
      (st) => {
        if (!st.isFile()) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, {
          "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
          "Content-Length": String(st.size),
          "Cache-Control": "no-cache",
          ...options.headers,
        });
        if (req.method === "HEAD") {
          res.end();
          return;
        }
        createReadStream(file)
          .on("error", () => res.destroy())
          .pipe(res);
      },
      () => res.writeHead(404).end(),
    );
  });
  server.maxConnections = options.maxConnections ?? 64;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => ok());
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((ok) => {
      clearTimeout(lifetime);
      server.close(() => ok());
      for (const s of sockets) s.destroy();
    });
    return closed;
  };
  const lifetime = setTimeout(() => void close(), options.maxLifetimeMs ?? 10 * 60_000);
  lifetime.unref();

  return {
    url: `http://127.0.0.1:${port}/`,
    get requests() {
      return requests;
    },
    close,
  };
}

// A local HTTP server for model downloads in tests (no internet here): the generated model, and
// every way a download goes wrong — 404, a truncated file, a file that is not GGUF, a transfer that
// stalls (to abort), a connection that drops half-way. Also any file from disk by path (a real-weight
// model of 100 MB or more: streamed from disk, never held in memory). Counts requests per path. CORS
// is open, so Chromium pages on another port can download from it too.
import { createReadStream, statSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { pipeline } from "node:stream";

const CORS = { "access-control-allow-origin": "*" };

export interface ModelServer {
  url(path: string): string;
  hits(path: string): number;
  close(): Promise<void>;
}

/** A file on disk, served as it is (its bytes are read as they are sent). */
export interface DiskFile {
  path: string;
}

/** Serves `model` at /model.gguf (and `extra` files by URL path, e.g. "/small.gguf": bytes, or a
 *  file on disk as `{ path }`). */
export async function startModelServer(
  model: Uint8Array,
  extra: Record<string, Uint8Array | DiskFile> = {},
): Promise<ModelServer> {
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const send = (res: ServerResponse, body: Uint8Array | string, type = "application/octet-stream") => {
    res.writeHead(200, { "content-type": type, "content-length": Buffer.byteLength(body), ...CORS });
    res.end(body);
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const file = extra[path];
    if (file instanceof Uint8Array) return send(res, file);
    if (file) {
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": statSync(file.path).size,
        ...CORS,
      });
      // pipeline, not pipe: a client that stops reading (Cancel, a closed page) also closes the file.
      pipeline(createReadStream(file.path), res, () => undefined);
      return;
    }
    switch (path) {
      case "/model.gguf":
        return send(res, model);
      case "/no-cors.gguf":
        // A server that does not let other sites read its files (no Access-Control-Allow-Origin).
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": model.length });
        return res.end(model);
      case "/truncated.gguf":
        return send(res, model.subarray(0, model.length - 4096));
      case "/notes.gguf":
        return send(res, "These are my notes, not a model.\n".repeat(50), "text/plain");
      case "/stall.gguf":
        // Half the file, then nothing: the client must abort.
        res.writeHead(200, { "content-length": model.length, ...CORS });
        res.write(model.subarray(0, model.length >> 1));
        return;
      case "/drop.gguf":
        res.writeHead(200, { "content-length": model.length, ...CORS });
        res.write(model.subarray(0, model.length >> 1), () => res.socket?.destroy());
        return;
      default:
        res.writeHead(404, { "content-type": "text/plain", ...CORS });
        res.end("not found");
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// Streamable HTTP on the loopback interface only: one SDK transport and Server per session, every
// request checked for the bearer token printed at start (401 without it), the Host header pinned
// to the loopback address (DNS rebinding), sessions and unauthenticated connections bounded
// (http-limits.ts). A tools/call whose HTTP response goes away before it is
// answered is aborted: its runner is killed and its receipt says so.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, isJSONRPCRequest, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { ERRORS } from "../contract/error-table.ts";
import { EdgeError } from "../contract/errors.ts";
import { timingSafeEqual } from "../contract/hash.ts";
import {
  DEFAULT_HTTP_LIMITS,
  guardConnections,
  serverTimeouts,
  SessionTable,
  type HttpLimits,
  type Reservation,
} from "./http-limits.ts";
import { createMcpConnection, type McpConnection } from "./server.ts";
import type { McpToolService } from "./service.ts";

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MCP_PATH = "/mcp";

export interface HttpAddress {
  host: string;
  port: number;
}

/** "127.0.0.1:8080", "localhost:0", "[::1]:9000": loopback only (mcp_host_not_loopback). */
export function parseLoopbackAddress(text: string): HttpAddress {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text);
  const host = m ? (m[1] ?? m[2]!) : "";
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port >= 0 && port <= 65535))
    throw new EdgeError(
      "invalid_option",
      { address: text },
      `--http takes HOST:PORT on the loopback interface, e.g. 127.0.0.1:8765 (0 picks a free port); got "${text}".`,
    );
  if (!(host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)))
    throw new EdgeError("mcp_host_not_loopback", { host }, `${ERRORS.mcp_host_not_loopback} (got ${host})`);
  return { host, port };
}

export interface HttpMcpServer {
  url: string;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  connection: McpConnection;
  close(): Promise<void>;
}

export interface HttpServeOptions {
  limits?: Partial<HttpLimits>;
  /** One line for the person running the server. */
  log?: (line: string) => void;
}

export async function serveHttp(
  service: McpToolService,
  address: HttpAddress,
  token: string,
  options: HttpServeOptions = {},
): Promise<HttpMcpServer> {
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const log = options.log ?? (() => undefined);
  const sessions = new SessionTable<Session>(limits, (id) =>
    log(`closed session ${id}: idle for ${Math.round(limits.sessionIdleMs / 1000)} s`),
  );
  let allowedHosts: string[] = [];
  const http = createServer(serverTimeouts(limits), (req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent)
        sendJson(res, 500, { jsonrpc: "2.0", error: { code: -32603, message: String(err) }, id: null });
      else res.end();
    });
  });
  const guard = guardConnections(http, limits.maxUnauthenticated);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (new URL(req.url ?? "/", "http://loopback").pathname !== MCP_PATH)
      return sendJson(res, 404, { error: { code: "not_found", message: `Edge's MCP endpoint is ${MCP_PATH}.` } });
    if (!authorized(req, token)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="edge"');
      return sendJson(res, 401, { error: { code: "mcp_unauthorized", message: ERRORS.mcp_unauthorized } });
    }
    guard.authenticated(req.socket);
    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (body === TOO_LARGE) {
      return sendJson(res, 413, {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message: `The request body is over ${MAX_BODY_BYTES} bytes, the limit of Edge's MCP server; nothing ran. Send smaller requests (one call per request, shorter arguments).`,
        },
        id: null,
      });
    }
    const sid = req.headers["mcp-session-id"];
    let session = typeof sid === "string" ? sessions.get(sid) : undefined;
    if (!session) {
      if (sid !== undefined || req.method !== "POST" || !isInitializeRequest(body)) {
        return sendJson(res, sid !== undefined ? 404 : 400, {
          jsonrpc: "2.0",
          error: {
            code: -32000,
            message:
              "No valid MCP session: start one with an initialize request (a restarted server, or one that closed an idle session, has no old sessions).",
          },
          id: null,
        });
      }
      const place = sessions.reserve();
      if (!place) {
        log(`refused a new session: ${limits.maxSessions} are open (mcp_session_limit)`);
        return sendJson(res, 503, {
          jsonrpc: "2.0",
          error: {
            code: -32000,
            message: `mcp_session_limit: ${ERRORS.mcp_session_limit}`,
            data: { code: "mcp_session_limit", max_sessions: limits.maxSessions },
          },
          id: null,
        });
      }
      try {
        session = await openSession(service, place, sessions, allowedHosts);
        await session.transport.handleRequest(req, res, body);
      } finally {
        place.release();
      }
      return;
    }
    const done = sessions.busy(session.transport.sessionId!);
    res.once("close", done);
    watchCalls(body, res, session.connection);
    try {
      await session.transport.handleRequest(req, res, body);
    } finally {
      if (res.writableFinished) done();
    }
  };
  await listen(http, address);
  const port = (http.address() as AddressInfo).port;
  const shown = address.host.includes(":") ? `[${address.host}]` : address.host;
  allowedHosts = [`${shown}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`];
  return {
    url: `http://${shown}:${port}${MCP_PATH}`,
    async close() {
      sessions.stop();
      for (const s of sessions.all()) await s.close().catch(() => undefined);
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}

async function openSession(
  service: McpToolService,
  place: Reservation<Session>,
  sessions: SessionTable<Session>,
  allowedHosts: string[],
): Promise<Session> {
  const connection = createMcpConnection(service);
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableDnsRebindingProtection: true,
    allowedHosts,
    onsessioninitialized: (id) => place.take(id, session),
  });
  const session: Session = { transport, connection, close: () => transport.close() };
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await connection.server.connect(transport);
  return session;
}

/** A tools/call in this POST whose response closes before it was written: the client went away. */
function watchCalls(body: unknown, res: ServerResponse, connection: McpConnection): void {
  const ids: RequestId[] = (Array.isArray(body) ? body : [body])
    .filter((m) => isJSONRPCRequest(m) && m.method === "tools/call")
    .map((m) => (m as { id: RequestId }).id);
  if (!ids.length) return;
  res.on("close", () => {
    if (!res.writableFinished) for (const id of ids) connection.abortRequest(id);
  });
}

function authorized(req: IncomingMessage, token: string): boolean {
  const h = req.headers.authorization;
  const m = typeof h === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m !== null && timingSafeEqual(m[1]!, token);
}

/** What readJson returns for a body over MAX_BODY_BYTES (answered 413, never parsed). */
const TOO_LARGE: unique symbol = Symbol("request body too large");

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Past the limit the rest is read and dropped (not buffered): leaving the loop would destroy the
  // request's socket before the 413 is written. Only a client holding the token gets this far.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) return TOO_LARGE;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, doc: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(doc));
}

function listen(http: HttpServer, address: HttpAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once("error", (err) =>
      reject(
        new EdgeError(
          "mcp_listen_failed",
          { host: address.host, port: address.port },
          `${ERRORS.mcp_listen_failed} (${(err as Error).message})`,
        ),
      ),
    );
    http.listen(address.port, address.host, () => resolve());
  });
}

// Bounds of the Streamable HTTP server, so that neither the token holder's own client nor another
// local user can exhaust it: a cap on open sessions (each holds an SDK Server and transport) and an
// idle expiry that frees them, and bounds on connections that have not shown the token (a header
// deadline, a whole-request deadline, and a cap that closes the oldest such connection to admit a
// new one, so half-open connections cannot hold every descriptor while the person's client waits).
// Every peer of a loopback server is 127.0.0.1 (any local user), so a per-address limit would limit
// the person too; the cap is on unauthenticated connections instead.
import type { Server as HttpServer } from "node:http";
import type { Socket } from "node:net";

export interface HttpLimits {
  /** Sessions open at once; an initialize beyond it is refused with mcp_session_limit. */
  maxSessions: number;
  /** A session with no request in flight for this long is closed (its client must initialize again). */
  sessionIdleMs: number;
  /** Connections that have not yet sent a request with the token; beyond it the oldest is closed. */
  maxUnauthenticated: number;
  /** A request's headers must all arrive within this (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** A whole request, headers and body, must arrive within this (Node's requestTimeout). */
  requestTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxSessions: 100,
  sessionIdleMs: 10 * 60 * 1000,
  maxUnauthenticated: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
};

/** createServer options for the deadlines: Node checks them on this interval (default 30 s). */
export function serverTimeouts(limits: HttpLimits): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  const headersTimeout = limits.headersTimeoutMs;
  const requestTimeout = Math.max(limits.requestTimeoutMs, headersTimeout);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1000, headersTimeout) };
}

export interface ConnectionGuard {
  /** This connection carried a request with the token: it no longer counts against the cap. */
  authenticated(socket: Socket): void;
  /** Connections now waiting without the token (tests, logs). */
  readonly unauthenticated: number;
}

/** Cap connections that have not shown the token; the oldest goes first, so a new one always gets in. */
export function guardConnections(http: HttpServer, max: number): ConnectionGuard {
  // A Set keeps insertion order: its first entry is the oldest waiting connection.
  const waiting = new Set<Socket>();
  http.on("connection", (socket: Socket) => {
    waiting.add(socket);
    socket.once("close", () => waiting.delete(socket));
    while (waiting.size > max) {
      const oldest = waiting.values().next().value as Socket;
      waiting.delete(oldest);
      oldest.destroy();
    }
  });
  return {
    authenticated: (socket) => void waiting.delete(socket),
    get unauthenticated() {
      return waiting.size;
    },
  };
}

interface Entry<S> {
  session: S;
  inFlight: number;
  lastSeen: number;
}

/** A place held for a session being initialized: taken once it has an id, else given back. */
export interface Reservation<S> {
  take(id: string, session: S): void;
  release(): void;
}

/** Open sessions by id: a cap, and idle expiry (a session with a request in flight, such as an
 *  open event stream, is never idle). */
export class SessionTable<S extends { close(): Promise<void> }> {
  private readonly open = new Map<string, Entry<S>>();
  private opening = 0;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly limits: Pick<HttpLimits, "maxSessions" | "sessionIdleMs">,
    private readonly onExpired: (id: string) => void = () => undefined,
  ) {
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(limits.sessionIdleMs / 2, 30_000)));
    this.timer.unref();
  }

  /** Room for one more session (one being initialized counts), else undefined: refuse it. */
  reserve(): Reservation<S> | undefined {
    if (this.open.size + this.opening >= this.limits.maxSessions) return undefined;
    this.opening++;
    let held = true;
    const give = (): boolean => (held ? ((held = false), this.opening--, true) : false);
    return {
      take: (id, session) => void (give() && this.open.set(id, { session, inFlight: 0, lastSeen: Date.now() })),
      release: () => void give(),
    };
  }

  get(id: string): S | undefined {
    return this.open.get(id)?.session;
  }

  delete(id: string): void {
    this.open.delete(id);
  }

  /** A request of this session is in flight until the returned function is called. */
  busy(id: string): () => void {
    const e = this.open.get(id);
    if (!e) return () => undefined;
    e.inFlight++;
    e.lastSeen = Date.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      e.inFlight--;
      e.lastSeen = Date.now();
    };
  }

  all(): S[] {
    return [...this.open.values()].map((e) => e.session);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, e] of this.open) {
      if (e.inFlight > 0 || now - e.lastSeen < this.limits.sessionIdleMs) continue;
      this.open.delete(id);
      this.onExpired(id);
      void e.session.close().catch(() => undefined);
    }
  }
}

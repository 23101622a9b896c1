// A package index on 127.0.0.1 that a browser can read: PyPI's JSON Simple API (PEP 691) and its real
// wheels, fetched from pypi.org by this Node process (where PyPI is reachable) and served again with
// `Access-Control-Allow-Origin: *` and `Cross-Origin-Resource-Policy: cross-origin` (the
// playground is cross-origin isolated). PyPI itself sends CORS headers, but on this machine a proxy
// strips them, so a browser cannot read pypi.org here. Each wheel's METADATA is also served apart
// (PEP 658, `core-metadata`), as pypi.org does, so resolving reads no wheel — unless made with
// `{ metadataApart: false }`: then the pages are PyPI's as this machine receives them (no
// core-metadata) and a resolver reads each wheel's METADATA from the wheel. Counts requests; can be
// switched off (`online = false`) or made to serve a wheel with other bytes (`tamper`).
import { createServer, type Server } from "node:http";
import { unzipSync } from "fflate";

const PYPI = "https://pypi.org/simple/";

export class PypiMirror {
  /** "METHOD /path" of every request, in order. */
  readonly requests: string[] = [];
  online = true;
  /** File names served with their last byte changed (as a compromised mirror would). */
  readonly tamper = new Set<string>();
  url = "";
  origin = "";
  private server: Server | undefined;
  private readonly pages = new Map<string, Record<string, unknown>>();
  private readonly upstream = new Map<string, string>();
  private readonly files = new Map<string, Uint8Array>();

  constructor(private readonly options: { metadataApart?: boolean } = {}) {}

  /** Whether pypi.org answers from this process (the tests that need it are skipped otherwise). */
  static async reachable(): Promise<boolean> {
    return fetch(`${PYPI}six/`, {
      headers: { accept: "application/vnd.pypi.simple.v1+json" },
      signal: AbortSignal.timeout(20_000),
    }).then(
      (r) => r.ok,
      () => false,
    );
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      if (!this.online) {
        res.socket?.destroy();
        return;
      }
      const headers = {
        "Access-Control-Allow-Origin": "*",
        "Cross-Origin-Resource-Policy": "cross-origin",
        "Cache-Control": "no-store",
      };
      if (req.method === "OPTIONS") {
        res
          .writeHead(204, {
            ...headers,
            "Access-Control-Allow-Headers": "*",
            "Access-Control-Allow-Methods": "GET, HEAD",
          })
          .end();
        return;
      }
      this.answer(new URL(req.url ?? "/", this.origin).pathname)
        .then(({ status, type, body }) => {
          res.writeHead(status, { ...headers, "Content-Type": type, "Content-Length": body.byteLength });
          res.end(req.method === "HEAD" ? undefined : body);
        })
        .catch((err: unknown) => {
          res.writeHead(502, { ...headers, "Content-Type": "text/plain" }).end(String(err));
        });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    const address = this.server.address();
    this.origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    this.url = `${this.origin}/simple/`;
  }

  /** The wheel bytes as PyPI serves them (fetched once). */
  async wheel(fileName: string): Promise<Uint8Array> {
    let bytes = this.files.get(fileName);
    if (!bytes) {
      const url = this.upstream.get(fileName);
      if (!url) throw new Error(`${fileName} is on no project page read so far`);
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
      bytes = new Uint8Array(await res.arrayBuffer());
      this.files.set(fileName, bytes);
    }
    return bytes;
  }

  private async page(name: string): Promise<Record<string, unknown> | undefined> {
    let page = this.pages.get(name);
    if (!page) {
      const res = await fetch(`${PYPI}${name}/`, { headers: { accept: "application/vnd.pypi.simple.v1+json" } });
      if (res.status === 404) return undefined;
      if (!res.ok) throw new Error(`${PYPI}${name}/: HTTP ${res.status}`);
      page = (await res.json()) as Record<string, unknown>;
      for (const f of page.files as Record<string, unknown>[]) {
        const fileName = f.filename as string;
        this.upstream.set(fileName, f.url as string);
        f.url = `${this.origin}/files/${encodeURIComponent(fileName)}`;
        if (fileName.endsWith(".whl") && this.options.metadataApart !== false) f["core-metadata"] = true;
      }
      this.pages.set(name, page);
    }
    return page;
  }

  private async answer(path: string): Promise<{ status: number; type: string; body: Uint8Array }> {
    const project = /^\/simple\/([^/]+)\/$/.exec(path);
    if (project) {
      const page = await this.page(project[1]!);
      if (!page) return { status: 404, type: "text/plain", body: new TextEncoder().encode("not found") };
      return {
        status: 200,
        type: "application/vnd.pypi.simple.v1+json",
        body: new TextEncoder().encode(JSON.stringify(page)),
      };
    }
    const file = /^\/files\/([^/]+)$/.exec(path);
    if (file) {
      const name = decodeURIComponent(file[1]!);
      if (name.endsWith(".whl.metadata")) {
        const wheel = await this.wheel(name.slice(0, -".metadata".length));
        const found = Object.values(
          unzipSync(wheel, { filter: (f) => /^[^/]+\.dist-info\/METADATA$/.test(f.name) }),
        )[0];
        if (!found) throw new Error(`${name}: no METADATA in the wheel`);
        return { status: 200, type: "text/plain; charset=utf-8", body: found };
      }
      let body = await this.wheel(name);
      if (this.tamper.has(name)) body = Uint8Array.from(body, (b, i) => (i === body.byteLength - 1 ? b ^ 1 : b));
      return { status: 200, type: "application/octet-stream", body };
    }
    return { status: 404, type: "text/plain", body: new TextEncoder().encode("not found") };
  }

  /** Requests for wheel files (not their metadata). */
  wheelGets(): string[] {
    return this.requests.filter((r) => r.startsWith("GET ") && r.endsWith(".whl"));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

/** What `edge packages lock` does for a project against an index (the CLI's own code, in this
 *  process), with the wheels kept in memory: `fetch: false` only resolves, as the page does. */
export async function lockInMemory(
  project: { files: Record<string, Uint8Array>; entry: string },
  indexUrl: string,
  fetch = true,
) {
  const [
    { lockProject },
    { installedPyodideVersion, nodeLock },
    { httpPackageIndex },
    { defaultPackageSource, urlPackageSource },
    { createMemoryPackageStore },
  ] = await Promise.all([
    import("../src/packages/lock-project.ts"),
    import("../src/packages/node.ts"),
    import("../src/packages/pypi.ts"),
    import("../src/packages/source.ts"),
    import("../src/packages/store-memory.ts"),
  ]);
  const version = installedPyodideVersion();
  const pypiStore = createMemoryPackageStore();
  const outcome = await lockProject(project, {
    index: httpPackageIndex(indexUrl, "check the index."),
    pyodideLock: (await nodeLock({})).lock,
    pyodideSource: urlPackageSource(defaultPackageSource(version), "no wheel of Pyodide's lock is needed here."),
    pyodideUrl: defaultPackageSource(version),
    pypiStore,
    pyodideStore: createMemoryPackageStore(),
    fetch,
  });
  return { outcome, pypiStore };
}

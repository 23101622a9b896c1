// A Python package index as `edge packages lock` reads it: PyPI's JSON Simple API (PEP 691) or any
// index that serves it (`--index-url`, $EDGE_PACKAGE_INDEX). A project page lists every file with
// its sha256 and Requires-Python; a wheel is downloaded only to read its metadata (when the index
// does not serve it apart, PEP 714) or to keep it, and is always checked against the index's hash
// first. Environment-neutral: global fetch (Node 20 and browsers).
import { EdgeError } from "../contract/errors.ts";
import { sha256Bytes } from "../contract/hash.ts";
import { canonicalName } from "./lock.ts";

export const PYPI_SIMPLE = "https://pypi.org/simple/";

export interface IndexFile {
  filename: string;
  url: string;
  /** Hex. */
  sha256: string;
  requiresPython: string;
  yanked: boolean;
  size?: number;
  /** The index serves the wheel's METADATA at url + ".metadata" (PEP 658/714). */
  coreMetadata: boolean;
}

export interface PackageIndex {
  /** The index's base URL, for the lock and messages. */
  readonly url: string;
  /** The files of a project, or undefined when the index has no such project. */
  files(name: string): Promise<IndexFile[] | undefined>;
  /** A file's bytes, checked against the index's sha256. */
  download(file: IndexFile): Promise<Uint8Array>;
  /** A wheel's METADATA served apart, when the index does (else undefined). */
  metadata(file: IndexFile): Promise<string | undefined>;
}

const MAX_PAGE_BYTES = 64 * 1024 * 1024;
const MAX_FILE_BYTES = 512 * 1024 * 1024;

/** `fix` ends a failure's message: how this front door names another index. */
export function httpPackageIndex(spec: string, fix: string, fetcher: typeof fetch = fetch): PackageIndex {
  const base = spec.endsWith("/") ? spec : `${spec}/`;
  const unreachable = (url: string, why: string): EdgeError =>
    new EdgeError("python_package_fetch_failed", { source: base, url }, `${url} could not be read (${why}); ${fix}`);
  const get = async (url: string, accept: string, limit: number): Promise<Response> => {
    let res: Response;
    try {
      res = await fetcher(url, { headers: { accept }, redirect: "follow" });
    } catch (err) {
      throw unreachable(
        url,
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err),
      );
    }
    const declared = Number(res.headers.get("content-length") ?? "0");
    if (declared > limit) throw unreachable(url, `${declared} bytes, more than Edge reads`);
    return res;
  };
  return {
    url: base,
    async files(name) {
      const page = new URL(`${canonicalName(name)}/`, base).href;
      const res = await get(page, "application/vnd.pypi.simple.v1+json", MAX_PAGE_BYTES);
      if (res.status === 404) return undefined;
      if (!res.ok) throw unreachable(page, `HTTP ${res.status}`);
      const type = res.headers.get("content-type") ?? "";
      if (!type.includes("json"))
        throw unreachable(
          page,
          `it answered ${type || "without a content type"}, not PEP 691's JSON; use an index that serves the JSON Simple API`,
        );
      const body = (await res.json()) as { files?: unknown };
      if (!Array.isArray(body.files)) throw unreachable(page, "its JSON has no files list");
      return body.files.flatMap((f: Record<string, unknown>) => indexFile(f, page));
    },
    async download(file) {
      const res = await get(file.url, "*/*", MAX_FILE_BYTES);
      if (!res.ok) throw unreachable(file.url, `HTTP ${res.status}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const found = await sha256Bytes(bytes);
      if (found !== `sha256:${file.sha256}`) {
        throw new EdgeError(
          "python_package_hash_mismatch",
          { file: file.filename, expected_sha256: `sha256:${file.sha256}`, found_sha256: found },
          `${file.filename} from ${file.url} does not match the index's sha256 (expected sha256:${file.sha256}, found ${found}); nothing was stored. Try again, or use another index.`,
        );
      }
      return bytes;
    },
    async metadata(file) {
      if (!file.coreMetadata) return undefined;
      const res = await get(`${file.url}.metadata`, "*/*", MAX_PAGE_BYTES).catch(() => undefined);
      return res?.ok ? res.text() : undefined;
    },
  };
}

function indexFile(f: Record<string, unknown>, page: string): IndexFile[] {
  const hashes = f.hashes as Record<string, unknown> | undefined;
  if (typeof f.filename !== "string" || typeof f.url !== "string" || typeof hashes?.sha256 !== "string") return [];
  const meta = f["core-metadata"] ?? f["dist-info-metadata"] ?? f["data-dist-info-metadata"];
  return [
    {
      filename: f.filename,
      url: new URL(f.url, page).href,
      sha256: hashes.sha256.toLowerCase(),
      requiresPython: typeof f["requires-python"] === "string" ? f["requires-python"] : "",
      yanked: Boolean(f.yanked),
      ...(typeof f.size === "number" ? { size: f.size } : {}),
      coreMetadata: Boolean(meta),
    },
  ];
}

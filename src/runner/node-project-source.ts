// A tools project on disk: the tools file plus the folder it sits in (or a root the person
// names with --tools-root), read by the CLI — never by the runner, whose Node permission model keeps
// reading only Pyodide's own files. The bytes go into the job and the runner mounts them read-only
// at /tools (src/toolset/project.ts). What is left out, and why, is docs/tools-projects.md:
// hidden names (.git, .venv, .env, …), __pycache__, node_modules, virtualenvs (a folder holding
// pyvenv.cfg), Edge's own data, key and runtime folders and hard links to their files, and names
// that are not UTF-8. A symlink is followed only to a file inside the root; one that leads out of
// it, to a folder, or nowhere is refused (tools_project_symlink_refused). Every folder and file is
// opened once, through a descriptor (project-open.ts): what it is when opened decides, never what a
// listing said. Files, bytes, folders, depth and the call's deadline bound the walk.
import type { Dirent } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { EdgeError } from "../contract/errors.ts";
import type { ProjectLimits, ProjectSnapshot, SkipReason } from "../contract/project.ts";
import type { ToolSource } from "./host.ts";
import { readToolsFile } from "./node-file-source.ts";
import { privateFileInodes, privateFolderInodes } from "./private-files.ts";
import { projectTooLarge, skipByName, type ProjectSize } from "./project-bounds.ts";
import { entryPath, inodeOf, openEntry, openedPath, openFolder, readCapped, type OpenFolder } from "./project-open.ts";

/** A tools file on disk as a project: its folder, or `root` (which must contain it). */
export function projectFileSource(file: string, root?: string): ToolSource {
  return {
    name: file,
    read: () => readToolsFile(file),
    readProject: (limits) => readProjectFolder(file, root, limits),
  };
}

const inside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

async function readProjectFolder(
  file: string,
  rootArg: string | undefined,
  limits: ProjectLimits,
): Promise<ProjectSnapshot> {
  const root = path.resolve(rootArg ?? path.dirname(path.resolve(file)));
  // The tools file first, exactly as a single file is read (its own errors and 1 MiB limit); what
  // the walk needs is looked up meanwhile.
  const [entryBytes, rootStat, realRoot, privateDirs] = await Promise.all([
    readToolsFile(file),
    stat(root).catch(() => undefined),
    realpath(root).catch(() => root),
    privateFolderInodes(),
  ]);
  // --tools-root naming the tools file itself: the file alone, nothing beside it.
  if (root === path.resolve(file))
    return {
      root: path.dirname(root),
      entry: path.basename(root),
      files: { [path.basename(root)]: entryBytes },
      skipped: [],
    };
  const rel = path.relative(root, path.resolve(file));
  if (!rootStat?.isDirectory() || rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) {
    throw new EdgeError(
      "tools_root_invalid",
      { root, file },
      `${file} is not inside the tools root ${root}${rootStat?.isDirectory() ? "" : " (not a folder)"}; pass --tools-root DIR with the tools file inside DIR.`,
    );
  }
  const entry = rel.split(path.sep).join("/");
  const walk = new Walk(root, realRoot, entry, limits, privateDirs);
  walk.bytes = walk.planned = entryBytes.byteLength;
  // The root the person named may itself be a link; nothing below it is followed.
  const top = await openFolder(root, true);
  if (typeof top === "string")
    throw new EdgeError(
      "tools_root_invalid",
      { root, file },
      `The tools root ${root} is not a folder; pass --tools-root DIR with the tools file inside DIR.`,
    );
  try {
    await walk.folder(top, "", 0);
  } finally {
    await top.handle.close();
  }
  walk.files[entry] = entryBytes;
  return { root, entry, files: walk.files, skipped: walk.skipped };
}

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });
const lossyUtf8 = new TextDecoder("utf-8");

/** A listed name as text, or undefined when it is not UTF-8 (a path Python could not name either). */
function nameOf(raw: Buffer): string | undefined {
  try {
    return fatalUtf8.decode(raw);
  } catch {
    return undefined;
  }
}

/** A file listed in a folder, opened in a batch with its neighbours. */
interface Listed {
  raw: Buffer;
  rel: string;
}

class Walk {
  files: Record<string, Uint8Array> = {};
  skipped: { path: string; reason: SkipReason }[] = [];
  /** Bytes read so far, and bytes admitted (by their size when opened, before the read). */
  bytes = 0;
  planned = 0;
  private count = 1; // the tools file
  private folders = 0;
  private readonly started = Date.now();
  private privateFiles: Promise<Set<string>> | undefined;

  constructor(
    private readonly root: string,
    private readonly realRoot: string,
    private readonly entry: string,
    private readonly limits: ProjectLimits,
    private readonly privateDirs: Set<string>,
  ) {}

  private size(extra: Partial<ProjectSize> = {}): ProjectSize {
    return { files: this.count, bytes: this.bytes, folders: this.folders, ...extra };
  }

  /** Stop at the call's deadline: a walk never outlives the call it reads for. */
  private tick(): void {
    if (this.limits.deadline !== undefined && Date.now() > this.limits.deadline)
      throw projectTooLarge(this.size({ elapsed_ms: Date.now() - this.started }), this.limits, this.root);
  }

  async folder(dir: OpenFolder, relDir: string, depth: number): Promise<void> {
    const listed = (await readdir(dir.via, { withFileTypes: true, encoding: "buffer" })) as Dirent<Buffer>[];
    const entries = listed.map((d) => ({ d, name: nameOf(d.name) })).sort((a, b) => Buffer.compare(a.d.name, b.d.name));
    // Plain files next to each other are opened and read together (READ_AT_ONCE at a time), still
    // admitted in name order before any folder or link after them.
    let batch: Listed[] = [];
    const flush = async (): Promise<void> => {
      for (let at = 0; at < batch.length; at += READ_AT_ONCE)
        await this.readBatch(dir, batch.slice(at, at + READ_AT_ONCE));
      batch = [];
    };
    for (const { d, name } of entries) {
      this.tick();
      const shown = name ?? lossyUtf8.decode(d.name);
      const rel = relDir ? `${relDir}/${shown}` : shown;
      if (name === undefined) {
        this.skipped.push({ path: rel, reason: "name_not_utf8" });
        continue;
      }
      if (rel === this.entry) continue; // read on its own, before the walk
      const byName = skipByName(name, d.isDirectory());
      if (byName) this.skipped.push({ path: rel, reason: byName });
      else if (d.isFile()) batch.push({ raw: d.name, rel });
      else if (d.isDirectory()) await flush().then(() => this.subfolder(dir, d.name, rel, depth + 1));
      else if (d.isSymbolicLink()) await flush().then(() => this.link(dir, d.name, rel));
      else this.skipped.push({ path: rel, reason: "not_a_file" });
    }
    await flush();
  }

  private async subfolder(parent: OpenFolder, raw: Buffer, rel: string, depth: number): Promise<void> {
    const dir = await openFolder(entryPath(parent, raw));
    if (dir === "link") return this.link(parent, raw, rel); // swapped for a link since the listing
    if (dir === "gone") return;
    if (dir === "not_a_folder") return void this.skipped.push({ path: rel, reason: "not_a_file" });
    try {
      if (this.privateDirs.has(inodeOf(dir.st))) return void this.skipped.push({ path: rel, reason: "edge_data" });
      if (
        await stat(entryPath(dir, Buffer.from("pyvenv.cfg"))).then(
          (s) => s.isFile(),
          () => false,
        )
      )
        return void this.skipped.push({ path: rel, reason: "virtualenv" });
      this.folders += 1;
      if (this.limits.maxFolders !== undefined && this.folders > this.limits.maxFolders)
        throw projectTooLarge(this.size(), this.limits, this.root);
      if (this.limits.maxDepth !== undefined && depth > this.limits.maxDepth)
        throw projectTooLarge(this.size({ depth }), this.limits, this.root, [JSON.stringify(rel)]);
      await this.folder(dir, rel, depth);
    } finally {
      await dir.handle.close();
    }
  }

  /** Files listed together: opened (what each is now decides), admitted in name order, read. */
  private async readBatch(dir: OpenFolder, batch: Listed[]): Promise<void> {
    const opened = await Promise.all(batch.map((f) => openEntry(entryPath(dir, f.raw))));
    const toRead: { rel: string; handle: FileHandle; size: number }[] = [];
    try {
      for (const [i, o] of opened.entries()) {
        const { rel, raw } = batch[i]!;
        if (o.kind === "link") await this.link(dir, raw, rel);
        else if (o.kind === "other") this.skipped.push({ path: rel, reason: "not_a_file" });
        else if (o.kind === "gone")
          continue; // removed since the listing
        else if (await this.isEdgeFile(o.st)) this.skipped.push({ path: rel, reason: "edge_data" });
        else {
          this.admit(rel, o.st.size);
          toRead.push({ rel, handle: o.handle, size: o.st.size });
        }
      }
      const data = await Promise.all(toRead.map((f) => readCapped(f.handle, f.size)));
      for (const [i, f] of toRead.entries()) await this.keep(f.rel, f.handle, data[i]!);
    } finally {
      await Promise.all(opened.map((o) => (o.kind === "file" ? o.handle.close().catch(() => undefined) : undefined)));
    }
  }

  /** A file with more than one name may be one of Edge's own (a hard link to its key, a token). */
  private async isEdgeFile(st: { nlink: number; dev: number; ino: number }): Promise<boolean> {
    if (st.nlink < 2) return false;
    this.privateFiles ??= privateFileInodes();
    return (await this.privateFiles).has(inodeOf(st));
  }

  /** A symlink is mounted as the file it points to, when that file is inside the root. */
  private async link(dir: OpenFolder, raw: Buffer, rel: string): Promise<void> {
    const refuse = (why: string): never => {
      throw new EdgeError(
        "tools_project_symlink_refused",
        { path: rel, root: this.root },
        `${JSON.stringify(rel)} in the tools project ${this.root} is a symlink ${why}, so the project was not mounted; replace the link with the file itself or remove it.`,
      );
    };
    const target = await realpath(entryPath(dir, raw)).catch(() => refuse("to nothing (its target does not exist)"));
    if (!inside(target, this.realRoot)) refuse(`to ${JSON.stringify(target)}, outside the project's folder`);
    const o = await openEntry(target);
    if (o.kind === "gone") return refuse("to nothing (its target does not exist)");
    if (o.kind !== "file")
      return refuse(o.kind === "other" && o.st.isDirectory() ? "to a folder" : "to something that is not a file");
    try {
      // Where the opened file really is: an ancestor swapped for a link after realpath() shows here.
      const now = await openedPath(o.handle);
      if (now !== undefined && !inside(now, this.realRoot))
        refuse(`to ${JSON.stringify(now)}, outside the project's folder`);
      if (await this.isEdgeFile(o.st)) return void this.skipped.push({ path: rel, reason: "edge_data" });
      this.admit(rel, o.st.size);
      await this.keep(rel, o.handle, await readCapped(o.handle, o.st.size));
    } finally {
      await o.handle.close();
    }
  }

  /** One more file of `size` bytes (its size when opened, before it is read) within the limits. */
  private admit(rel: string, size: number): void {
    this.count += 1;
    if (this.count > this.limits.maxFiles) throw projectTooLarge(this.size(), this.limits, this.root);
    if (this.planned + size > this.limits.maxBytes)
      throw projectTooLarge(this.size({ bytes: this.planned + size }), this.limits, this.root, [
        `${JSON.stringify(rel)} (${size} bytes)`,
      ]);
    this.planned += size;
  }

  /** A file's bytes as read. One that grew since it was opened is read on, from the same
   *  descriptor, only as far as the bytes left under the limit (plus one, to know it is over). */
  private async keep(rel: string, handle: FileHandle, read: { bytes: Uint8Array; more: boolean }): Promise<void> {
    let { bytes } = read;
    if (read.more) {
      const room = this.limits.maxBytes - this.bytes;
      const rest = await readCapped(handle, room, bytes);
      if (rest.more)
        throw projectTooLarge(this.size({ bytes: this.bytes + room + 1 }), this.limits, this.root, [
          `${JSON.stringify(rel)} (more than ${room} bytes)`,
        ]);
      bytes = rest.bytes;
    }
    this.bytes += bytes.byteLength;
    if (this.bytes > this.limits.maxBytes)
      throw projectTooLarge(this.size(), this.limits, this.root, [
        `${JSON.stringify(rel)} (${bytes.byteLength} bytes)`,
      ]);
    this.files[rel] = new Uint8Array(bytes);
  }
}

/** Files opened and read at once: a folder of hundreds never holds hundreds of descriptors open. */
const READ_AT_ONCE = 8;

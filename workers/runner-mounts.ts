// The read-only mounts of a runner job in Pyodide's file system: the person's workspace at
// /workspace and a tools project at its own root, each its own MEMFS mount whose nodes refuse
// chmod/utime. Used by the job (runner-jobs.ts) before any tool code is imported.
import type { ProjectMount, WorkspaceMount } from "./protocol.ts";

/** Where the runner's Python files live inside the interpreter's file system. */
export const PYTHON_ROOT = "/edge";

/** The part of Emscripten's FS API (and its MEMFS) the workspace mount uses. */
interface FsNode {
  mode: number;
  node_ops: Record<string, unknown>;
  contents?: Uint8Array | null;
  usedBytes?: number;
}
export interface MemFs {
  mkdir(path: string): void;
  mount(type: unknown, opts: object, mountpoint: string): void;
  chmod(path: string, mode: number): void;
  lookupPath(path: string): { node: FsNode };
  filesystems: { MEMFS: { createNode(parent: FsNode, name: string, mode: number, dev: number): FsNode } };
  ErrnoError: new (errno: number) => Error;
}

const WORKSPACE_MOUNT = "/workspace";
const EPERM = 63; // WASI errno numbering, as Emscripten uses it
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

/**
 * The workspace snapshot at /workspace, read-only: its own MEMFS mount (so /workspace itself cannot
 * be renamed or removed: EBUSY), files 0444 and folders 0555 (open for writing, create, remove and
 * rename fail with EACCES → PermissionError), and chmod/utime refused (EPERM) so the modes cannot
 * be lifted through the file API. The copy dies with this one-job worker whatever happens to it.
 *
 * Nodes are made with MEMFS.createNode and handed the job's bytes (this worker owns its structured
 * clone): ≈ 100× faster than FS.writeFile per file, which keeps a 1 MB mount well under 10 ms.
 */
export function mountWorkspace(fs: MemFs, mount: WorkspaceMount): void {
  mountReadOnly(fs, WORKSPACE_MOUNT, mount);
}

/**
 * A tools project at its root ("/tools"), read-only in the same way as the workspace. Returns what
 * edge_runner needs to check it before importing anything: JSON text of the mount point, the frozen
 * manifest and its hash.
 */
export function mountProject(fs: MemFs, project: ProjectMount): string {
  const root = String(project.root);
  if (!/^\/[A-Za-z0-9_-]+$/.test(root) || root === WORKSPACE_MOUNT || root === PYTHON_ROOT)
    throw new Error(`bad project mount point ${JSON.stringify(root)}`);
  mountReadOnly(fs, root, { files: project.files, dirs: [] });
  return JSON.stringify({ root, manifest: project.manifest, expected_sha256: String(project.expectedSha256) });
}

function mountReadOnly(fs: MemFs, mountpoint: string, mount: WorkspaceMount): void {
  const memfs = fs.filesystems.MEMFS;
  fs.mkdir(mountpoint);
  fs.mount(memfs, {}, mountpoint);
  fs.chmod(mountpoint, 0o555);
  const root = fs.lookupPath(mountpoint).node;
  const dirs = new Map<string, FsNode>([["", root]]);
  const files = new Set<string>();
  const split = (rel: string): [string, string] => {
    if (
      typeof rel !== "string" ||
      !rel ||
      rel.startsWith("/") ||
      rel.includes("\0") ||
      rel.split("/").some((p) => p === "" || p === "." || p === "..")
    ) {
      throw new Error(`bad path ${JSON.stringify(rel)} under ${mountpoint}`);
    }
    const i = rel.lastIndexOf("/");
    return [i < 0 ? "" : rel.slice(0, i), rel.slice(i + 1)];
  };
  const dirOf = (rel: string): FsNode => {
    const known = dirs.get(rel);
    if (known) return known;
    if (files.has(rel)) throw new Error(`path ${JSON.stringify(rel)} under ${mountpoint} is both a file and a folder`);
    const [parent, name] = split(rel);
    const node = memfs.createNode(dirOf(parent), name, S_IFDIR | 0o555, 0);
    dirs.set(rel, node);
    return node;
  };
  for (const dir of mount.dirs) dirOf(dir);
  const nodes: FsNode[] = [];
  for (const [rel, data] of Object.entries(mount.files)) {
    const [parent, name] = split(rel);
    if (dirs.has(rel) || files.has(rel)) throw new Error(`path ${JSON.stringify(rel)} under ${mountpoint} given twice`);
    const node = memfs.createNode(dirOf(parent), name, S_IFREG | 0o444, 0);
    node.contents = data instanceof Uint8Array ? data : new Uint8Array(0);
    node.usedBytes = node.contents.byteLength;
    files.add(rel);
    nodes.push(node);
  }
  const deny = (): never => {
    throw new fs.ErrnoError(EPERM);
  };
  const locked = new Map<Record<string, unknown>, Record<string, unknown>>();
  for (const node of [...dirs.values(), ...nodes]) {
    let ops = locked.get(node.node_ops);
    if (!ops) locked.set(node.node_ops, (ops = { ...node.node_ops, setattr: deny }));
    node.node_ops = ops;
  }
}

// Which imports of a tools project count: those the tools file reaches. A folder often holds other
// scripts (a notebook export that imports numpy, an old experiment); they are mounted and hashed
// with the project, but their imports must not ask for packages the tools never load. So the walk
// starts at the tools file and follows only the project's own modules it imports, as Python would
// find them on the runner's sys.path (the tools file's folder first, then the project's root):
// `import helpers` → helpers.py; `import pkg.sub` → pkg/__init__.py, pkg/sub/__init__.py or
// pkg/sub.py; `from pkg import mod` → pkg/mod.py when it is a submodule; `from .x import y` from the
// importing file's folder. What no project file provides is a name for the lock.
import { importStatements, type ImportStatement } from "./imports.ts";

type Files = Record<string, Uint8Array>;

const parentOf = (path: string): string => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
const join = (dir: string, name: string): string => (dir ? `${dir}/${name}` : name);

/** Every folder that holds a project file (namespace packages need no __init__.py). */
function folders(files: Files): Set<string> {
  const out = new Set<string>();
  for (const path of Object.keys(files))
    for (let dir = parentOf(path); dir && !out.has(dir); dir = parentOf(dir)) out.add(dir);
  return out;
}

/** Follows import statements through a project, collecting the files they load. */
class ProjectWalk {
  readonly loaded = new Set<string>();
  /** Loaded files whose own imports are still to be read. */
  readonly todo: string[] = [];
  readonly external = new Set<string>();
  private readonly dirs: Set<string>;
  private readonly searchPath: string[];

  constructor(
    private readonly files: Files,
    entry: string,
  ) {
    this.dirs = folders(files);
    this.searchPath = [...new Set([parentOf(entry), ""])];
    this.add(entry);
  }

  private add(file: string): void {
    if (this.loaded.has(file)) return;
    this.loaded.add(file);
    this.todo.push(file);
  }

  /** `name` inside `dir` as Python's path finder sees it: a module file, a package folder, or nothing. */
  private find(dir: string, name: string): { file?: string; folder?: string } | undefined {
    const pkg = join(dir, name);
    if (`${pkg}/__init__.py` in this.files) return { file: `${pkg}/__init__.py`, folder: pkg };
    if (`${pkg}.py` in this.files) return { file: `${pkg}.py` };
    if (this.dirs.has(pkg)) return { folder: pkg }; // a namespace package
    return undefined;
  }

  /** The sys.path entry a top-level name comes from: a module or regular package wins over an
   *  earlier namespace portion, as in Python's path finder. */
  private topLevel(name: string): string | undefined {
    let namespace: string | undefined;
    for (const dir of this.searchPath) {
      const hit = this.find(dir, name);
      if (hit?.file) return dir;
      if (hit && namespace === undefined) namespace = dir;
    }
    return namespace;
  }

  /** Loads `module` (a dotted path) below `base`, then any `names` that are submodules of it. */
  private load(base: string, module: string[], names: string[]): void {
    let folder: string | undefined = base;
    for (const part of module) {
      const hit: { file?: string; folder?: string } | undefined =
        folder === undefined ? undefined : this.find(folder, part);
      if (!hit) return;
      if (hit.file) this.add(hit.file);
      folder = hit.folder;
    }
    if (folder === undefined) return;
    for (const name of names) {
      const file = name === "*" ? undefined : this.find(folder, name)?.file;
      if (file) this.add(file);
    }
  }

  statement(from: string, s: ImportStatement): void {
    if (s.level > 0) {
      let base = parentOf(from);
      for (let up = 1; up < s.level; up++) {
        if (!base) return; // above the project's root: not the project's
        base = parentOf(base);
      }
      this.load(base, s.module, s.names);
      return;
    }
    const top = s.module[0];
    if (!top) return;
    const dir = this.topLevel(top);
    if (dir === undefined) this.external.add(top);
    else this.load(dir, s.module, s.names);
  }
}

/** What the tools file imports, directly or through the project's own modules, that the project
 *  does not provide itself (sorted, top-level names). Files it never reaches do not count. */
export function projectImports(files: Files, entry: string): string[] {
  const walk = new ProjectWalk(files, entry);
  const decoder = new TextDecoder();
  for (let path = walk.todo.pop(); path !== undefined; path = walk.todo.pop()) {
    const bytes = files[path];
    if (bytes) for (const s of importStatements(decoder.decode(bytes))) walk.statement(path, s);
  }
  return [...walk.external].sort();
}

// The modules a tools project imports, found before anything runs (the host resolves them against
// Pyodide's lock and sends the wheels in the job). Like Pyodide's find_imports (which walks the
// ast): every `import a.b` and `from a.b import c` anywhere in the file — at top level, inside
// functions, under `try:` — gives its top-level name ("a"); relative imports (`from . import x`)
// name the project itself and are left out. Text inside strings and comments is not code. Imports
// made by name at run time (importlib.import_module("x"), __import__("x")) are not seen, as with
// Pyodide's own scan: docs/packages.md says to write a plain `import x` for those.

/** Python source with strings and comments blanked out and logical lines joined (brackets, "\"). */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let line = "";
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "#") {
      while (i + 1 < text.length && text[i + 1] !== "\n") i++;
    } else if (ch === "'" || ch === '"') {
      const triple = text.startsWith(ch.repeat(3), i);
      const quote = triple ? ch.repeat(3) : ch;
      i += quote.length;
      while (i < text.length && !text.startsWith(quote, i)) {
        if (text[i] === "\\") i++;
        else if (!triple && text[i] === "\n") break; // an unterminated string: stop at the line end
        i++;
      }
      i += quote.length - 1;
      line += '""';
    } else if (ch === "\\" && text[i + 1] === "\n") {
      i++;
      line += " ";
    } else if (ch === "\n" || ch === "\r") {
      if (depth > 0) line += " ";
      else {
        lines.push(line);
        line = "";
      }
    } else {
      if ("([{".includes(ch)) depth++;
      else if (")]}".includes(ch)) depth = Math.max(0, depth - 1);
      line += ch;
    }
  }
  lines.push(line);
  return lines;
}

const NAME = "[A-Za-z_][A-Za-z0-9_]*";
const DOTTED = `${NAME}(?:\\s*\\.\\s*${NAME})*`;
/** A statement start: the line's start, after ";" or after the ":" of a compound statement. */
const IMPORT_RE = new RegExp(`(?:^|[;:])\\s*import\\s+(${DOTTED}(?:\\s+as\\s+${NAME})?(?:\\s*,\\s*${DOTTED}(?:\\s+as\\s+${NAME})?)*)`, "g");
const FROM_RE = new RegExp(`(?:^|[;:])\\s*from\\s+(${DOTTED})\\s+import\\b`, "g");

/** The top-level module names one Python source imports (sorted, each once). */
export function findImports(source: string): string[] {
  const found = new Set<string>();
  for (const line of logicalLines(source)) {
    for (const m of line.matchAll(IMPORT_RE)) {
      for (const part of m[1]!.split(",")) found.add(part.trim().split(/[\s.]/)[0]!);
    }
    for (const m of line.matchAll(FROM_RE)) found.add(m[1]!.split(/[\s.]/)[0]!);
  }
  found.delete("");
  return [...found].sort();
}

/** The module names a project's own files provide at the top of sys.path (its folder's and the
 *  root's `name.py` and `name/`), which shadow any installed package of that name. */
function projectModules(paths: readonly string[], entry: string): Set<string> {
  const entryDir = entry.includes("/") ? entry.slice(0, entry.lastIndexOf("/") + 1) : "";
  const out = new Set<string>();
  for (const path of paths) {
    for (const base of new Set(["", entryDir])) {
      if (!path.startsWith(base)) continue;
      const rest = path.slice(base.length);
      const first = rest.split("/")[0]!;
      if (rest.includes("/")) out.add(first);
      else if (first.endsWith(".py")) out.add(first.slice(0, -3));
    }
  }
  return out;
}

/** Everything a project's Python files import that the project does not provide itself. */
export function projectImports(files: Record<string, Uint8Array>, entry: string): string[] {
  const own = projectModules(Object.keys(files), entry);
  const decoder = new TextDecoder();
  const found = new Set<string>();
  for (const [path, bytes] of Object.entries(files)) {
    if (!path.endsWith(".py")) continue;
    for (const name of findImports(decoder.decode(bytes))) if (!own.has(name)) found.add(name);
  }
  return [...found].sort();
}

// The import statements of one Python source, found before anything runs (src/packages/reach.ts
// follows them through the project; the host resolves what is left against the lock). Like
// Pyodide's find_imports (which walks the ast): every `import a.b` and `from a.b import c` anywhere
// in the file — at top level, inside functions, under `try:` — and the relative ones
// (`from .x import y`). Text inside strings and comments is not code. Imports made by name at run
// time (importlib.import_module("x"), __import__("x")) are not seen, as with Pyodide's own scan:
// docs/packages.md says to write a plain `import x` for those.

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
const IMPORT_RE = new RegExp(
  `(?:^|[;:])\\s*import\\s+(${DOTTED}(?:\\s+as\\s+${NAME})?(?:\\s*,\\s*${DOTTED}(?:\\s+as\\s+${NAME})?)*)`,
  "g",
);
/** `from [dots][module] import names` up to the statement's end; `from ..import x` is legal too. */
const FROM_RE = new RegExp(`(?:^|[;:])\\s*from\\s+(\\.*)\\s*(${DOTTED})?(?:\\s+|(?<=\\.))import\\b([^;]*)`, "g");

/** One import statement's target: `from ..a.b import c, d` is {level: 2, module: ["a", "b"], names: ["c", "d"]}. */
export interface ImportStatement {
  /** 0 for an absolute import, the number of leading dots for a relative one. */
  level: number;
  /** The dotted module, split; empty for `from . import x`. */
  module: string[];
  /** What a `from` import takes from the module (maybe submodules); empty for `import a.b`. */
  names: string[];
}

const dotted = (text: string): string[] =>
  text
    .split(".")
    .map((p) => p.trim())
    .filter(Boolean);

/** Every import statement of one Python source, in order. */
export function importStatements(source: string): ImportStatement[] {
  const found: ImportStatement[] = [];
  for (const line of logicalLines(source)) {
    for (const m of line.matchAll(IMPORT_RE)) {
      for (const part of m[1]!.split(","))
        found.push({ level: 0, module: dotted(part.trim().split(/\s+as\s+/)[0]!), names: [] });
    }
    for (const m of line.matchAll(FROM_RE)) {
      const names = m[3]!
        .replace(/[()]/g, " ")
        .split(",")
        .map((n) => n.trim().split(/\s/)[0]!)
        .filter(Boolean);
      const module = m[2] ? dotted(m[2]) : [];
      if (m[1]!.length || module.length) found.push({ level: m[1]!.length, module, names });
    }
  }
  return found;
}

/** The top-level module names one Python source imports absolutely (sorted, each once). */
export function findImports(source: string): string[] {
  const found = new Set<string>();
  for (const s of importStatements(source)) if (s.level === 0 && s.module[0]) found.add(s.module[0]);
  return [...found].sort();
}

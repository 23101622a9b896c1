// Reads the production modules of src/ and workers/ the way the layer check needs them: every
// static and dynamic relative import (resolved to a repository path) and the line counts of files
// and functions. Parsing is the TypeScript compiler's own (no regexes), so `import type`, re-exports,
// `import("…")` and multi-line import lists are all seen. Used by test/architecture.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** A layer: the repository paths it holds (a folder ends with "/", a file is named exactly). */
export interface Layer {
  name: string;
  paths: readonly string[];
}

export interface ModuleImport {
  /** The importing file, repository-relative. */
  from: string;
  /** The imported file, repository-relative, without a `?query`. */
  to: string;
  /** As written in the source. */
  specifier: string;
  line: number;
  dynamic: boolean;
}

export interface FunctionSize {
  file: string;
  /** The function's name, or the variable, property or method it is assigned to. */
  name: string;
  line: number;
  lines: number;
}

export interface ModuleFacts {
  file: string;
  lines: number;
  imports: ModuleImport[];
  functions: FunctionSize[];
}

/** Test code may assemble any layers it exercises; only production modules are checked. */
const isTestFile = (file: string): boolean => /\.test\.ts$|\.test-helpers\.ts$/.test(file);

function walk(root: string, dir: string, out: string[]): string[] {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(root, rel, out);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

/** Every production module: src/**\/*.ts and workers/*.ts, minus tests and declaration files. */
export function productionModules(root: string): string[] {
  const workers = readdirSync(path.join(root, "workers"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => `workers/${f}`);
  return [...walk(root, "src", []), ...workers].filter((f) => !isTestFile(f)).sort();
}

function functionName(node: ts.Node, source: ts.SourceFile): string {
  const named = (n: ts.Node): string | undefined => {
    const name = (n as { name?: ts.Node }).name;
    return name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name))
      ? name.text
      : undefined;
  };
  const owner = (n: ts.Node): string => {
    const cls = n.parent;
    return cls && ts.isClassLike(cls) && cls.name ? `${cls.name.text}.` : "";
  };
  if (ts.isConstructorDeclaration(node)) return `${owner(node)}constructor`;
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node)
  ) {
    return `${owner(node)}${named(node) ?? "(anonymous)"}`;
  }
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  ) {
    return `${ts.isPropertyDeclaration(parent) ? owner(parent) : ""}${named(parent) ?? "(anonymous)"}`;
  }
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return "(anonymous)";
}

/** Imports, file length and function lengths of one module. */
export function readModule(root: string, file: string): ModuleFacts {
  const text = readFileSync(path.join(root, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const imports: ModuleImport[] = [];
  const functions: FunctionSize[] = [];
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line + 1;
  const addImport = (literal: ts.StringLiteralLike, dynamic: boolean): void => {
    const specifier = literal.text;
    if (!specifier.startsWith("./") && !specifier.startsWith("../")) return; // packages, node: builtins
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier.split("?")[0]!));
    imports.push({ from: file, to: target, specifier, line: lineOf(literal.getStart(source)), dynamic });
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteralLike(node.moduleSpecifier)
    ) {
      addImport(node.moduleSpecifier, false);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) addImport(arg, true);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteralLike(node.argument.literal)
    ) {
      addImport(node.argument.literal, false); // type positions: import("./x.ts").Name
    }
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
      const start = lineOf(node.getStart(source));
      functions.push({ file, name: functionName(node, source), line: start, lines: lineOf(node.getEnd()) - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const lines = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  return { file, lines, imports, functions };
}

/** The index (0 = bottom) and path of the layer holding `file`: the longest matching path wins. */
export function layerOf(layers: readonly Layer[], file: string): { index: number; path: string } | undefined {
  let best: { index: number; path: string } | undefined;
  layers.forEach((layer, index) => {
    for (const p of layer.paths) {
      const hit = p.endsWith("/") ? file.startsWith(p) : file === p;
      if (hit && (!best || p.length > best.path.length)) best = { index, path: p };
    }
  });
  return best;
}

export interface LayerViolation {
  from: string;
  to: string;
  line: number;
  why: string;
}

/**
 * The imports that break the layer rule: a module may import its own folder, any lower layer, and
 * nothing above it; folders that share a layer (peers) do not import each other; a production
 * module imports nothing outside the layers (no test/, bench/, e2e/ code).
 */
export function layerViolations(layers: readonly Layer[], modules: readonly ModuleFacts[]): LayerViolation[] {
  const out: LayerViolation[] = [];
  for (const m of modules) {
    const from = layerOf(layers, m.file);
    for (const imp of m.imports) {
      const to = layerOf(layers, imp.to);
      const at = { from: imp.from, to: imp.to, line: imp.line };
      if (!from) out.push({ ...at, why: `${imp.from} is in no layer` });
      else if (!to)
        out.push({ ...at, why: `${imp.to} is in no layer (production code imports only src/ and workers/)` });
      else if (to.index > from.index)
        out.push({ ...at, why: `${layers[from.index]!.name} imports ${layers[to.index]!.name}, a higher layer` });
      else if (to.index === from.index && to.path !== from.path)
        out.push({
          ...at,
          why: `${from.path} and ${to.path} are peers in ${layers[from.index]!.name} and may not import each other`,
        });
    }
  }
  return out;
}

// No panel writes the playground's state: every change is an action of state.ts (or App). The
// compiler already refuses `app.<field> = …` (the fields are getters); this checks what it cannot
// see: a write into a field's object (`app.sourceMode.project.files[p] = …`, `app.selection.tool.push(…)`),
// also through a local name for it (`const m = app.sourceMode; m.open = …`). Every parameter of
// type App is named `app`, so that the check sees every access.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { AppState } from "./state.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The state's fields: AppState's getters. */
const FIELDS = new Set(
  Object.entries(Object.getOwnPropertyDescriptors(AppState.prototype))
    .filter(([, d]) => d.get)
    .map(([name]) => name),
);
const MUTATORS = new Set([
  "push",
  "pop",
  "shift",
  "unshift",
  "splice",
  "sort",
  "reverse",
  "fill",
  "copyWithin",
  "set",
  "add",
  "delete",
  "clear",
]);

const unwrap = (e: ts.Expression): ts.Expression =>
  ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e) ? unwrap(e.expression) : e;

/** Whether `e` reaches into the state: `app.<field>…`, or `<alias>.…` for a local name of a part of it. */
function inState(e: ts.Expression, aliases: ReadonlySet<string>, steps = 0): boolean {
  const x = unwrap(e);
  if (ts.isPropertyAccessExpression(x)) {
    const base = unwrap(x.expression);
    if (ts.isIdentifier(base) && base.text === "app") return FIELDS.has(x.name.text);
    return inState(base, aliases, steps + 1);
  }
  if (ts.isElementAccessExpression(x)) return inState(x.expression, aliases, steps + 1);
  return ts.isIdentifier(x) && steps > 0 && aliases.has(x.text);
}

/** The names a file gives to parts of the state (`const m = app.sourceMode`, `const { files } = m.project`). */
function aliasesIn(sf: ts.SourceFile): Set<string> {
  const aliases = new Set<string>();
  const names = (n: ts.BindingName): string[] =>
    ts.isIdentifier(n) ? [n.text] : n.elements.flatMap((el) => (ts.isOmittedExpression(el) ? [] : names(el.name)));
  for (let size = -1; size !== aliases.size; ) {
    size = aliases.size;
    const visit = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && node.initializer) {
        const init = unwrap(node.initializer);
        const isAlias = inState(init, aliases) || (ts.isIdentifier(init) && aliases.has(init.text));
        if (isAlias) for (const n of names(node.name)) aliases.add(n);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return aliases;
}

/** Every write into the state in a file, as "file:line: code". */
function stateWrites(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const aliases = aliasesIn(sf);
  const found: string[] = [];
  const hit = (node: ts.Node): void => {
    found.push(`${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${node.getText(sf)}`);
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment &&
      inState(node.left, aliases)
    )
      hit(node);
    if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken) &&
      inState(node.operand, aliases)
    )
      hit(node);
    if (ts.isDeleteExpression(node) && inState(node.expression, aliases)) hit(node);
    if (ts.isCallExpression(node)) {
      const callee = unwrap(node.expression);
      const mutates =
        ts.isPropertyAccessExpression(callee) && MUTATORS.has(callee.name.text) && inState(callee.expression, aliases);
      const assigns =
        callee.getText(sf) === "Object.assign" &&
        node.arguments[0] !== undefined &&
        inState(node.arguments[0], aliases);
      if (mutates || assigns) hit(node);
    }
    if (
      ts.isParameter(node) &&
      node.type &&
      ts.isTypeReferenceNode(node.type) &&
      node.type.typeName.getText(sf) === "App" &&
      node.name.getText(sf) !== "app"
    )
      hit(node);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe("no panel writes the playground's state", () => {
  it("finds the writes the compiler cannot see (so the check below can fail)", () => {
    const bad = [
      "function f(app: App) {",
      "  app.sourceMode.project.files['a.py'] = bytes;",
      "  app.selection.tool.push('x');",
      "  const m = app.sourceMode;",
      "  if (m.kind === 'project') m.open = 'b.py';",
      "  const { files } = m.project;",
      "  delete files['a.py'];",
      "  app.current!.selection.tool = [];",
      "  Object.assign(app.toolMode, { kind: 'python' });",
      "  app.reportMs++;",
      "}",
      "function g(state: App) {}",
      // Not writes into the state: reads, actions, the stores and packages, a local's own variable.
      "function ok(app: App) {",
      "  const cur = app.current;",
      "  let n = app.reportMs;",
      "  n = 2;",
      "  app.setEngine(engine);",
      "  app.packages.add(names);",
      "  app.tickets.set('id', ticket);",
      "  cur?.session.reset();",
      "  const seen = new Set(app.builtins);",
      "  seen.add('x');",
      "}",
    ].join("\n");
    expect(stateWrites("x.ts", bad).map((w) => Number(w.split(":")[1]))).toEqual([2, 3, 5, 7, 8, 9, 10, 12]);
  });

  it("src/app: no file but state.ts writes into the state", () => {
    const files = readdirSync(HERE).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts") && f !== "state.ts",
    );
    expect(files.length).toBeGreaterThan(30);
    expect(files.flatMap((f) => stateWrites(f, readFileSync(path.join(HERE, f), "utf8")))).toEqual([]);
  });
});

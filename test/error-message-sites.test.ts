// Every `new EdgeError(code, details, message)` in production code that writes its own message
// keeps the table's way out: the message names a fix (a FIX word in its literal text), or appends
// one with fixOf(code) / ERRORS.code, or carries one computed elsewhere (an interpolated value
// named for a fix or advice, e.g. `${storageFix(code)}`, `${step.advice}`). A message passed
// through from another error (`first.message`, `probe.message`) is that error's, and is allowed.
// `EdgeError.withTableFix(code, details, happened)` appends the table's fix itself, so it is not
// checked here.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { productionModules } from "./architecture.ts";
import { FIX } from "./fix-words.ts";

const ROOT = path.resolve(new URL("../", import.meta.url).pathname);
const files = productionModules(ROOT);

/** A message that keeps a form another program reads (file → how its source starts). */
const EXEMPT: Record<string, string> = {
  // just-bash commands print the message; they expect Node's "ENOENT: …, op 'path'" form.
  "src/builtins/vfs/paths.ts": "`${errno}: ",
};

/** Code that supplies a fix: the table's fix, its sentence, or a value named for a fix. */
const FIX_CODE = /fixOf\(|ERRORS\.|FIX\b|[a-z]Fix\b|\bfix\b|[Aa]dvice/;

/** Collects a message's literal text and the code interpolated into it; false for a pass-through. */
function parts(e: ts.Expression, out: { text: string; code: string }): boolean {
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) return parts(e.expression, out);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return ((out.text += e.text + " "), true);
  if (ts.isTemplateExpression(e)) {
    out.text += e.head.text + " ";
    for (const span of e.templateSpans)
      (out.code += span.expression.getText() + " "), (out.text += span.literal.text + " ");
    return true;
  }
  if (ts.isConditionalExpression(e)) return [parts(e.whenTrue, out), parts(e.whenFalse, out)].some(Boolean);
  if (ts.isBinaryExpression(e)) {
    const left = parts(e.left, out);
    const right = parts(e.right, out);
    if (!left && e.operatorToken.kind === ts.SyntaxKind.PlusToken) out.code += e.left.getText() + " ";
    if (!right && e.operatorToken.kind === ts.SyntaxKind.PlusToken) out.code += e.right.getText() + " ";
    return left || right;
  }
  return false;
}

/** "file:line: message" for each site whose message is written here and names no fix. */
function sitesWithoutFix(): string[] {
  const bad: string[] = [];
  for (const file of files) {
    const source = readFileSync(path.join(ROOT, file), "utf8");
    if (!source.includes("new EdgeError(")) continue;
    const exempt = EXEMPT[file];
    const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText(sf) === "EdgeError" && node.arguments?.[2]) {
        // A conditional message is checked branch by branch.
        const msg = node.arguments[2];
        const branches = ts.isConditionalExpression(msg) ? [msg.whenTrue, msg.whenFalse] : [msg];
        for (const branch of branches) {
          const out = { text: "", code: "" };
          if (exempt && branch.getText(sf).startsWith(exempt)) continue;
          if (!parts(branch, out) || FIX.test(out.text) || FIX_CODE.test(out.code)) continue;
          const line = sf.getLineAndCharacterOfPosition(branch.getStart(sf)).line + 1;
          bad.push(`${file}:${line}: ${branch.getText(sf).slice(0, 120)}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return bad;
}

describe("the messages of new EdgeError(…) sites", () => {
  it("name a fix, append the table's (fixOf), or pass another error's message through", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(
      sitesWithoutFix(),
      "messages that name no fix (use EdgeError.withTableFix, or write a fix sentence)",
    ).toEqual([]);
  });
});

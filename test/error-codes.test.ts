// The error table is the one list of codes (docs/architecture.md, "Errors"): every code in it is
// raised or reported by some production source, and the retired catch-all invalid_argument by none
// (each of its families has a specific code; it stays in the table so that receipts
// written by earlier versions still read).
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ERRORS } from "../src/contract/error-table.ts";

const RETIRED = new Set(["invalid_argument"]);
/** The table itself, and errors.ts whose comments and fallback name codes: neither counts as a use. */
const TABLE_FILES = new Set(["src/contract/error-table.ts", "src/contract/errors.ts"]);

function productionSources(): { path: string; text: string }[] {
  const listed = execFileSync("git", ["ls-files", "src", "workers", "runner-pyodide", "bin", "scripts"], {
    encoding: "utf8",
  });
  return listed
    .split("\n")
    .filter((p) => /\.(ts|mjs|cjs|py)$/.test(p) && !/\.test\.ts$|test-helpers|\.d\.ts$/.test(p) && !TABLE_FILES.has(p))
    .map((path) => ({ path, text: readFileSync(path, "utf8") }));
}

describe("the error table's codes", () => {
  const sources = productionSources();
  const uses = (code: string) =>
    sources.filter((s) => new RegExp(`["'\`]${code}["'\`]|ERRORS\\.${code}\\b`).test(s.text)).map((s) => s.path);

  it("every code is raised or reported somewhere in production code", () => {
    const unused = Object.keys(ERRORS).filter((code) => !RETIRED.has(code) && uses(code).length === 0);
    expect(unused).toEqual([]);
  });

  it("nothing raises the retired catch-all invalid_argument", () => {
    expect(uses("invalid_argument")).toEqual([]);
  });
});

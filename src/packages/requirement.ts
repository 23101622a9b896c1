// A dependency as Python people write it (PEP 508): `name[extra,…] specifier ; marker`, e.g.
// `tabulate>=0.9`, `python-dateutil (>=2.8,<3)`, `tomli>=1.1; python_version < "3.11"`. Versions
// and specifiers are PEP 440, checked by @renovatebot/pep440; markers are evaluated here against
// the environment Pyodide's runner is (emscripten, wasm32, its CPython version). A direct
// reference (`name @ https://…`) is refused: a lock pins wheels of an index.
import { satisfies, validRange } from "@renovatebot/pep440";
import { EdgeError } from "../contract/errors.ts";
import { canonicalName } from "./lock.ts";

export interface Requirement {
  /** As written ("python-dateutil"); compare with canonicalName. */
  name: string;
  extras: string[];
  /** PEP 440 specifier set, "" for any version (">=0.9,<1"). */
  specifier: string;
  /** The marker as written, or "" when the requirement applies everywhere. */
  marker: string;
  /** The whole requirement as written, for messages. */
  text: string;
}

/** The values markers compare against: the runner's Pyodide interpreter. */
export type MarkerEnvironment = Readonly<Record<string, string>>;

/** Pyodide's runner as PEP 508 sees it, for its CPython version ("3.14.2"). */
export function pyodideEnvironment(python: string): MarkerEnvironment {
  const [major = "3", minor = "0"] = python.split(".");
  return {
    os_name: "posix",
    sys_platform: "emscripten",
    platform_machine: "wasm32",
    platform_python_implementation: "CPython",
    platform_release: "",
    platform_system: "Emscripten",
    platform_version: "",
    python_version: `${major}.${minor}`,
    python_full_version: python,
    implementation_name: "cpython",
    implementation_version: python,
  };
}

const NAME = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*/;

/** Parse one requirement; `where` names it in errors ("requirements.txt line 3"). */
export function parseRequirement(text: string, where: string): Requirement {
  const bad = (why: string): EdgeError =>
    new EdgeError(
      "python_requirement_invalid",
      { requirement: text, where },
      `${where}: "${text}" ${why} Fix the line (PEP 508: name[extras] specifier ; marker).`,
    );
  const src = text.trim();
  const semi = src.indexOf(";");
  const head = (semi < 0 ? src : src.slice(0, semi)).trim();
  const marker = semi < 0 ? "" : src.slice(semi + 1).trim();
  const name = NAME.exec(head);
  if (!name) throw bad("does not start with a package name (PEP 508).");
  let rest = head.slice(name[0].length);
  let extras: string[] = [];
  const ex = /^\[([^\]]*)\]\s*/.exec(rest);
  if (ex) {
    extras = ex[1]!
      .split(",")
      .map((e) => e.trim())
      .filter(Boolean);
    rest = rest.slice(ex[0].length);
  }
  if (rest.startsWith("@"))
    throw bad(
      "is a direct reference (name @ URL); Edge locks wheels from a package index only: name the package and a version instead.",
    );
  const specifier = rest.replace(/^\((.*)\)$/, "$1").replace(/\s+/g, "");
  if (specifier && !validRange(specifier))
    throw bad(`has a version specifier Edge cannot read ("${specifier}"; PEP 440 specifiers look like >=1.2,<2).`);
  if (marker) evaluateMarker(marker, pyodideEnvironment("3.14.0"), where); // a syntax check
  return { name: name[1]!, extras, specifier, marker, text: src };
}

/** Whether `version` satisfies `specifier` ("" allows any). */
export function allows(specifier: string, version: string): boolean {
  return !specifier || satisfies(version, specifier);
}

// ── markers ─────────────────────────────────────────────────────────────────────────────────────

const VERSION_VARS = new Set(["python_version", "python_full_version", "implementation_version"]);
const TOKEN =
  /\s*(?:(===|==|!=|<=|>=|~=|<|>|\(|\))|("[^"]*"|'[^']*')|(not\s+in\b|in\b|and\b|or\b)|([A-Za-z_][A-Za-z0-9_.]*))/y;

type Token = { kind: "op" | "str" | "word" | "var"; value: string };

function tokenize(marker: string, fail: (why: string) => EdgeError): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < marker.length) {
    if (/^\s*$/.test(marker.slice(TOKEN.lastIndex))) break;
    const m = TOKEN.exec(marker);
    if (!m) throw fail(`cannot read the marker at "${marker.slice(TOKEN.lastIndex)}"`);
    if (m[1]) out.push({ kind: "op", value: m[1] });
    else if (m[2]) out.push({ kind: "str", value: m[2].slice(1, -1) });
    else if (m[3]) out.push({ kind: "word", value: m[3].replace(/\s+/, " ") });
    else out.push({ kind: "var", value: m[4]! });
  }
  return out;
}

/**
 * Evaluate a PEP 508 marker in `env` (plus `extra`, the extras asked for). Version variables compare
 * as PEP 440 versions; everything else as strings (== and != only; `in` is a substring test).
 */
export function evaluateMarker(
  marker: string,
  env: MarkerEnvironment,
  where: string,
  extras: readonly string[] = [],
): boolean {
  const fail = (why: string): EdgeError =>
    new EdgeError(
      "python_requirement_invalid",
      { marker, where },
      `${where}: the environment marker "${marker}": ${why}; fix it (PEP 508 markers compare variables such as python_version with quoted strings).`,
    );
  const tokens = tokenize(marker, fail);
  let at = 0;
  const peek = (): Token | undefined => tokens[at];
  const value = (): { text: string; variable?: string } => {
    const t = tokens[at++];
    if (t?.kind === "str") return { text: t.value };
    if (t?.kind === "var") {
      const name = t.value === "platform.python_implementation" ? "platform_python_implementation" : t.value;
      if (name === "extra") return { text: "", variable: "extra" };
      if (!(name in env)) throw fail(`"${t.value}" is not a marker variable`);
      return { text: env[name]!, variable: name };
    }
    throw fail("a variable or a quoted string is expected");
  };
  const comparison = (): boolean => {
    if (peek()?.value === "(") {
      at++;
      const inner = or();
      if (tokens[at++]?.value !== ")") throw fail("a ) is missing");
      return inner;
    }
    const left = value();
    const op = tokens[at++];
    if (
      !op ||
      (op.kind !== "op" && op.kind !== "word") ||
      op.value === "(" ||
      op.value === ")" ||
      op.value === "and" ||
      op.value === "or"
    )
      throw fail("a comparison operator is expected");
    const right = value();
    if (left.variable === "extra" || right.variable === "extra") {
      const other = canonicalName(left.variable === "extra" ? right.text : left.text);
      const has = extras.some((e) => canonicalName(e) === other);
      return op.value === "!=" ? !has : has;
    }
    return compare(left, op.value, right, fail);
  };
  const and = (): boolean => {
    let result = comparison();
    while (peek()?.value === "and") {
      at++;
      result = comparison() && result;
    }
    return result;
  };
  const or = (): boolean => {
    let result = and();
    while (peek()?.value === "or") {
      at++;
      result = and() || result;
    }
    return result;
  };
  const result = or();
  if (at !== tokens.length) throw fail(`unexpected "${tokens[at]!.value}"`);
  return result;
}

function compare(
  left: { text: string; variable?: string },
  op: string,
  right: { text: string; variable?: string },
  fail: (why: string) => EdgeError,
): boolean {
  if (op === "in") return right.text.includes(left.text);
  if (op === "not in") return !right.text.includes(left.text);
  const versions =
    (left.variable && VERSION_VARS.has(left.variable)) || (right.variable && VERSION_VARS.has(right.variable));
  if (versions && op !== "===") {
    const spec = `${op}${right.text}`;
    if (left.variable && validRange(spec)) return satisfies(left.text, spec);
    const flipped = { "<": ">", ">": "<", "<=": ">=", ">=": "<=" }[op] ?? op;
    if (right.variable && validRange(`${flipped}${left.text}`)) return satisfies(right.text, `${flipped}${left.text}`);
  }
  if (op === "==" || op === "===") return left.text === right.text;
  if (op === "!=") return left.text !== right.text;
  throw fail(`"${op}" compares versions, but "${left.text}" and "${right.text}" are not both versions`);
}

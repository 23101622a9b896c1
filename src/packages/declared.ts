// The dependencies a tools project declares, the two ways Python people declare them: PEP 723
// inline script metadata in the tools file (`# /// script` … `dependencies = [...]` … `# ///`) and
// a requirements.txt beside it (one requirement per line; options, URLs, paths and editables are
// refused with the line named, since a lock pins wheels of an index). Pure: reads a snapshot.
import { parse as parseToml } from "smol-toml";
import { EdgeError } from "../contract/errors.ts";
import type { ProjectSnapshot } from "../contract/project.ts";
import { folderOf, REQUIREMENTS_NAME } from "./declared-files.ts";
import { parseRequirement, type Requirement } from "./requirement.ts";

export interface Declared {
  requirements: Requirement[];
  /** PEP 723's requires-python, or "" when not given. */
  requiresPython: string;
  /** Where they were declared, for messages ("tools.py (PEP 723)", "requirements.txt"). */
  sources: string[];
}

/** PEP 723's reference regular expression, for one line ending style. */
const BLOCK = /^# \/\/\/ (?<type>[a-zA-Z0-9-]+)$\n(?<content>(?:^#(?:| .*)$\n)+)^# \/\/\/$/gm;

/** The `script` block of a Python file's inline metadata, as TOML text; undefined without one. */
export function scriptMetadata(source: string, file: string): string | undefined {
  const text = source.replace(/\r\n?/g, "\n");
  const blocks = [...`${text}\n`.matchAll(BLOCK)].filter((m) => m.groups?.type === "script");
  if (blocks.length > 1)
    throw new EdgeError(
      "python_requirement_invalid",
      { file },
      `${file} has ${blocks.length} "# /// script" blocks; PEP 723 allows one: keep one block with all the dependencies.`,
    );
  const block = blocks[0];
  if (!block) return undefined;
  return block
    .groups!.content!.split("\n")
    .map((line) => (line.startsWith("# ") ? line.slice(2) : line.slice(1)))
    .join("\n");
}

function fromScript(source: string, file: string): { requirements: Requirement[]; requiresPython: string } | undefined {
  const toml = scriptMetadata(source, file);
  if (toml === undefined) return undefined;
  const where = `${file} (its "# /// script" block)`;
  let data: Record<string, unknown>;
  try {
    data = parseToml(toml) as Record<string, unknown>;
  } catch (err) {
    throw new EdgeError(
      "python_requirement_invalid",
      { file },
      `${where} is not valid TOML (${err instanceof Error ? err.message.split("\n")[0] : String(err)}); fix the block (PEP 723 metadata is TOML inside "# " comment lines).`,
    );
  }
  const deps = data.dependencies ?? [];
  if (!Array.isArray(deps) || deps.some((d) => typeof d !== "string"))
    throw new EdgeError(
      "python_requirement_invalid",
      { file },
      `${where}: dependencies must be a list of strings, e.g. dependencies = ["tabulate>=0.9"].`,
    );
  const rp = data["requires-python"] ?? "";
  if (typeof rp !== "string")
    throw new EdgeError(
      "python_requirement_invalid",
      { file },
      `${where}: set requires-python to a string, e.g. ">=3.11".`,
    );
  return {
    requirements: (deps as string[]).map((d, i) => parseRequirement(d, `${where}, dependency ${i + 1}`)),
    requiresPython: rp,
  };
}

/** requirements.txt's requirements: `#` comments, blank lines and `\` continuations as pip reads them. */
export function parseRequirementsTxt(text: string, file: string): Requirement[] {
  const out: Requirement[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let line = lines[i]!;
    while (line.endsWith("\\") && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!;
    const content = line.replace(/(^|\s)#.*$/, "").trim();
    if (!content) continue;
    const where = `${file} line ${first}`;
    if (content.startsWith("-"))
      throw new EdgeError(
        "python_requirement_invalid",
        { file, line: first },
        `${where}: "${content}" is a pip option; Edge reads only requirements (name and version specifier). Remove the line; name another index with --index-url or EDGE_PACKAGE_INDEX.`,
      );
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(content) || /^[.~/]/.test(content) || /\.(whl|zip|tar\.gz)$/i.test(content)) {
      throw new EdgeError(
        "python_requirement_invalid",
        { file, line: first },
        `${where}: "${content}" is a URL or a path; Edge locks wheels from a package index only. Name the package and a version instead.`,
      );
    }
    out.push(parseRequirement(content, where));
  }
  return out;
}

/** What the project declares (the tools file's PEP 723 block, the requirements.txt of its folder); empty when nothing. */
export function declaredDependencies(snapshot: Pick<ProjectSnapshot, "files" | "entry">): Declared {
  const declared: Declared = { requirements: [], requiresPython: "", sources: [] };
  const entry = snapshot.files[snapshot.entry];
  const script = entry ? fromScript(new TextDecoder().decode(entry), snapshot.entry) : undefined;
  if (script) {
    declared.requirements.push(...script.requirements);
    declared.requiresPython = script.requiresPython;
    declared.sources.push(`${snapshot.entry} (PEP 723)`);
  }
  const txtPath = `${folderOf(snapshot.entry)}${REQUIREMENTS_NAME}`;
  const txt = snapshot.files[txtPath];
  if (txt) {
    declared.requirements.push(...parseRequirementsTxt(new TextDecoder().decode(txt), txtPath));
    declared.sources.push(txtPath);
  }
  return declared;
}

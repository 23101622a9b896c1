// The project's lock as a standard pylock.toml (PEP 751) beside the tools file: every package with
// its version, index and one wheel (name, URL, size, sha256), in install order (dependencies first).
// Edge's own table, [tool.edge], records what the lock was made from (the declared requirements,
// Pyodide's CPython and ABI) and a digest of the packages, so a lock edited by hand is refused
// (python_lock_invalid) and one the declarations have moved past is stale (python_lock_stale).
import { parse as parseToml, stringify } from "smol-toml";
import { EdgeError } from "../contract/errors.ts";
import { sha256Bytes, type Sha256 } from "../contract/hash.ts";
import type { Declared } from "./declared.ts";
import type { PinnedPackage } from "./resolve.ts";
import type { WheelTarget } from "./wheel.ts";

export interface Pylock {
  packages: PinnedPackage[];
  /** The declarations it was made from, normalised (declaredKey). */
  requirements: string[];
  python: string;
  abi: string;
}

/** What a lock records of the declarations: requirement texts (sorted) and requires-python. */
export function declaredKey(declared: Declared): string[] {
  const reqs = declared.requirements.map((r) => r.text.replace(/\s+/g, " ")).sort();
  return declared.requiresPython ? [...reqs, `python ${declared.requiresPython}`] : reqs;
}

/** The digest of the packages as pinned: any edit to a name, version, URL, hash or order changes it. */
async function packagesDigest(packages: readonly PinnedPackage[]): Promise<Sha256> {
  const canonical = packages.map((p) => [
    p.name,
    p.version,
    p.source,
    p.file_name,
    p.url,
    p.sha256,
    p.size ?? null,
    p.install_dir,
    p.dependencies,
  ]);
  return sha256Bytes(new TextEncoder().encode(JSON.stringify(canonical)));
}

export async function writePylock(
  packages: readonly PinnedPackage[],
  declared: Declared,
  target: WheelTarget,
  indexUrl: string,
): Promise<string> {
  const doc = {
    "lock-version": "1.0",
    environments: ["sys_platform == 'emscripten' and platform_machine == 'wasm32'"],
    "requires-python": `==${target.python}`,
    "created-by": "edge-web",
    packages: packages.map((p) => ({
      name: p.name,
      version: p.version,
      ...(p.source === "pypi" ? { index: indexUrl } : {}),
      ...(p.dependencies.length ? { dependencies: p.dependencies.map((name) => ({ name })) } : {}),
      wheels: [
        {
          name: p.file_name,
          url: p.url,
          ...(p.size !== undefined ? { size: p.size } : {}),
          hashes: { sha256: p.sha256 },
        },
      ],
      tool: { edge: { source: p.source, "install-dir": p.install_dir } },
    })),
    tool: {
      edge: {
        requirements: declaredKey(declared),
        python: target.python,
        abi: target.abi,
        "packages-sha256": await packagesDigest(packages),
      },
    },
  };
  return `# Written by \`edge packages lock\` (Edge Web) for Pyodide's runner; do not edit by hand: run it again.\n${stringify(doc)}\n`;
}

/** A pylock.toml Edge wrote, checked; `where` names it in errors, `fix` ends them (the command that rewrites it). */
export async function readPylock(
  text: string,
  where: string,
  fix = "Run `edge packages lock` on the tools file again (it rewrites the lock from the declared dependencies).",
): Promise<Pylock> {
  const fail = (why: string): EdgeError =>
    new EdgeError("python_lock_invalid", { file: where }, `${where} ${why}. ${fix}`);
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw fail(`is not valid TOML (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`);
  }
  const edge = ((doc.tool as Record<string, unknown> | undefined)?.edge ?? undefined) as
    | Record<string, unknown>
    | undefined;
  if (doc["lock-version"] !== "1.0" || !edge || !Array.isArray(doc.packages))
    throw fail("is not a pylock.toml written by edge packages lock (no lock-version 1.0, [tool.edge] or packages)");
  const packages = doc.packages.map((p, i) =>
    pinnedOf(p as Record<string, unknown>, () => fail(`has a malformed package (number ${i + 1})`)),
  );
  const digest = await packagesDigest(packages);
  if (edge["packages-sha256"] !== digest)
    throw fail(
      `was changed after it was written (its packages no longer hash to the ${String(edge["packages-sha256"])} it records: edited by hand?)`,
    );
  const requirements = edge.requirements;
  if (
    !Array.isArray(requirements) ||
    requirements.some((r) => typeof r !== "string") ||
    typeof edge.python !== "string" ||
    typeof edge.abi !== "string"
  )
    throw fail("has a malformed [tool.edge] table");
  return { packages, requirements: requirements as string[], python: edge.python, abi: edge.abi };
}

function pinnedOf(p: Record<string, unknown>, fail: () => EdgeError): PinnedPackage {
  const wheels = p.wheels;
  const wheel = Array.isArray(wheels) && wheels.length === 1 ? (wheels[0] as Record<string, unknown>) : undefined;
  const edge = ((p.tool as Record<string, unknown> | undefined)?.edge ?? {}) as Record<string, unknown>;
  const sha256 = (wheel?.hashes as Record<string, unknown> | undefined)?.sha256;
  const deps = p.dependencies ?? [];
  const ok =
    typeof p.name === "string" &&
    typeof p.version === "string" &&
    wheel &&
    typeof wheel.name === "string" &&
    /^[A-Za-z0-9][A-Za-z0-9._+-]*\.whl$/.test(wheel.name) &&
    typeof wheel.url === "string" &&
    typeof sha256 === "string" &&
    /^[0-9a-f]{64}$/.test(sha256) &&
    (wheel.size === undefined || typeof wheel.size === "number") &&
    (edge.source === "pypi" || edge.source === "pyodide-lock") &&
    (edge["install-dir"] === "site" || edge["install-dir"] === "dynlib") &&
    Array.isArray(deps) &&
    deps.every((d) => typeof (d as { name?: unknown }).name === "string");
  if (!ok) throw fail();
  return {
    name: p.name as string,
    version: p.version as string,
    source: edge.source as PinnedPackage["source"],
    file_name: wheel.name as string,
    url: wheel.url as string,
    sha256: sha256 as string,
    ...(typeof wheel.size === "number" ? { size: wheel.size } : {}),
    install_dir: edge["install-dir"] as string,
    dependencies: (deps as { name: string }[]).map((d) => d.name),
  };
}

// `edge packages lock TOOLS.PY`: the tools file's declared dependencies (its PEP 723 block, the
// requirements.txt beside it) resolved against a package index (--index-url, $EDGE_PACKAGE_INDEX,
// else PyPI) into pylock.toml beside the tools file, then every wheel it pins fetched into
// $EDGE_DATA_DIR/packages, checked by sha256. From then on a freeze reads only the lock and the
// stored wheels: offline. docs/packages.md.
import path from "node:path";
import { parseArgs } from "node:util";
import { readSnapshot } from "../toolset/freeze.ts";
import { lockProject } from "../packages/lock-project.ts";
import { createNodePackageStore } from "../packages/store-node.ts";
import { createPypiWheelStore, installedPyodideVersion, nodeLock } from "../packages/node.ts";
import { httpPackageIndex, PYPI_SIMPLE } from "../packages/pypi.ts";
import { defaultPackageSource } from "../packages/source.ts";
import { packageSourceFor } from "../packages/source-node.ts";
import { writeFileAtomic } from "../platform/node-files.ts";
import { projectFileSource } from "../runner/node-project-source.ts";
import { humanBytes } from "./packages.ts";
import { EXIT_FAILED, EXIT_OK, failureJson, printJson, UsageError, type CliIO } from "./io.ts";

const INDEX_FIX =
  "check the connection and --index-url / EDGE_PACKAGE_INDEX (an index serving PEP 691's JSON Simple API).";

/** `edge packages lock TOOLS.PY [--tools-root DIR] [--index-url URL] [--upgrade] [--package-source DIR|URL] [--json]`. */
export async function packagesLock(argv: string[], io: CliIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      json: { type: "boolean" },
      upgrade: { type: "boolean" },
      "index-url": { type: "string" },
      "package-source": { type: "string" },
      "tools-root": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1)
    throw new UsageError("packages lock needs exactly one tools file (edge packages lock tools.py).");
  const file = positionals[0]!;
  const snapshot = await readSnapshot(projectFileSource(file, values["tools-root"]));
  const { lock } = await nodeLock(env);
  const pyodideStore = createNodePackageStore();
  const index = httpPackageIndex(values["index-url"] || env.EDGE_PACKAGE_INDEX || PYPI_SIMPLE, INDEX_FIX);
  const outcome = await lockProject(snapshot, {
    index,
    pyodideLock: lock,
    pyodideSource: packageSourceFor(values["package-source"], installedPyodideVersion(), env),
    pyodideUrl: defaultPackageSource(installedPyodideVersion()),
    pypiStore: createPypiWheelStore(pyodideStore),
    pyodideStore,
    upgrade: Boolean(values.upgrade),
  });
  const lockFile = path.join(snapshot.root ?? path.dirname(path.resolve(file)), ...outcome.path.split("/"));
  if (outcome.text !== undefined) await writeFileAtomic(lockFile, outcome.text);
  const errors = outcome.packages.flatMap((p) => (p.error ? [p.error] : []));
  const rest = {
    lock: lockFile,
    status: outcome.status,
    index: index.url,
    declared_in: outcome.declared.sources,
    packages: outcome.packages,
  };
  if (values.json) printJson(io, errors.length ? failureJson(errors[0]!, errors, rest) : { ok: true, ...rest });
  else {
    io.out(
      `${outcome.status === "written" ? "wrote" : "current"} ${lockFile} (${outcome.packages.length} package${outcome.packages.length === 1 ? "" : "s"} for ${outcome.declared.sources.join(" and ")})\n`,
    );
    for (const p of outcome.packages) {
      const size = p.bytes !== undefined ? ` (${humanBytes(p.bytes)})` : "";
      io.out(`${p.status.padEnd(6)} ${p.name} ${p.version}${size} ${p.source} ${p.sha256}\n`);
    }
    for (const e of errors) io.err(`edge: ${e.code}: ${e.message}\n`);
  }
  return errors.length ? EXIT_FAILED : EXIT_OK;
}

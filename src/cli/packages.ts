// `edge packages add|list|verify|remove`: the Python packages of Pyodide's lock kept on this device
// ($EDGE_DATA_DIR/packages). add is the only command that fetches (from --package-source, else
// $EDGE_PACKAGE_SOURCE, else the Pyodide CDN of the installed version), and checks every wheel
// against the lock's sha256 before it is stored. docs/packages.md.
import { parseArgs } from "node:util";
import { errorJson } from "../contract/errors.ts";
import { addPackages, listPackages, removePackages } from "../packages/add.ts";
import { installedPyodideVersion, nodeLock } from "../packages/node.ts";
import { packageSourceFor } from "../packages/source-node.ts";
import { createNodePackageStore } from "../packages/store-node.ts";
import { EXIT_FAILED, EXIT_OK, failureJson, printJson, table, UsageError, type CliIO } from "./io.ts";

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: { json: { type: "boolean" }, "package-source": { type: "string" }, available: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
}

/** "5.1 MB", "812 KB", "95 bytes". */
export function humanBytes(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)} MB`;
  if (n >= 1_000) return `${Math.round(n / 1_000)} KB`;
  return `${n} bytes`;
}

/** `edge packages add NAME... [--package-source DIR|URL]`. */
export async function packagesAdd(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (!positionals.length)
    throw new UsageError("packages add needs at least one package NAME (a package of Pyodide's lock, e.g. numpy).");
  if (values.available) throw new UsageError("--available belongs to edge packages list.");
  const { lock, file } = await nodeLock();
  const store = createNodePackageStore();
  const source = packageSourceFor(values["package-source"], installedPyodideVersion());
  const added = await addPackages(positionals, lock, store, source);
  if (values.json)
    printJson(io, { ok: true, source: source.location, lock: file, store: store.location, packages: added });
  else {
    for (const p of added)
      io.out(
        `${p.status === "added" ? "added " : "cached"} ${p.name} ${p.version} (${humanBytes(p.bytes)}${p.requested ? "" : ", a dependency"}) ${p.sha256}\n`,
      );
    const fetched = added.filter((p) => p.status === "added").length;
    io.out(
      fetched
        ? `${fetched} wheel(s) fetched from ${source.location}, each checked against the lock, into ${store.location}\n`
        : `nothing fetched: every wheel was already in ${store.location}\n`,
    );
  }
  return EXIT_OK;
}

/** `edge packages list [--available]`. */
export async function packagesList(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (positionals.length) throw new UsageError("packages list takes no NAME.");
  const { lock, file } = await nodeLock();
  if (values.available) {
    const all = Object.values(lock.packages)
      .filter((p) => p.package_type !== "shared_library" && !p.name.endsWith("-tests"))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    if (values.json)
      printJson(io, {
        ok: true,
        lock: file,
        available: all.map((p) => ({ name: p.name, version: p.version, imports: p.imports, depends: p.depends })),
      });
    else
      io.out(
        table([
          ["PACKAGE", "VERSION", "IMPORTS", "DEPENDS"],
          ...all.map((p) => [p.name, p.version, p.imports.join(",") || "-", p.depends.join(",") || "-"]),
        ]),
      );
    return EXIT_OK;
  }
  const store = createNodePackageStore();
  const listing = await listPackages(lock, store);
  if (values.json) printJson(io, { ok: true, lock: file, store: store.location, ...listing });
  else {
    if (!listing.packages.length)
      io.out(`no packages in ${store.location} (add one with \`edge packages add NAME\`)\n`);
    else
      io.out(
        table([
          ["PACKAGE", "VERSION", "SIZE", "SHA256"],
          ...listing.packages.map((p) => [p.name, p.version, humanBytes(p.bytes), p.sha256]),
        ]),
      );
    for (const u of listing.unknown)
      io.out(
        `not in the lock: ${u.file_name} (${humanBytes(u.bytes)}; another Pyodide version's wheel? \`edge packages verify\` names it)\n`,
      );
  }
  return EXIT_OK;
}

/** `edge packages verify`: hash every stored wheel against the lock; exit 1 on any mismatch. */
export async function packagesVerify(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (positionals.length) throw new UsageError("packages verify takes no NAME: it checks every stored wheel.");
  const { lock, file } = await nodeLock();
  const store = createNodePackageStore();
  const listing = await listPackages(lock, store, true);
  const bad = listing.packages.filter((p) => !p.verified);
  const errors = bad.map((p) =>
    errorJson("python_package_hash_mismatch", {
      message: `${p.file_name} in ${store.location} does not match the lock's ${p.sha256}; it is never used. Run \`edge packages add ${p.name}\` to fetch it again (it replaces the file).`,
      package: p.name,
      file: p.file_name,
    }),
  );
  if (values.json) {
    const rest = { lock: file, store: store.location, packages: listing.packages, unknown: listing.unknown };
    printJson(io, errors.length ? failureJson(errors[0]!, errors, rest) : { ok: true, ...rest });
  } else {
    for (const p of listing.packages)
      io.out(`${p.verified ? "ok      " : "MISMATCH"} ${p.name} ${p.version} ${p.file_name}\n`);
    for (const u of listing.unknown)
      io.out(`unknown  ${u.file_name} (no package of the lock names it; remove it by hand if it is not needed)\n`);
    for (const e of errors) io.err(`edge: ${e.code}: ${e.message}\n`);
    if (!listing.packages.length && !listing.unknown.length) io.out(`no packages in ${store.location}\n`);
  }
  return errors.length ? EXIT_FAILED : EXIT_OK;
}

/** `edge packages remove NAME...`: delete the named packages' wheels (not their dependencies). */
export async function packagesRemove(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (!positionals.length) throw new UsageError("packages remove needs at least one package NAME.");
  const { lock } = await nodeLock();
  const store = createNodePackageStore();
  const removed = await removePackages(positionals, lock, store);
  if (values.json) printJson(io, { ok: true, store: store.location, packages: removed });
  else for (const r of removed) io.out(`${r.removed ? "removed" : "not stored"} ${r.name} (${r.file_name})\n`);
  return EXIT_OK;
}

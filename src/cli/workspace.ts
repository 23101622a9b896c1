// `edge workspace ls|import|export`: the stored workspace ($EDGE_DATA_DIR/vfs/default.json), the
// same VFS the built-in tools use. Import takes a zip (bounded against bombs), a folder or a file,
// checks every name and the limits first and writes it as one change; export writes a zip.
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { sha256Bytes } from "../contract/hash.ts";
import { WORKSPACE_DIR, type EdgeVfs } from "../builtins/vfs/core.ts";
import { openNodeVfs } from "../builtins/vfs/store-node.ts";
import { importPath, relativeTo } from "../builtins/workspace/import-path.ts";
import { exportZip, importZip } from "../builtins/workspace/zip.ts";
import { writeFileAtomic } from "../platform/node-files.ts";
import { EdgeError } from "../contract/errors.ts";
import { EXIT_OK, printJson, table, UsageError, type CliIO } from "./io.ts";

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: { json: { type: "boolean" }, output: { type: "string", short: "o" }, into: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
}

/** `edge workspace ls`. */
export async function workspaceLs(argv: string[], io: CliIO): Promise<number> {
  const { values } = parse(argv);
  return ls(await openNodeVfs(), io, values.json === true);
}

/** `edge workspace import PATH [--into SUBDIR]`. */
export async function workspaceImport(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv);
  if (positionals.length !== 1) throw new UsageError("workspace import needs one PATH (a .zip, a folder or a file).");
  const into = values.into ? importPath(values.into) : WORKSPACE_DIR;
  const report = await importSource(await openNodeVfs(), positionals[0]!, into);
  if (values.json) printJson(io, { ok: true, ...report });
  else io.out(`imported ${report.files} file(s), ${report.bytes} bytes into ${into}\n`);
  return EXIT_OK;
}

/** `edge workspace export -o FILE.zip`. */
export async function workspaceExport(argv: string[], io: CliIO): Promise<number> {
  const { values } = parse(argv);
  if (!values.output) throw new UsageError("workspace export needs -o FILE.zip.");
  const zip = exportZip(await openNodeVfs());
  await writeFileAtomic(values.output, zip);
  if (values.json) printJson(io, { ok: true, output: values.output, bytes: zip.byteLength });
  else io.out(`wrote ${values.output} (${zip.byteLength} bytes)\n`);
  return EXIT_OK;
}

async function ls(vfs: EdgeVfs, io: CliIO, json: boolean): Promise<number> {
  const files = [];
  for (const p of vfs.getAllPaths().sort()) {
    const data = p.startsWith(`${WORKSPACE_DIR}/`) ? vfs.readBytesIfFile(p) : null;
    if (data)
      files.push({ path: relativeTo(WORKSPACE_DIR, p), bytes: data.byteLength, sha256: await sha256Bytes(data) });
  }
  const usage = vfs.usage();
  if (json) printJson(io, { ok: true, files, usage });
  else
    io.out(
      table([["PATH", "BYTES", "SHA256"], ...files.map((f) => [f.path, String(f.bytes), f.sha256])]) +
        `${usage.bytes} of ${usage.limits.maxTotalBytes} bytes used\n`,
    );
  return EXIT_OK;
}

/** A zip, a folder (its regular files; links are refused) or one file, as one change. */
async function importSource(
  vfs: EdgeVfs,
  source: string,
  into: string,
): Promise<{ files: number; bytes: number; paths: string[] }> {
  const st = await lstat(source).catch(() => null);
  if (!st)
    throw new EdgeError(
      "path_unreadable",
      { path: source },
      `${source} does not exist; check the path (a folder, a .zip or one file).`,
    );
  if (st.isFile() && source.toLowerCase().endsWith(".zip"))
    return importZip(vfs, new Uint8Array(await readFile(source)), into);
  const items: { path: string; data: Uint8Array }[] = [];
  const add = async (full: string, rel: string): Promise<void> => {
    const s = await lstat(full);
    if (s.isSymbolicLink())
      throw new EdgeError(
        "workspace_path_escape",
        { path: rel },
        `${full} is a symbolic link; import the files themselves. Nothing was imported.`,
      );
    if (s.isDirectory()) {
      for (const name of await readdir(full)) await add(path.join(full, name), rel ? `${rel}/${name}` : name);
    } else if (s.isFile()) {
      const limit = vfs.limits.maxTotalBytes;
      if (s.size > limit)
        throw EdgeError.withTableFix(
          "vfs_quota_exceeded",
          { path: rel, bytes: s.size },
          `${full} is ${s.size} bytes, over the ${limit}-byte workspace; nothing was imported.`,
        );
      items.push({ path: importPath(rel, into), data: new Uint8Array(await readFile(full)) });
    }
  };
  await add(path.resolve(source), st.isDirectory() ? "" : path.basename(source));
  await vfs.writeBatch(items);
  return {
    files: items.length,
    bytes: items.reduce((n, i) => n + i.data.byteLength, 0),
    paths: items.map((i) => i.path),
  };
}

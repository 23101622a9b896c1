// Builds the `edge` CLI from its TypeScript sources into plain JavaScript with esbuild, so the
// command starts without transpiling anything. Runs at install (`prepare`: `node
// scripts/build-cli.mjs`) and, when the sources changed since, on the next start of bin/edge.cjs.
// The output goes to a cache folder (scripts/cli-cache.cjs), keyed by the sha256 of every file the
// build read; it is never committed.
//
// What the build is:
// - src/cli/main.ts with code splitting: each command's modules are their own chunks, loaded when
//   that command runs (src/cli/commands.ts); package imports stay imports (resolved from the
//   package's node_modules at run time, exactly as from the sources).
// - each source keeps its own `import.meta.url` (its file's URL, not the bundle's), so paths the
//   code derives from it (the package root, Pyodide's folder, node-llama-cpp) are the sources'.
// - the runner process's script (workers/runner.node-process.ts and what it imports, one plain
//   ES module) built once here and embedded as __EDGE_RUNNER_SCRIPT__: without it the CLI would
//   load esbuild and bundle it at every start (src/runner/node-process.ts).
import { build } from "esbuild";
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { metaValidatorSource } from "./ajv-meta.mjs";
import {
  buildKey,
  CLI_BUILD_FORMAT,
  CLI_ENTRY,
  cliCacheDirs,
  currentBuild,
  dependencyDirs,
  describeBuildError,
  PACKAGE_ROOT,
} from "./cli-cache.cjs";

const CLI_SOURCE = "src/cli/main.ts";
const RUNNER_SOURCE = "workers/runner.node-process.ts";
/** The oldest Node the package supports (package.json engines). */
const TARGET = "node20";
/** Build folders kept besides the current one: a long `edge chat --interactive` started before a
 *  rebuild still loads its lazy chunks from its own build. */
const KEEP_OLD_BUILDS = 3;
/** Files that shape the output without being modules of it. */
const EXTRA_INPUTS = ["tsconfig.json", "scripts/build-cli.mjs", "scripts/cli-cache.cjs", "scripts/ajv-meta.mjs"];
/** Built from generated code instead of its own (undefined) export: ajv's meta-schema validator,
 *  compiled here once instead of at every start (src/contract/ajv-meta.ts). */
const AJV_META_SOURCE = "src/contract/ajv-meta.ts";
/** Packages bundled into the build instead of imported at run time: pure JavaScript on the path of
 *  every command that runs a tool (Node's CommonJS loader took ≈ 90 ms of CPU for ajv's 69 files;
 *  bundled, ≈ 15 ms). Their files are inputs like the sources (hashed, so an update rebuilds). */
const BUNDLED_PACKAGES = new Set(["ajv", "canonicalize"]);
const LOADERS = { ".ts": "ts", ".mts": "ts", ".js": "js", ".mjs": "js", ".cjs": "js", ".json": "json" };

const toPosix = (p) => p.split(sep).join("/");

/** Loads every file itself: keeps exactly the bytes esbuild compiles (the build's key is their
 *  hash), and gives each module its own file's URL as import.meta.url. */
function inputsPlugin(root, inputs) {
  return {
    name: "edge-cli-inputs",
    setup(b) {
      b.onLoad({ filter: /.*/, namespace: "file" }, async (args) => {
        const bytes = await readFile(args.path);
        // Relative to the package; a bundled package may be hoisted out of it ("../ajv/…").
        const file = toPosix(relative(root, args.path));
        inputs.set(file, bytes);
        if (file === AJV_META_SOURCE)
          return { contents: metaValidatorSource(), loader: "js", resolveDir: dirname(args.path) };
        const loader = LOADERS[extname(args.path)];
        if (!loader) throw new Error(`no loader for ${args.path}`);
        let contents = bytes.toString("utf8");
        if (loader !== "json")
          contents = contents.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href));
        return { contents, loader };
      });
    },
  };
}

/** Package imports stay imports (resolved from node_modules at run time, as from the sources),
 *  except BUNDLED_PACKAGES and whatever those import. */
function externalsPlugin() {
  return {
    name: "edge-cli-externals",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith("node:") || args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
        const parts = args.path.split("/");
        const name = args.path.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
        return BUNDLED_PACKAGES.has(name) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

const common = (root, inputs) => ({
  absWorkingDir: root,
  bundle: true,
  format: "esm",
  platform: "node",
  target: TARGET,
  logLevel: "silent",
  legalComments: "none",
  plugins: [inputsPlugin(root, inputs)],
});

/** Build into `outDir`/<key>/ and make it current; returns the entry file. */
export async function buildCli({ outDir, root = PACKAGE_ROOT } = {}) {
  root = resolve(root);
  const inputs = new Map();
  for (const file of EXTRA_INPUTS) inputs.set(file, await readFile(join(root, file)));
  // The runner's script: one self-contained module (it is passed to `node -e`), as
  // src/runner/node-process.ts bundles it when it runs from the sources.
  const runner = await build({ ...common(root, inputs), entryPoints: [join(root, RUNNER_SOURCE)], write: false });
  const runnerScript = runner.outputFiles[0]?.text;
  if (!runnerScript) throw new Error("bundling the runner entry produced no output");

  await mkdir(outDir, { recursive: true, mode: 0o700 });
  const tmp = join(outDir, `.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    const cli = await build({
      ...common(root, inputs),
      entryPoints: { main: join(root, CLI_SOURCE) },
      plugins: [externalsPlugin(), inputsPlugin(root, inputs)],
      outdir: tmp,
      splitting: true,
      outExtension: { ".js": ".mjs" },
      chunkNames: "chunks/[name]-[hash]",
      define: { __EDGE_RUNNER_SCRIPT__: JSON.stringify(runnerScript) },
      metafile: true,
    });
    // esbuild's account of the build (which chunk holds which sources, and imports what): how a
    // test checks that a command loads only its own modules.
    await writeFile(join(tmp, "meta.json"), JSON.stringify(cli.metafile));
    await linkDependencies(tmp, outDir, root);
    const key = buildKey(inputs.keys(), (file) => inputs.get(file), root);
    const dir = join(outDir, key);
    try {
      await rename(tmp, dir);
    } catch (err) {
      // Another process built the same sources at the same moment: theirs is as good.
      if (!["EEXIST", "ENOTEMPTY", "EPERM"].includes(err?.code) || !(await exists(join(dir, CLI_ENTRY)))) throw err;
      await rm(tmp, { recursive: true, force: true });
    }
    const record = { format: CLI_BUILD_FORMAT, key, root, inputs: [...inputs.keys()].sort() };
    const next = `${tmp}.json`;
    await writeFile(next, `${JSON.stringify(record, null, 1)}\n`, { mode: 0o600 });
    await rename(next, join(outDir, "current.json"));
    await prune(outDir, key);
    return { entry: join(dir, CLI_ENTRY), key, inputs: inputs.size };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** A build outside the package (the user cache) resolves package imports through links to the
 *  package's dependencies: its own node_modules, and the folder it is installed in (hoisted). */
async function linkDependencies(buildDir, outDir, root) {
  if (!toPosix(relative(root, outDir)).startsWith("..")) return; // inside the package: resolves as is
  const { own, hoisted } = dependencyDirs(root);
  await symlink(own, join(buildDir, "node_modules"), "junction").catch(() => undefined);
  if (hoisted) await symlink(hoisted, join(outDir, "node_modules"), "junction").catch(() => undefined);
}

async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Remove all but the newest old builds, and temporary folders left by a killed build. */
async function prune(outDir, current) {
  const entries = [];
  for (const name of await readdir(outDir)) {
    if (name === current || name === "current.json" || name === "node_modules") continue;
    const st = await stat(join(outDir, name)).catch(() => undefined);
    if (!st) continue;
    if (/^[0-9a-f]{64}$/.test(name)) entries.push({ name, mtime: st.mtimeMs });
    else if (name.startsWith(".tmp-") && Date.now() - st.mtimeMs > 3_600_000)
      await rm(join(outDir, name), { recursive: true, force: true });
  }
  entries.sort((a, b) => b.mtime - a.mtime);
  for (const { name } of entries.slice(KEEP_OLD_BUILDS)) await rm(join(outDir, name), { recursive: true, force: true });
}

const UNWRITABLE = new Set(["EACCES", "EPERM", "EROFS"]);

/** The current build's entry: found in one of the cache folders, or built into the first one that
 *  can be written. */
export async function ensureBuilt(dirs = cliCacheDirs()) {
  for (const dir of dirs) {
    const entry = currentBuild(dir);
    if (entry) return entry;
  }
  let lastError;
  for (const dir of dirs) {
    try {
      return (await buildCli({ outDir: dir })).entry;
    } catch (err) {
      lastError = err;
      if (!UNWRITABLE.has(err?.code)) break;
    }
  }
  throw lastError;
}

// `node scripts/build-cli.mjs` (npm's `prepare`): build now unless the current build is up to date.
// A failure is reported and leaves the install alone: the next start of `edge` tries again and
// says why it cannot run.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  try {
    const dirs = cliCacheDirs();
    const fresh = dirs.map((d) => currentBuild(d)).find(Boolean);
    if (fresh) console.log(`edge CLI: up to date (${fresh})`);
    else {
      const entry = await ensureBuilt(dirs);
      console.log(`edge CLI: built in ${Math.round(performance.now() - started)} ms → ${entry}`);
    }
  } catch (err) {
    process.stderr.write(describeBuildError(err));
  }
}

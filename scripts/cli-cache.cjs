// Where the built `edge` CLI lives, and whether a build there is current. Loaded by bin/edge.cjs
// on every start, so it loads nothing but Node built-ins, and is CommonJS as that file is (the
// builder, with esbuild, is scripts/build-cli.mjs and loads only when a build is needed).
//
// A cache folder holds one sub-folder per build, named by its key, and `current.json`: the key and
// the list of every file the build read (the CLI's sources and the runner's, the packages bundled
// in, this script and the builder). The key is a sha256 over exactly those files' bytes, so a
// build is current only while every one of them is unchanged: an edited source never runs stale,
// the next start rebuilds. Nothing here is committed (node_modules/ and the user cache are
// outside git).
"use strict";
const { createHash } = require("node:crypto");
const { existsSync, readFileSync } = require("node:fs");
const { homedir } = require("node:os");
const { basename, dirname, isAbsolute, join, resolve } = require("node:path");

/** Bumped when the layout of a build or of current.json changes. */
const CLI_BUILD_FORMAT = "edge-cli-build.v1";
const PACKAGE_ROOT = join(__dirname, "..", "/");
/** The built entry inside a build folder. */
const CLI_ENTRY = "main.mjs";

/** ERRORS.cli_build_failed (src/contract/error-table.ts; a test keeps them equal): the launcher reports a
 *  failed build before any of the TypeScript sources can run. */
const CLI_BUILD_FAILED =
  "The edge command could not be built from its sources; fix the error shown (in a file you edited), or run npm install if esbuild is missing.";

/**
 * The cache folders, in the order they are tried: $EDGE_CLI_CACHE when set; else beside the
 * package's own dependencies (node_modules/.cache/edge-web/cli, where the build's package imports
 * resolve exactly as the sources' do); else, for an install the user cannot write to (a global
 * install by root), a folder per package location in the user's cache.
 */
function cliCacheDirs(env = process.env, root = PACKAGE_ROOT) {
  if (env.EDGE_CLI_CACHE) return [resolve(env.EDGE_CLI_CACHE)];
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return [
    join(root, "node_modules", ".cache", "edge-web", "cli"),
    join(xdg, "edge-web", `cli-${createHash("sha256").update(resolve(root)).digest("hex").slice(0, 16)}`),
  ];
}

/** The key of a build: one sha256 over the format, the package's folder (the build holds its
 *  sources' paths: two checkouts sharing a cache never share a build) and every input (its path,
 *  length and bytes, in path order). `read` gives a file's bytes (the builder passes the bytes it
 *  compiled). */
function buildKey(files, read, root = PACKAGE_ROOT) {
  const hash = createHash("sha256").update(`${CLI_BUILD_FORMAT}\n${resolve(root)}\n`);
  for (const file of [...files].sort()) {
    const bytes = read(file);
    hash.update(`${file}\0${bytes.byteLength}\0`).update(bytes);
  }
  return hash.digest("hex");
}

/** current.json of `dir` when it is a well-formed record for `root`, else undefined. */
function readRecord(dir, root) {
  let record;
  try {
    record = JSON.parse(readFileSync(join(dir, "current.json"), "utf8"));
  } catch {
    return undefined;
  }
  if (record?.format !== CLI_BUILD_FORMAT || typeof record.key !== "string" || !/^[0-9a-f]{64}$/.test(record.key))
    return undefined;
  if (
    record.root !== resolve(root) ||
    !Array.isArray(record.inputs) ||
    !record.inputs.every((f) => typeof f === "string")
  )
    return undefined;
  return record;
}

/** Whether `inputs` (paths in `root`) still hash to `key`. */
function stillBuilds(inputs, key, root) {
  try {
    return buildKey(inputs, (file) => readFileSync(join(root, file)), root) === key;
  } catch {
    return false; // an input was removed or renamed
  }
}

/** The entry file of the current build in `dir`, or undefined (none, stale, unreadable). */
function currentBuild(dir, root = PACKAGE_ROOT) {
  const record = readRecord(dir, root);
  if (!record || !stillBuilds(record.inputs, record.key, root)) return undefined;
  const entry = join(dir, record.key, CLI_ENTRY);
  return existsSync(entry) ? entry : undefined;
}

/** For a cache outside the package: where its package imports must resolve (see build-cli.mjs). */
function dependencyDirs(root = PACKAGE_ROOT) {
  const own = join(root, "node_modules");
  const parent = dirname(resolve(root));
  // An installed package's dependencies may be hoisted next to it (…/node_modules/edge-web).
  return { own, hoisted: basename(parent) === "node_modules" ? parent : undefined };
}

/** `edge: cli_build_failed: …` and the reason (esbuild's messages, or the file system's). */
function describeBuildError(err) {
  const reason =
    Array.isArray(err?.errors) && err.errors.length
      ? err.errors
          .map((e) => (e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ${e.text}` : e.text))
          .join("\n  ")
      : err instanceof Error
        ? err.message
        : String(err);
  return `edge: cli_build_failed: ${CLI_BUILD_FAILED}\n  ${reason}\n`;
}

module.exports = {
  CLI_BUILD_FORMAT,
  PACKAGE_ROOT,
  CLI_ENTRY,
  CLI_BUILD_FAILED,
  cliCacheDirs,
  buildKey,
  currentBuild,
  dependencyDirs,
  describeBuildError,
};

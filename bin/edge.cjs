#!/usr/bin/env node
// The `edge` command: runs the CLI built from the TypeScript sources (plain JavaScript, one chunk
// per command, scripts/build-cli.mjs). The build is made at install (`prepare`) or, if the sources
// changed since (or it is missing), here, before the command runs: a stale build never runs.
// Checking costs one read and one sha256 of each source the build was made from.
//
// `edge tools call|validate|inspect` first asks the runner keeper, when one runs, to run the whole
// command with its CLI already loaded (scripts/cli-served.cjs): the keeper declines unless it runs
// what this launcher would (src/cli/served.ts), and this launcher then goes on as below. CommonJS, as is that
// file: Node starts a CommonJS entry ≈ 4 ms sooner than an ES module one, on every command.
"use strict";

const argv = process.argv.slice(2);
const kept = argv.includes("tools") ? require("../scripts/cli-served.cjs").runKept(argv) : Promise.resolve(undefined);
kept.then((code) => (code === undefined ? runBuild() : void (process.exitCode = code)));

async function runBuild() {
  const { buildCheck, cliCacheDirs, currentBuild, describeBuildError } = require("../scripts/cli-cache.cjs");
  const dirs = cliCacheDirs();
  let entry;
  for (const dir of dirs) if ((entry = currentBuild(dir))) break;
  if (!entry) {
    try {
      entry = await (await import("../scripts/build-cli.mjs")).ensureBuilt(dirs);
    } catch (err) {
      process.stderr.write(describeBuildError(err));
      process.exit(1);
    }
  }
  // The runner keeper (src/cli/served.ts) asks before each command it runs whether it still runs
  // what a new `edge` would.
  const { dirname } = require("node:path");
  if (argv[0] === "__runner-keeper") globalThis[Symbol.for("edge-web.cli-build-current")] = buildCheck(dirname(dirname(entry)), entry);
  await import(require("node:url").pathToFileURL(entry).href);
}

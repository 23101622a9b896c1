#!/usr/bin/env node
// The `edge` command: runs the CLI built from the TypeScript sources (plain JavaScript, one chunk
// per command, scripts/build-cli.mjs). The build is made at install (`prepare`) or, if the sources
// changed since (or it is missing), here, before the command runs: a stale build never runs.
// Checking costs one read and one sha256 of each source the build was made from. CommonJS: Node
// starts a CommonJS entry sooner than an ES module one, on every command.
"use strict";

async function main() {
  const { cliCacheDirs, currentBuild, describeBuildError } = require("../scripts/cli-cache.cjs");
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
  await import(require("node:url").pathToFileURL(entry).href);
}

void main();

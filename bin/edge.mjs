#!/usr/bin/env node
// The launcher's name before it became CommonJS (bin/edge.cjs, the package's `edge` since): kept so
// that what points here still works — an MCP client configured with this path, or npx's cache of
// an earlier checkout, which links `edge` to this file.
import "./edge.cjs";

// The tools source every CLI command freezes: the tools file's project on disk (node-project-source)
// with the Python packages of its imports taken from $EDGE_DATA_DIR/packages (src/packages/node.ts).
// A freeze never fetches; `edge packages add` does, explicitly.
import type { ToolSource } from "../runner/host.ts";
import { projectFileSource } from "../runner/node-project-source.ts";
import { createNodePackageProvider } from "../packages/node.ts";

export function toolsFileSource(file: string, root?: string): ToolSource {
  return { ...projectFileSource(file, root), packages: createNodePackageProvider() };
}

// The tool surface of `edge learn …`: a tools.py (frozen in a runner), a facts store's lookup, or
// a tools manifest's lookups — mutually exclusive, as in `edge chat`.
import { EdgeError } from "../contract/errors.ts";
import type { ToolSchema } from "../contract/types.ts";
import type { FactsSurface } from "../facts/surface.ts";
import { surfaceSchemas } from "../imprint/learn.ts";
import { toolsFileSource } from "../assembly/tools-source.ts";
import { activeSchemas, freezeToolset, type FrozenToolset } from "../toolset/freeze.ts";
import { nodeFactsSurface } from "../assembly/node.ts";
import { UsageError } from "./io.ts";
import { oneShotRunnerHost } from "./runners.ts";

export const SURFACE_OPTIONS = {
  tools: { type: "string" },
  "tools-root": { type: "string" },
  tool: { type: "string", multiple: true },
  "tool-tag": { type: "string", multiple: true },
  "facts-store": { type: "string" },
  "tools-manifest": { type: "string" },
} as const;

export interface SurfaceValues {
  tools?: string;
  "tools-root"?: string;
  tool?: string[];
  "tool-tag"?: string[];
  "facts-store"?: string;
  "tools-manifest"?: string;
}

export interface OpenSurface {
  toolset: FrozenToolset | null;
  surface: FactsSurface | null;
  close(): Promise<void>;
}

/** `notice`: where a weaker runner boundary is announced (the command's stderr). */
export async function openToolSurface(values: SurfaceValues, notice: (line: string) => void): Promise<OpenSurface> {
  const given = [values.tools, values["tools-manifest"], values["facts-store"]].filter((v) => v !== undefined);
  if (given.length > 1) throw new EdgeError("conflicting_tool_options");
  if ((values.tool || values["tool-tag"] || values["tools-root"]) && !values.tools)
    throw new UsageError("--tool / --tool-tag / --tools-root must be used with --tools.");
  if (values.tools === undefined) {
    const store = values["facts-store"];
    const manifest = values["tools-manifest"];
    const surface =
      store !== undefined
        ? await nodeFactsSurface({ kind: "facts", store })
        : manifest !== undefined
          ? await nodeFactsSurface({ kind: "manifest", path: manifest })
          : null;
    return { toolset: null, surface, close: async () => undefined };
  }
  const host = oneShotRunnerHost({ discoveries: "use", call: false }, notice);
  try {
    const toolset = await freezeToolset(toolsFileSource(values.tools, values["tools-root"]), host, {
      tool: values.tool,
      toolTag: values["tool-tag"],
    });
    return { toolset, surface: null, close: () => host.close() };
  } catch (err) {
    await host.close();
    throw err;
  }
}

/** The schemas the model would see, or null without any tool surface. */
export function surfaceToolSchemas(opened: OpenSurface): ToolSchema[] | null {
  if (opened.toolset) return activeSchemas(opened.toolset);
  return opened.surface ? surfaceSchemas(opened.surface) : null;
}

/** The flag that gives chat the same surface (for the "next:" hint). */
export function surfaceFlag(values: SurfaceValues): string {
  if (values.tools !== undefined)
    return ` --tools ${values.tools}${values["tools-root"] !== undefined ? ` --tools-root ${values["tools-root"]}` : ""}`;
  if (values["facts-store"] !== undefined) return ` --facts-store ${values["facts-store"]}`;
  if (values["tools-manifest"] !== undefined) return ` --tools-manifest ${values["tools-manifest"]}`;
  return "";
}

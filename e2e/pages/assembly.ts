// Test page for e2e/assembly.spec.ts: one question asked through the widget's working part
// (WidgetCore, what <edge-chat> renders), and the same request a front door makes (the widget's or
// the playground's) made to the browser root (createBrowserEdge) directly, on the same IndexedDB
// database; the runs come back to Playwright.
import { createBrowserEdge } from "../../src/assembly/browser.ts";
import { vfsWorkspaceSource } from "../../src/builtins/workspace/source.ts";
import { memorySource } from "../../src/toolset/inspect.ts";
import { parseScript } from "../../src/chat/script.ts";
import type { ChatRun } from "../../src/chat/types.ts";
import { pyodideBaseUrl } from "../../src/widget/assets.ts";
import { urlToolSource, WidgetCore } from "../../src/widget/core.ts";
import { widgetPackages } from "../../src/widget/packages.ts";
import type { WidgetConfig, WidgetRun } from "../../src/widget/types.ts";

const frames = document.getElementById("frames")!;

/** The widget's config for a scripted demo over a tools file at a URL. */
function config(toolsUrl: string, script: string, dbName: string): WidgetConfig {
  return {
    toolsUrl,
    factsUrl: null,
    tool: [],
    toolTag: [],
    engine: "scripted",
    model: null,
    modelFile: null,
    toolChoice: "auto",
    script,
    pyodideBaseUrl: pyodideBaseUrl(),
    dbName,
    builtins: [],
  };
}

const api = {
  async widget(toolsUrl: string, script: string, prompt: string, dbName: string): Promise<WidgetRun> {
    const core = new WidgetCore(config(new URL(toolsUrl, location.href).href, script, dbName), frames);
    try {
      return await core.ask(prompt);
    } finally {
      await core.close();
    }
  },
  /** The same request made to the root: the tools file as the widget reads it (at its URL) or as
   *  the playground does (its bytes in the editor, named tools.py, with the Workspace tab mounted). */
  async root(
    toolsUrl: string,
    script: string,
    prompt: string,
    dbName: string,
    as: "widget" | "playground" = "widget",
  ): Promise<ChatRun> {
    const edge = createBrowserEdge({
      dbName,
      whenStorageRefused: "memory",
      runner: { pyodideBaseUrl: pyodideBaseUrl(), container: frames },
    });
    try {
      const outputs = parseScript(script);
      const { engine, beforePrompt } = await edge.engine({ kind: "scripted", outputs: () => outputs });
      await engine.load();
      const url = new URL(toolsUrl, location.href).href;
      const packages = widgetPackages(() => edge.runnerHost()).provider;
      const source =
        as === "widget"
          ? { ...urlToolSource(url), packages }
          : { ...memorySource("tools.py", await (await fetch(url)).text()), packages };
      const workspace = as === "playground" ? { workspace: vfsWorkspaceSource(await edge.workspace()) } : {};
      const session = await edge.session({
        engine,
        toolChoice: "auto",
        tools: { kind: "python", source, selection: { tool: [], toolTag: [] } },
        ...workspace,
      });
      beforePrompt();
      return await session.chat(prompt);
    } finally {
      await edge.close();
    }
  },
};

declare global {
  interface Window {
    edgeAssemblyTest: typeof api;
  }
}

window.edgeAssemblyTest = api;
document.getElementById("status")!.textContent = "ready";

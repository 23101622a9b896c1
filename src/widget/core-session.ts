// The <edge-chat> element's session with its working part: the WidgetConfig its attributes say
// (URLs resolved against the page), and one WidgetCore for it — core.ts loaded on first use,
// started once for concurrent callers, replaced when the config changes, closed on disconnect.
import { isToolChoice } from "../engines/tool-turn.ts";
import { pyodideBaseUrl } from "./assets.ts";
import type { WidgetCore, WidgetWorkspace } from "./core.ts";
import type { EngineKind } from "../engines/engine.ts";
import type { WidgetConfig } from "./types.ts";

/** The element's attributes a config is made of. */
export interface ConfigAttributes {
  toolsSrc: string | null;
  factsSrc: string | null;
  model: string | null;
  tool: string | null;
  toolTag: string | null;
  toolChoice: string | null;
  script: string | null;
  dbName: string | null;
  builtins: string | null;
}

function splitList(value: string | null): string[] {
  return (value ?? "")
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function widgetConfig(a: ConfigAttributes, engine: EngineKind, modelFile: File | null): WidgetConfig {
  const abs = (u: string | null): string | null => (u ? new URL(u, document.baseURI).href : null);
  return {
    toolsUrl: abs(a.toolsSrc),
    factsUrl: abs(a.factsSrc),
    tool: splitList(a.tool),
    toolTag: splitList(a.toolTag),
    engine,
    // A GGUF URL is resolved against the page like the other URLs; a model id stays as it is.
    model: a.model ? (/\.gguf([?#]|$)/i.test(a.model) ? abs(a.model) : a.model) : null,
    modelFile,
    toolChoice: isToolChoice(a.toolChoice) ? a.toolChoice : "auto",
    script: a.script && !a.script.trim().startsWith("[") ? abs(a.script) : a.script,
    pyodideBaseUrl: pyodideBaseUrl(),
    dbName: a.dbName || null,
    builtins: splitList(a.builtins),
  };
}

let loadCore: Promise<typeof import("./core.ts")> | undefined;
function importCore(): Promise<typeof import("./core.ts")> {
  loadCore ??= import("./core.ts");
  return loadCore;
}

export interface CoreSessionPorts {
  config(): WidgetConfig;
  /** Tells one picked model file from the next in the config key (a File has no JSON of its own). */
  fileSerial(): number;
  /** Where the runner's hidden sandbox frame goes, once the element has rendered. */
  sandbox(): Promise<HTMLElement>;
  workspace: WidgetWorkspace;
  /** A new core was made (the element asks it about files and storage). */
  started(core: WidgetCore): void;
}

export class CoreSession {
  private core: WidgetCore | undefined;
  private key = "";
  private starting: Promise<WidgetCore> | undefined;

  constructor(private readonly ports: CoreSessionPorts) {}

  /** The core in use, if one has started. */
  get current(): WidgetCore | undefined {
    return this.core;
  }

  private configKey(): string {
    return JSON.stringify(this.ports.config(), (_key, value: unknown) =>
      value instanceof Blob ? `file #${this.ports.fileSerial()}` : value,
    );
  }

  /** An attribute changed: a different config starts a new session on the next question. */
  refresh(): void {
    if (this.core && this.configKey() !== this.key) void this.dispose();
  }

  async dispose(): Promise<void> {
    const core = this.core;
    this.core = undefined;
    this.key = "";
    this.starting = undefined;
    await core?.close();
  }

  /** The core for the current attributes (one at a time: concurrent callers share it). */
  get(): Promise<WidgetCore> {
    const key = this.configKey();
    if (this.core && this.key === key) return Promise.resolve(this.core);
    if (this.starting && this.key === key) return this.starting;
    this.key = key;
    const old = this.core;
    this.core = undefined;
    const starting = (async () => {
      await old?.close();
      const { WidgetCore } = await importCore();
      const container = await this.ports.sandbox();
      const core = new WidgetCore(this.ports.config(), container, this.ports.workspace);
      if (this.key === key) this.core = core;
      this.ports.started(core);
      return core;
    })();
    this.starting = starting;
    void starting
      .finally(() => {
        if (this.starting === starting) this.starting = undefined;
      })
      .catch(() => undefined);
    return starting;
  }
}

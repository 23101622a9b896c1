// The <edge-chat> element's attributes: what a page sets in its HTML, as lit reactive properties
// with their defaults. EdgeChatElement (edge-chat.ts) extends this class and adds its own state;
// the attributes are kept apart so the element's public surface reads in one place.
import { LitElement, type PropertyDeclarations } from "lit";

export class EdgeChatAttributes extends LitElement {
  static override properties: PropertyDeclarations = {
    toolsSrc: { type: String, attribute: "tools-src" },
    factsSrc: { type: String, attribute: "facts-src" },
    model: { type: String },
    tool: { type: String },
    toolTag: { type: String, attribute: "tool-tag" },
    engine: { type: String },
    toolChoice: { type: String, attribute: "tool-choice" },
    script: { type: String },
    heading: { type: String },
    placeholder: { type: String },
    dbName: { type: String, attribute: "db-name" },
    builtins: { type: String },
  };

  /** URL of the tools file, resolved against the page. Re-fetched for every tool call. */
  declare toolsSrc: string | null;
  /** URL of a facts file (edge.demo.facts.v1): imported, then exposed as local_facts_lookup. */
  declare factsSrc: string | null;
  /** web-llm: a model id (default: the best small model this GPU runs). llama.cpp: a catalog id
   *  or the URL of a GGUF file (default: SmolLM2-135M-Instruct, the CPU default: catalog.ts). */
  declare model: string | null;
  /** Active-set selection: tool names / intent tags, separated by commas or spaces. */
  declare tool: string | null;
  declare toolTag: string | null;
  /** "auto" (default: web-llm on a usable GPU, else llama.cpp on the CPU), "webllm", "llamacpp",
   *  or "scripted" (the labelled demo: replays `script`, no model runs). */
  declare engine: string | null;
  /** "auto" (default: a tool call or an answer), "required" (call a tool first) or "none". */
  declare toolChoice: string | null;
  /** The scripted demo's script (src/chat/script.ts: the model's outputs as a JSON array), inline or its URL. */
  declare script: string | null;
  declare heading: string;
  declare placeholder: string;
  declare dbName: string | null;
  /** Opt-in built-in tools on the visitor's files ("read_file bash …"); none by default. */
  declare builtins: string | null;

  constructor() {
    super();
    this.toolsSrc = null;
    this.factsSrc = null;
    this.model = null;
    this.tool = null;
    this.toolTag = null;
    this.engine = null;
    this.toolChoice = null;
    this.script = null;
    this.heading = "Ask Edge";
    this.placeholder = "Ask a question…";
    this.dbName = null;
    this.builtins = null;
  }
}

// Test page for e2e/loop.spec.ts: the real tool loop in the page — the sandboxed browser runner,
// the scripted engine, receipts in IndexedDB — driven through window.__loop.
import { verifyReceipts } from "../../src/receipts/chain.ts";
import { createChatSession } from "../../src/chat/session.ts";
import type { ChatRun, ChatSession } from "../../src/chat/types.ts";
import { ScriptedEngine } from "../../src/engines/scripted.ts";
import { createBrowserRunnerHost } from "../../src/runner/browser/index.ts";
import { openEdgeDb } from "../../src/idb/open.ts";
import { createIdbReceiptStore } from "../../src/receipts/store-idb.ts";
import { memorySource } from "../../src/toolset/inspect.ts";

const host = await createBrowserRunnerHost();
const receipts = createIdbReceiptStore(await openEdgeDb());
const example = await (await fetch("/examples/tools.py")).text();
let toolsText = example;
const sessions = new Map<string, ChatSession>();

const api = {
  /** A session over the (editable) tools text; returns its id. */
  async open(id: string, script: string[]): Promise<void> {
    const engine = new ScriptedEngine(script);
    await engine.load();
    sessions.set(
      id,
      await createChatSession({
        engine,
        host,
        store: receipts,
        tools: { kind: "file", source: memorySource("tools.py", () => toolsText) },
      }),
    );
  },
  chat: (id: string, prompt: string): Promise<ChatRun> => sessions.get(id)!.chat(prompt),
  editTools(find: string, replace: string): void {
    toolsText = toolsText.replace(find, replace);
  },
  resetTools(): void {
    toolsText = example;
  },
  listReceipts: () => receipts.list(),
  verify: async () => verifyReceipts(await receipts.list()),
};

declare global {
  interface Window {
    __loop?: typeof api;
  }
}
window.__loop = api;
document.getElementById("status")!.textContent = "ready";

// Test page for e2e/confirm.spec.ts: the real confirmation flow in Chromium — scripted engine →
// chat session → pending action in the app's IndexedDB (createIdbPendingStore) → confirm with the
// real browser runner (sandboxed Pyodide workers) → confirm receipt in IndexedDB. Driven from
// Playwright through window.edgeConfirmTest. Tool executions are counted per page by wrapping the
// real host's call(); the spec adds the counts of both tabs.
import { createChatSession } from "../../src/chat/session.ts";
import type { Receipt } from "../../src/receipts/types.ts";
import { createConfirmationBroker } from "../../src/confirm/broker.ts";
import { confirm, reject, startPurging } from "../../src/confirm/confirm.ts";
import { createIdbPendingStore } from "../../src/confirm/store-idb.ts";
import type { ConfirmOutcome, PendingAction } from "../../src/confirm/types.ts";
import type { PendingStore } from "../../src/confirm/store.ts";
import { ScriptedEngine } from "../../src/engines/scripted.ts";
import type { RunnerHost } from "../../src/runner/host.ts";
import { createBrowserRunnerHost } from "../../src/runner/browser/index.ts";
import { openEdgeDb } from "../../src/idb/open.ts";
import { createIdbReceiptStore } from "../../src/receipts/store-idb.ts";
import type { EdgeDb } from "../../src/idb/schema.ts";
import { memorySource } from "../../src/toolset/inspect.ts";

let db: EdgeDb;
let store: PendingStore;
let host: RunnerHost;
let toolsText = "";
let offsetMs = 0;
let executions = 0;
/** How many confirms of this page passed every pre-claim check (so the claim decided). */
let verified = 0;
const now = (): number => Date.now() + offsetMs;

/** For the two-tab race (armClaimBarrier): each tab's claim waits until both tabs passed every check
 *  before it, so the atomic claim decides the race whatever the machine's speed; released after
 *  30 s in any case (then the spec's count of verified tabs fails, as it should). */
let claimBarrier: { passed(): void; wait: Promise<void> } | undefined;
function barrier(tabs: number): { passed(): void; wait: Promise<void> } {
  const channel = new BroadcastChannel("edge-confirm-claim-barrier");
  let seen = 0;
  let release!: () => void;
  const wait = new Promise<void>((resolve) => (release = resolve));
  const count = () => void (++seen >= tabs && release());
  channel.onmessage = count;
  setTimeout(release, 30_000);
  void wait.then(() => channel.close());
  return { passed: () => (channel.postMessage("verified"), count()), wait };
}
/** The pending store as confirm() sees it: its claim (an update) waits for the barrier when armed. */
const gatedStore = (): PendingStore => ({
  ...store,
  update: async (id, change) => {
    await claimBarrier?.wait;
    return store.update(id, change);
  },
});
const source = memorySource("tools.py", () => toolsText);

const api = {
  async init(dbName: string): Promise<string> {
    db = await openEdgeDb({ name: dbName });
    store = createIdbPendingStore(db);
    const real = await createBrowserRunnerHost();
    host = {
      discover: (job, signal) => real.discover(job, signal),
      call: (job, signal) => {
        executions++;
        return real.call(job, signal);
      },
      close: () => real.close(),
    };
    const res = await fetch("/examples/tools.py");
    toolsText = await res.text();
    startPurging(store, { now, intervalMs: 1000 });
    return "ready";
  },
  async chat(draftId: string) {
    const engine = new ScriptedEngine([
      JSON.stringify({ tool_name: "submit_order", arguments: { draft_id: draftId } }),
    ]);
    await engine.load();
    const session = await createChatSession({
      engine,
      host,
      tools: { kind: "file", source },
      store: createIdbReceiptStore(db),
      confirmations: createConfirmationBroker({ store, toolsFile: source.name, now }),
    });
    const run = await session.chat(`Submit ${draftId}.`);
    return { outcome: run.outcome, error: run.error ?? null, pending_action: run.pending_action ?? null, executions };
  },
  confirm: (id: string, token: string): Promise<ConfirmOutcome> =>
    confirm(id, token, {
      store: gatedStore(),
      host,
      source,
      receipts: createIdbReceiptStore(db),
      confirmedVia: "page",
      now,
      onStep: (s) => {
        if (s !== "verified") return;
        verified++;
        claimBarrier?.passed();
      },
    }),
  /** Arm the claim barrier for the next confirm of `tabs` tabs at once (each tab arms its own). */
  armClaimBarrier(tabs: number): void {
    claimBarrier = barrier(tabs);
  },
  reject: (id: string): Promise<ConfirmOutcome> => reject(id, { store, now }),
  get: (id: string): Promise<PendingAction | undefined> => store.get(id),
  /** Write a record as-is (a tampered storage), bypassing every check. */
  async tamper(id: string, patch: Record<string, unknown>): Promise<void> {
    const rec = await db.get("pending", id);
    await db.put("pending", { ...rec!, ...patch });
  },
  receipts: async (): Promise<Receipt[]> => createIdbReceiptStore(db).list(),
  executions: () => executions,
  verified: () => verified,
  advanceClock(ms: number): void {
    offsetMs += ms;
  },
  setTools(text: string): void {
    toolsText = text;
  },
  tools: () => toolsText,
};

declare global {
  interface Window {
    edgeConfirmTest: typeof api;
  }
}
window.edgeConfirmTest = api;
document.getElementById("status")!.textContent = "ready";

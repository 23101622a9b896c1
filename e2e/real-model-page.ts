// Page-side readers for the real-weight runs (e2e/real-model-checks.ts says what is checked): what
// the playground's chat and the <edge-chat> widget showed of a run, and what the page stored. Each
// function is self-contained — Playwright and the Firefox/WebKit drivers send it to the page as
// text — and returns plain JSON.
import type { Receipt } from "../src/receipts/types.ts";

/** A run as a front door showed it. */
export interface SeenRun {
  /** The tool cards, in order: tool name, "ok" when it ran and returned, the arguments and the
   *  result as shown (JSON text). */
  cards: Array<{ tool: string; ok: boolean; args: string; result: string }>;
  outcome: string;
  code: string | null;
  /** The run's receipt id, where the front door shows it (the playground); else null. */
  receiptId: string | null;
  answer: string | null;
  /** Every text the model's streaming entry showed while it generated, in order (watch*). */
  streamed: string[];
}

type Recorder = { __edgeStreamed?: string[] };

/** Playground: record every text the model's streaming entry shows (until the next page load);
 *  returns where the next run's entries start in the conversation. */
export function watchPlaygroundStream(): number {
  const w = window as Recorder;
  const log = document.querySelector("#chat-log")!;
  if (!w.__edgeStreamed) {
    const seen: string[] = (w.__edgeStreamed = []);
    new MutationObserver(() => {
      for (const el of log.querySelectorAll(".entry .stream")) {
        const text = el.textContent ?? "";
        if (text && seen[seen.length - 1] !== text) seen.push(text);
      }
    }).observe(log, { childList: true, subtree: true, characterData: true });
  }
  w.__edgeStreamed.length = 0;
  return log.children.length;
}

/** Playground: the run whose entries start at `start`, once it has ended (its receipt line shows:
 *  "<outcome>[ (<code>)] · receipt #<seq> <id>"); null before. */
export function readPlaygroundRun(start: number): SeenRun | null {
  const items = [...document.querySelectorAll("#chat-log > li")].slice(start);
  const line = items
    .map((li) => li.querySelector(".receipt-line"))
    .filter((el) => el !== null)
    .pop();
  if (!line) return null;
  const m = /^(\w+)(?: \((\w+)\))? · receipt #\d+ (\S+)/.exec(line.textContent ?? "");
  const cards = items.flatMap((li) => [...li.querySelectorAll<HTMLElement>(".tool-card")]);
  return {
    cards: cards.map((c) => ({
      tool: c.dataset.tool ?? "",
      ok: c.dataset.state === "ok",
      args: c.querySelector("[data-testid=tool-args]")?.textContent ?? "",
      result: c.querySelector("[data-testid=tool-result]")?.textContent ?? "",
    })),
    outcome: m?.[1] ?? `(a receipt line that says no outcome: ${line.textContent})`,
    code: m?.[2] ?? null,
    receiptId: m?.[3] ?? null,
    answer: items.find((li) => li.classList.contains("answer"))?.querySelector(".text")?.textContent ?? null,
    streamed: [...((window as Recorder).__edgeStreamed ?? [])],
  };
}

/** Playground: each tool's argument schema, from the tools panel (what the model sees). */
export function readPlaygroundSchemas(): Record<string, object> {
  const out: Record<string, object> = {};
  for (const pre of document.querySelectorAll("#tool-list li.tool details pre.json")) {
    const schema = JSON.parse(pre.textContent ?? "{}") as { name: string; parameters: object };
    out[schema.name] = schema.parameters;
  }
  return out;
}

/** Widget: record the texts its streaming assistant message shows (a call's start shows as
 *  "Preparing a tool call…"); returns how many messages its conversation has so far. */
export function watchWidgetStream(): number {
  const w = window as Recorder;
  const root = document.querySelector("edge-chat")!.shadowRoot!;
  if (!w.__edgeStreamed) {
    const seen: string[] = (w.__edgeStreamed = []);
    new MutationObserver(() => {
      for (const el of root.querySelectorAll('.msg.assistant[aria-busy="true"]')) {
        const text = el.querySelector(".text, .muted")?.textContent ?? "";
        if (text && seen[seen.length - 1] !== text) seen.push(text);
      }
    }).observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
  }
  w.__edgeStreamed.length = 0;
  return root.querySelectorAll(".msg, article.card").length;
}

/** Widget: the run whose messages start at `start`, once its status line says it ended. */
export function readWidgetRun(start: number): SeenRun | null {
  const root = document.querySelector("edge-chat")!.shadowRoot!;
  const status = /^(Answered|Failed: (\w+))/.exec(root.querySelector("[role=status]")?.textContent ?? "");
  const send = root.querySelector<HTMLButtonElement>("button[type=submit]");
  // The status line comes with the run's end; Send comes back once the widget is idle.
  if (!status || !send || send.disabled || send.textContent?.trim() !== "Send") return null;
  const items = [...root.querySelectorAll(".msg, article.card")].slice(start);
  const cards = items.filter((el) => el.matches("article.card.tool"));
  const answers = items
    .filter((el) => el.matches(".msg.assistant"))
    .map((el) => el.querySelector(".text")?.textContent ?? "");
  return {
    cards: cards.map((c) => {
      const [args, result] = [...c.querySelectorAll("details pre")].map((p) => p.textContent ?? "");
      return {
        tool: c.querySelector(".head code")?.textContent ?? "",
        ok: c.querySelector(".status.ok") !== null,
        args: args ?? "",
        result: result ?? "",
      };
    }),
    outcome: status[1] === "Answered" ? "answered" : "failed_closed",
    code: status[2] ?? null,
    receiptId: null,
    answer: status[1] === "Answered" ? (answers.pop() ?? null) : null,
    streamed: [...((window as Recorder).__edgeStreamed ?? [])],
  };
}

/** Every receipt in the page origin's Edge database ("edge-web"), oldest first. */
export async function readStoredReceipts(): Promise<Receipt[]> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open("edge-web");
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    const all = await new Promise<Receipt[]>((resolve, reject) => {
      const q = db.transaction("receipts").objectStore("receipts").getAll();
      q.onsuccess = () => resolve(q.result as Receipt[]);
      q.onerror = () => reject(q.error);
    });
    return all.sort((a, b) => a.seq - b.seq);
  } finally {
    db.close();
  }
}

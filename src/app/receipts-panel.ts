// Receipts: the chained receipts in IndexedDB — a list, one receipt's detail, export as JSON Lines,
// verify the stored chain, and verify an exported file.
import type { Receipt } from "../receipts/types.ts";
import { toJsonLines, verifyReceipts, type VerifyResult } from "../receipts/chain.ts";
import { toErrorJson } from "../contract/errors.ts";
import type { App } from "./app.ts";
import { download, errorText, h, hashCode, pickFile, pretty, replace, setStatus } from "./dom.ts";

export interface ReceiptsPanel {
  show(id: string): Promise<void>;
  refresh(): Promise<void>;
}

export function mountReceiptsPanel(app: App, root: HTMLElement): ReceiptsPanel {
  const refreshBtn = h("button", { type: "button", id: "receipts-refresh", class: "secondary" }, "Refresh");
  const exportBtn = h("button", { type: "button", id: "receipts-export" }, "Export JSON Lines");
  const verifyBtn = h("button", { type: "button", id: "receipts-verify" }, "Verify chain");
  const verifyFileBtn = h(
    "button",
    { type: "button", id: "receipts-verify-file", class: "secondary" },
    "Verify a file…",
  );
  const verdict = h("p", { id: "receipts-verdict", class: "status", role: "status", "aria-live": "polite" });
  const table = h("table", { id: "receipts-table", class: "receipts" });
  const detail = h("section", {
    id: "receipt-detail",
    class: "receipt-detail",
    "aria-label": "Receipt detail",
    tabindex: -1,
  });
  replace(
    root,
    h("h2", {}, "Receipts"),
    h(
      "p",
      { class: "muted" },
      "Every chat run, tool call, confirmation and learn run appends one hash-first receipt; each holds the previous one's hash, so an edit shows.",
    ),
    h("div", { class: "button-row" }, refreshBtn, exportBtn, verifyBtn, verifyFileBtn),
    verdict,
    h("div", { class: "table-wrap" }, table),
    detail,
  );

  let receipts: Receipt[] = [];

  async function refresh(): Promise<void> {
    try {
      receipts = await app.stores.receipts.list();
    } catch (err) {
      setStatus(verdict, errorText(toErrorJson(err)), "error");
      return;
    }
    renderTable(table, receipts, show);
  }

  async function show(id: string): Promise<void> {
    let r = receipts.find((x) => x.id === id);
    if (!r) {
      await refresh();
      r = receipts.find((x) => x.id === id);
    }
    if (!r) {
      replace(detail, h("p", { class: "error" }, `Receipt ${id} not found.`));
      return;
    }
    replace(
      detail,
      h("h3", {}, `Receipt #${r.seq} · ${r.kind}`),
      h("p", {}, "receipt_sha256 ", hashCode(r.receipt_sha256), " · previous ", hashCode(r.prev_receipt_sha256)),
      h("pre", { class: "json", id: "receipt-json" }, pretty(r)),
    );
    root.closest<HTMLElement>("[role=tabpanel]")?.dispatchEvent(new CustomEvent("edge-show-tab", { bubbles: true }));
    detail.focus();
  }

  refreshBtn.addEventListener("click", () => void refresh());
  exportBtn.addEventListener("click", async () => {
    await refresh();
    download(
      `edge-receipts-${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl`,
      toJsonLines(receipts),
      "application/x-ndjson",
    );
    setStatus(verdict, `Exported ${receipts.length} receipt(s) as JSON Lines.`, "ok");
  });
  verifyBtn.addEventListener("click", async () => {
    await refresh();
    showVerdict(verdict, await verifyReceipts(receipts), "Stored receipts");
  });
  verifyFileBtn.addEventListener("click", async () => {
    const file = await pickFile(".jsonl,.ndjson,.txt,application/x-ndjson");
    if (!file) return;
    showVerdict(verdict, await verifyReceipts(await file.text()), file.name);
  });
  app.on((change) => {
    if (change === "receipts") void refresh();
  });
  void refresh();
  return { show, refresh };
}

/** A verification's verdict in one line: the chain holds, or where it first breaks and why. */
function showVerdict(verdict: HTMLElement, v: VerifyResult, what: string): void {
  if (v.ok) setStatus(verdict, `${what}: chain OK — ${v.count} receipt(s), every hash and link holds.`, "ok");
  else {
    const b = v.firstBroken!;
    setStatus(
      verdict,
      `${what}: chain BROKEN at ${b.line !== undefined ? `line ${b.line}` : `receipt ${b.index + 1}`} (${b.reason}): ${b.message}`,
      "error",
    );
  }
}

/** The stored receipts, newest first, one row each with a button that shows its detail. */
function renderTable(table: HTMLTableElement, receipts: readonly Receipt[], show: (id: string) => Promise<void>): void {
  replace(
    table,
    h("caption", { class: "visually-hidden" }, "Stored receipts, newest first"),
    h(
      "thead",
      {},
      h("tr", {}, ...["#", "Kind", "Outcome", "Calls", "Time", ""].map((c) => h("th", { scope: "col" }, c))),
    ),
    h(
      "tbody",
      {},
      ...[...receipts].reverse().map((r) =>
        h(
          "tr",
          { "data-receipt-id": r.id },
          h("td", {}, String(r.seq)),
          h("td", {}, r.kind),
          h(
            "td",
            { "data-state": r.outcome === "failed_closed" ? "error" : "ok" },
            r.outcome,
            r.code ? ` (${r.code})` : "",
          ),
          h("td", {}, r.calls.map((c) => `${c.tool_name}: ${c.status}${c.code ? ` ${c.code}` : ""}`).join("; ") || "—"),
          h("td", {}, new Date(r.created_at).toLocaleTimeString()),
          h(
            "td",
            {},
            h(
              "button",
              {
                type: "button",
                class: "link",
                onclick: () => void show(r.id),
                "aria-label": `Details of receipt ${r.seq}`,
              },
              "Details",
            ),
          ),
        ),
      ),
    ),
  );
  if (!receipts.length)
    table.appendChild(h("tbody", {}, h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No receipts yet."))));
}

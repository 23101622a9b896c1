// `edge receipts list|show|export|verify`: the receipts stored by this user's Node runs
// (under dataDir(), see src/platform/node-files.ts), and verification of any JSON Lines export —
// also one exported from the browser.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { toJsonLines, verifyReceipts } from "../receipts/chain.ts";
import type { Receipt } from "../receipts/types.ts";
import { ERRORS } from "../contract/error-table.ts";
import { EdgeError, errorJson } from "../contract/errors.ts";
import { createNodeReceiptStore } from "../receipts/store-node.ts";
import { escapeLine, EXIT_FAILED, EXIT_OK, printJson, table, UsageError, type CliIO } from "./io.ts";

function parse(argv: string[], positionals: number, what: string) {
  const parsed = parseArgs({
    args: argv,
    options: { json: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (parsed.positionals.length !== positionals)
    throw new UsageError(positionals ? `Expected exactly one ${what}.` : `receipts ${what} takes no arguments.`);
  return { json: parsed.values.json === true, positionals: parsed.positionals };
}

export async function receiptsList(argv: string[], io: CliIO): Promise<number> {
  const { json } = parse(argv, 0, "list");
  const store = createNodeReceiptStore();
  const receipts = await store.list();
  if (json) {
    printJson(io, { ok: true, count: receipts.length, receipts });
    return EXIT_OK;
  }
  if (!receipts.length) {
    io.out(`No receipts stored in ${store.dir}\n`);
    return EXIT_OK;
  }
  const rows = [["SEQ", "ID", "CREATED", "KIND", "OUTCOME", "CODE", "CALLS", "RECEIPT_SHA256"]];
  for (const r of receipts) {
    rows.push([
      String(r.seq),
      r.id,
      r.created_at,
      r.kind,
      r.outcome,
      r.code ?? "-",
      String(r.calls?.length ?? 0),
      r.receipt_sha256,
    ]);
  }
  io.out(table(rows));
  return EXIT_OK;
}

export async function receiptsShow(argv: string[], io: CliIO): Promise<number> {
  const { json, positionals } = parse(argv, 1, "ID");
  const id = positionals[0]!;
  const receipt = await createNodeReceiptStore().get(id);
  if (!receipt) throw new EdgeError("receipt_not_found", { id }, `${ERRORS.receipt_not_found} (id ${id})`);
  if (json) printJson(io, receipt);
  else io.out(formatReceipt(receipt));
  return EXIT_OK;
}

function formatReceipt(r: Receipt): string {
  const { calls, text, extra, ...fields } = r;
  const keys = Object.keys(fields) as (keyof typeof fields)[];
  const width = Math.max(...keys.map((k) => k.length));
  let out = keys.map((k) => `${k.padEnd(width)}  ${fields[k] === null ? "-" : String(fields[k])}\n`).join("");
  if (calls?.length) {
    const rows = [
      ["CALL", "TOOL", "LEVEL", "STATUS", "CODE", "MS", "FILE_OK", "SECRET_OK", "ARGS_SHA256", "RESULT_SHA256"],
    ];
    for (const c of calls) {
      rows.push([
        c.call_id,
        c.tool_name,
        c.execution_level ?? "-",
        c.status,
        c.code ?? "-",
        String(c.duration_ms),
        String(c.tools_file_sha256_verified),
        String(c.runner_secret_verified),
        c.args_sha256 ?? "-",
        c.result_sha256 ?? "-",
      ]);
    }
    out += `\ncalls:\n${table(rows)}`;
  }
  if (extra !== undefined) out += `\nextra:\n${JSON.stringify(extra, null, 2)}\n`;
  if (text !== undefined) out += `\ntext (stored because includeText was on):\n${JSON.stringify(text, null, 2)}\n`;
  return out;
}

export async function receiptsExport(argv: string[], io: CliIO): Promise<number> {
  parseArgs({ args: argv, options: {}, allowPositionals: false, strict: true });
  io.out(toJsonLines(await createNodeReceiptStore().list()));
  return EXIT_OK;
}

export async function receiptsVerify(argv: string[], io: CliIO): Promise<number> {
  const { json, positionals } = parse(argv, 1, "FILE");
  const file = positionals[0]!;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const e = err as { code?: string; message?: string };
    throw new EdgeError(
      "receipts_file_unreadable",
      { path: file, fs_code: e.code, reason: e.message },
      `${ERRORS.receipts_file_unreadable} (${file}: ${e.code ?? e.message})`,
    );
  }
  const result = await verifyReceipts(text);
  const b = result.firstBroken;
  // Two confirm receipts for one action: the links hold, but the action ran twice.
  const code = b?.reason === "duplicate_confirm" ? "receipt_confirm_duplicated" : "receipt_chain_broken";
  if (json) {
    printJson(io, {
      ok: result.ok,
      file,
      count: result.count,
      ...(b ? { first_broken: b, error: errorJson(code), errors: [errorJson(code)] } : {}),
    });
  } else if (b) {
    const where = [`seq ${b.seq ?? "?"}`, `id ${b.id ?? "?"}`, b.line !== undefined ? `line ${b.line}` : ""]
      .filter(Boolean)
      .join(", ");
    // Ids and messages come from the file, which may come from anyone: each stays on its line.
    io.out(
      `BROKEN: ${escapeLine(file)}\n  ${code} at receipt #${b.index + 1} (${escapeLine(where)}): ${b.reason}: ${escapeLine(b.message)}\n`,
    );
    io.out(`  ${b.index} receipt(s) before it hold.\n`);
  } else {
    io.out(`ok: ${escapeLine(file)}: ${result.count} receipt(s), chain intact\n`);
  }
  return result.ok ? EXIT_OK : EXIT_FAILED;
}

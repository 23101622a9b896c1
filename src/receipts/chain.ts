// The receipt chain (docs/contract.md §9): each receipt carries its place (`seq`), the previous receipt's
// hash and its own hash over everything else, so an edited, removed or reordered receipt shows.
// Pure: no I/O, no DOM, no Node. Stores call chainReceipt; the CLI and the UI call verifyReceipts.
import { canonicalJson, isSha256, sha256Json, type Sha256 } from "../contract/hash.ts";
import { EdgeError } from "../contract/errors.ts";
import { isObj } from "../contract/types.ts";
import { readReceipt } from "./shape.ts";
import { RECEIPT_VERSION, type Receipt, type ReceiptBody } from "./types.ts";

/** Why a link of the chain does not hold. */
export type BrokenReason =
  /** A JSON Lines line that is not JSON. */
  | "malformed_line"
  /** JSON, but not a receipt (missing or mistyped chain fields, unknown receipt_version). */
  | "invalid_receipt"
  /** receipt_sha256 does not match the receipt's content: a field was edited. */
  | "hash_mismatch"
  /** seq is not the previous seq + 1 (1 for the first): a receipt was removed, inserted or moved. */
  | "seq_mismatch"
  /** prev_receipt_sha256 does not name the previous receipt: a receipt was removed, replaced or moved. */
  | "prev_mismatch"
  /** The same id appears twice. */
  | "duplicate_id"
  /** A second confirm receipt for one pending action, which runs at most once: its token was
   *  replayed (every link of the chain can hold while this is so). */
  | "duplicate_confirm";

export interface BrokenLink {
  /** 0-based position in the list (for JSON Lines: among the non-blank lines). */
  index: number;
  /** 1-based line number, when verifying JSON Lines text. */
  line?: number;
  /** The receipt's own claims; null when the entry is not readable as a receipt. */
  seq: number | null;
  id: string | null;
  reason: BrokenReason;
  /** A sentence for people. */
  message: string;
}

export interface VerifyResult {
  ok: boolean;
  /** How many receipts were checked (all of them when ok; up to and including the broken one otherwise). */
  count: number;
  firstBroken?: BrokenLink;
}

/** The hash a receipt must carry: sha256(JCS(receipt without receipt_sha256)). Takes any object: a
 *  chain being verified is hashed before it is known to hold receipts. */
export function receiptSha256(receipt: object): Promise<Sha256> {
  return sha256Json(Object.fromEntries(Object.entries(receipt).filter(([key]) => key !== "receipt_sha256")));
}

/**
 * Chain a body after `prev` (null for the first receipt). The result is plain JSON (undefined
 * fields dropped, exactly what JSON Lines export writes), so the stored object, the export and the
 * hash all agree. Chain fields already on `body` are ignored.
 */
export async function chainReceipt(body: ReceiptBody, prev: Receipt | null): Promise<Receipt> {
  if (prev !== null && (!Number.isSafeInteger(prev.seq) || prev.seq < 1 || !isSha256(prev.receipt_sha256))) {
    throw EdgeError.withTableFix(
      "receipt_chain_broken",
      { seq: prev.seq, id: prev.id },
      `The previous receipt has no valid seq/receipt_sha256; the chain cannot continue from it.`,
    );
  }
  const { seq: _s, prev_receipt_sha256: _p, receipt_sha256: _h, ...plain } = body as ReceiptBody & Partial<Receipt>;
  // JSON round trip through the canonical form: refuses NaN/Infinity/cycles, drops undefined.
  const normalized = JSON.parse(canonicalJson(plain)) as ReceiptBody;
  const unhashed = {
    ...normalized,
    seq: prev ? prev.seq + 1 : 1,
    prev_receipt_sha256: prev ? prev.receipt_sha256 : null,
  };
  return { ...unhashed, receipt_sha256: await receiptSha256(unhashed) };
}

/** One receipt per line, canonical JSON (RFC 8785), oldest first; "" for none. */
export function toJsonLines(receipts: readonly Receipt[]): string {
  return receipts.map((r) => `${canonicalJson(r)}\n`).join("");
}

interface Entry {
  line?: number;
  value?: unknown;
  parseError?: string;
}

function splitJsonLines(text: string): Entry[] {
  const entries: Entry[] = [];
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return; // blank lines (and the final newline) carry nothing
    try {
      entries.push({ line: i + 1, value: JSON.parse(line) as unknown });
    } catch (err) {
      entries.push({ line: i + 1, parseError: err instanceof Error ? err.message : String(err) });
    }
  });
  return entries;
}

/**
 * Parse JSON Lines into receipts, each checked field by field against the Receipt type
 * (readReceipt); a line that is not JSON, not an object or not a receipt is receipts_file_invalid,
 * naming its line (and the field). Whether the receipts chain is verifyReceipts' question.
 */
export function parseJsonLines(text: string): Receipt[] {
  return splitJsonLines(text).map((entry) => {
    if (entry.parseError !== undefined) {
      throw EdgeError.withTableFix(
        "receipts_file_invalid",
        { line: entry.line, reason: entry.parseError },
        `Line ${entry.line} is not JSON: ${entry.parseError}.`,
      );
    }
    if (!isObj(entry.value)) {
      throw EdgeError.withTableFix(
        "receipts_file_invalid",
        { line: entry.line },
        `Line ${entry.line} is not a JSON object.`,
      );
    }
    const read = readReceipt(entry.value);
    if (!read.ok) {
      throw EdgeError.withTableFix(
        "receipts_file_invalid",
        { line: entry.line, reason: read.problem },
        `Line ${entry.line} is not a receipt: ${read.problem}.`,
      );
    }
    return read.receipt;
  });
}

/**
 * Check a whole chain, oldest first, and report the FIRST link that does not hold. The first
 * receipt must be seq 1 with prev_receipt_sha256 null, so removing the head shows too. What no
 * hash chain can show on its own: receipts cut off the end (compare `count` with what you expect).
 */
export async function verifyReceipts(receipts: readonly Receipt[] | string): Promise<VerifyResult> {
  const entries: Entry[] =
    typeof receipts === "string" ? splitJsonLines(receipts) : receipts.map((value) => ({ value }));
  const seen = new Set<string>();
  const confirmed = new Map<string, { seq: number; id: string }>();
  let prev: { seq: number; receipt_sha256: string } | null = null;
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!;
    const broken = (reason: BrokenReason, message: string, seq: number | null, id: string | null): VerifyResult => ({
      ok: false,
      count: index + 1,
      firstBroken: { index, ...(entry.line !== undefined ? { line: entry.line } : {}), seq, id, reason, message },
    });
    if (entry.parseError !== undefined) return broken("malformed_line", `Not JSON: ${entry.parseError}`, null, null);
    const value = entry.value;
    if (!isObj(value)) return broken("invalid_receipt", "Not a JSON object.", null, null);
    const seq = Number.isSafeInteger(value.seq) && (value.seq as number) >= 1 ? (value.seq as number) : null;
    const id = typeof value.id === "string" ? value.id : null;
    const shapeProblem =
      value.receipt_version !== RECEIPT_VERSION
        ? `receipt_version is not ${RECEIPT_VERSION}`
        : id === null
          ? "id is missing or not a string"
          : seq === null
            ? "seq is missing or not a positive integer"
            : !isSha256(value.receipt_sha256)
              ? "receipt_sha256 is missing or not a sha256: hash"
              : !(value.prev_receipt_sha256 === null || isSha256(value.prev_receipt_sha256))
                ? "prev_receipt_sha256 must be null or a sha256: hash"
                : null;
    if (shapeProblem) return broken("invalid_receipt", `Not a receipt: ${shapeProblem}.`, seq, id);
    let actual: Sha256;
    try {
      actual = await receiptSha256(value);
    } catch (err) {
      return broken(
        "invalid_receipt",
        `Not canonical JSON: ${err instanceof Error ? err.message : String(err)}`,
        seq,
        id,
      );
    }
    if (actual !== value.receipt_sha256) {
      return broken(
        "hash_mismatch",
        `receipt_sha256 does not match the content (computed ${actual}): the receipt was edited.`,
        seq,
        id,
      );
    }
    const expectedSeq: number = prev ? prev.seq + 1 : 1;
    if (seq !== expectedSeq) {
      return broken(
        "seq_mismatch",
        `Expected seq ${expectedSeq}, found ${seq}: a receipt was removed, inserted or moved.`,
        seq,
        id,
      );
    }
    const expectedPrev: string | null = prev ? prev.receipt_sha256 : null;
    if (value.prev_receipt_sha256 !== expectedPrev) {
      return broken(
        "prev_mismatch",
        `prev_receipt_sha256 should be ${expectedPrev ?? "null"}, found ${String(value.prev_receipt_sha256)}: the previous receipt was replaced or moved.`,
        seq,
        id,
      );
    }
    if (seen.has(id!)) return broken("duplicate_id", `The id ${id} appears twice in the chain.`, seq, id);
    seen.add(id!);
    const action = confirmedAction(value);
    const first = action ? confirmed.get(action) : undefined;
    if (first) {
      return broken(
        "duplicate_confirm",
        `A second confirm receipt for pending action ${action} (the first is seq ${first.seq}, id ${first.id}); an action runs at most once, so its token was replayed.`,
        seq,
        id,
      );
    }
    if (action) confirmed.set(action, { seq: seq!, id: id! });
    prev = { seq: seq!, receipt_sha256: value.receipt_sha256 as string };
  }
  return { ok: true, count: entries.length };
}

/** The pending action a confirm receipt ran, if it is one. */
function confirmedAction(value: Record<string, unknown>): string | null {
  const extra = value.extra;
  if (value.kind !== "confirm" || !isObj(extra)) return null;
  return typeof extra.pending_action_id === "string" ? extra.pending_action_id : null;
}

// `edge imprints list|show|export|import|delete`: the imprints stored under $EDGE_DATA_DIR/imprints.
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { EdgeError } from "../contract/errors.ts";
import type { ImprintBinding } from "../chat/types.ts";
import { receiptSha256 } from "../receipts/chain.ts";
import { RECEIPT_VERSION, type Receipt } from "../receipts/types.ts";
import {
  imprintBinding,
  isImprintId,
  parseImprintExport,
  renderImprintExport,
  type Imprint,
} from "../imprint/index.ts";
import { createNodeImprintStore, type NodeImprintStore } from "../imprint/store-node.ts";
import { importWithState, nodeStateRestorer, storedState } from "../imprint/node-state.ts";
import { EXIT_FAILED, EXIT_OK, printJson, table, UsageError, type CliIO } from "./io.ts";

function parse(sub: string, argv: string[], positionals: number, what = "") {
  const parsed = parseArgs({
    args: argv,
    options: {
      json: { type: "boolean" },
      output: { type: "string", short: "o" },
      "without-state": { type: "boolean" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(
      positionals ? `imprints ${sub} takes exactly one ${what}.` : `imprints ${sub} takes no arguments.`,
    );
  }
  if ((parsed.values.output !== undefined || parsed.values["without-state"]) && sub !== "export")
    throw new UsageError("-o/--output and --without-state are only for imprints export.");
  return {
    json: parsed.values.json === true,
    output: parsed.values.output,
    withoutState: parsed.values["without-state"] === true,
    arg: parsed.positionals[0] ?? "",
  };
}

export async function imprintsList(argv: string[], io: CliIO): Promise<number> {
  const { json } = parse("list", argv, 0);
  const rows = await createNodeImprintStore().list();
  if (json) printJson(io, { ok: true, imprints: rows });
  else if (rows.length === 0) io.out("no imprints stored\n");
  else {
    io.out(
      table([
        ["id", "created", "model", "sample", "tools"],
        ...rows.map((r) => [
          r.id,
          r.created_at ?? "-",
          r.model_id ?? "-",
          r.sample_id ?? "-",
          r.corrupted ? "CORRUPTED" : r.tools ? r.tools.join(",") || "-" : "(none)",
        ]),
      ]),
    );
  }
  return rows.some((r) => r.corrupted) ? EXIT_FAILED : EXIT_OK;
}

export async function imprintsShow(argv: string[], io: CliIO): Promise<number> {
  const { json, arg } = parse("show", argv, 1, "ID");
  const store = createNodeImprintStore();
  const imprint = await store.get(arg);
  const stored = await storedState(store, imprint);
  const problem = stored && "problem" in stored ? stored.problem : null;
  const state = imprint.state
    ? { file: store.stateFile(imprint.id), intact: problem === null, ...(problem ? { problem } : {}) }
    : null;
  if (json) printJson(io, { ok: true, imprint, state });
  else {
    io.out(`${imprint.id}  learned ${imprint.created_at} with ${imprint.model.model_id} (${imprint.model.engine})\n`);
    io.out(`  sample ${imprint.sample.sample_id} ${imprint.sample.sample_sha256}\n`);
    io.out(
      `  tools: ${imprint.tools ? `${Object.keys(imprint.tools.tool_schema_sha256).join(", ")} (${imprint.tools.surface ?? "tools_file"})` : "(none)"}\n`,
    );
    io.out(
      `  prefix: ${imprint.prefix.length} chars, ${imprint.prefix_sha256}\n  imprint_sha256: ${imprint.imprint_sha256}\n`,
    );
    io.out(
      `  evaluation: with prefix ${imprint.evaluation.matched_with_prefix}/${imprint.evaluation.scored}, without ${imprint.evaluation.matched_without_prefix}/${imprint.evaluation.scored}\n`,
    );
    const s = imprint.state;
    io.out(
      s
        ? `  model state: ${s.prefix_tokens} tokens, ${s.artifact_bytes} bytes (${s.runtime}, ${s.context_size}-token context), ${problem ? `NOT USABLE: ${problem.code} (${problem.reason})` : "intact"}\n`
        : "  model state: none\n",
    );
  }
  return EXIT_OK;
}

export async function imprintsExport(argv: string[], io: CliIO): Promise<number> {
  const { json, output, withoutState, arg } = parse("export", argv, 1, "ID");
  const store = createNodeImprintStore();
  const imprint = await store.get(arg);
  // The saved model state travels in the same file; a damaged one is never passed on.
  const stored = withoutState ? null : await storedState(store, imprint);
  if (stored && "problem" in stored) {
    const { code, reason } = stored.problem;
    throw new EdgeError(
      code,
      { id: imprint.id, reason },
      `The saved model state of ${imprint.id} is not intact (${reason}), so nothing was exported. Export the imprint without it (--without-state: chats then evaluate the prefix), or learn it again.`,
    );
  }
  const text = renderImprintExport(imprint, stored?.bytes ?? null);
  if (output) {
    try {
      await writeFile(output, text, { flag: "wx", mode: 0o600 });
    } catch (err) {
      throw new EdgeError(
        "storage_failed",
        { path: output, reason: String(err) },
        `Could not write ${output}: ${(err as Error).message} (an existing file is never replaced). Pick another output path, or check its folder's permissions.`,
      );
    }
    if (json) printJson(io, { ok: true, file: output, state: stored !== null });
  } else io.out(text);
  return EXIT_OK;
}

export async function imprintsImport(argv: string[], io: CliIO): Promise<number> {
  const { json, arg: file } = parse("import", argv, 1, "FILE");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new EdgeError(
      "imprint_corrupted",
      { path: file, reason: "unreadable" },
      `The imprint file ${file} could not be read: ${(err as Error).message}. Check the path and its permissions.`,
    );
  }
  const { imprint, state } = await parseImprintExport(text);
  const store = createNodeImprintStore();
  if (state) await importWithState(store, imprint, state);
  else await store.put(imprint);
  if (json) printJson(io, { ok: true, imprint_id: imprint.id, state: state !== null });
  else io.out(`imported ${imprint.id}${state ? ` with its model state (${state.byteLength} bytes)` : ""}\n`);
  return EXIT_OK;
}

export async function imprintsDelete(argv: string[], io: CliIO): Promise<number> {
  const { json, arg: id } = parse("delete", argv, 1, "ID");
  await createNodeImprintStore().delete(id);
  if (json) printJson(io, { ok: true, deleted: id });
  else io.out(`deleted ${id}\n`);
  return EXIT_OK;
}

/**
 * `--with-imprint VALUE`: an imprint id from the store, the path of an exported imprint file
 * (verified, not stored), or the path of a learn receipt (Edge Studio's handoff object: its own
 * hash is checked, then the imprint it names must be stored and be exactly the one it sealed).
 * The returned binding's gate runs in createChatSession.
 */
export async function imprintBindingFor(value: string): Promise<ImprintBinding> {
  const store = createNodeImprintStore();
  // A stored imprint restores from the state file beside it; an exported one from the bytes it carries.
  const fromStore = (imprint: Imprint) =>
    imprintBinding(imprint, nodeStateRestorer(imprint, { file: store.stateFile(imprint.id) }, store));
  if (isImprintId(value)) return fromStore(await store.get(value));
  let text: string;
  try {
    text = await readFile(value, "utf8");
  } catch {
    throw new EdgeError(
      "imprint_not_found",
      { id: value },
      `No imprint "${value}": it is neither a stored imprint id (imp_…), an exported imprint file, nor a learn receipt.`,
    );
  }
  const receipt = learnReceiptOf(text);
  if (receipt) return fromStore(await imprintOfReceipt(store, receipt, value));
  const exported = await parseImprintExport(text);
  return imprintBinding(exported.imprint, nodeStateRestorer(exported.imprint, { bytes: exported.state }, store));
}

function learnReceiptOf(text: string): Receipt | null {
  try {
    const value = JSON.parse(text) as Partial<Receipt>;
    return value?.receipt_version === RECEIPT_VERSION && value.kind === "learn" ? (value as Receipt) : null;
  } catch {
    return null;
  }
}

async function imprintOfReceipt(store: NodeImprintStore, receipt: Receipt, file: string): Promise<Imprint> {
  let sealed: unknown;
  try {
    sealed = await receiptSha256(receipt);
  } catch {
    sealed = null;
  }
  if (sealed !== receipt.receipt_sha256 || !isImprintId(receipt.imprint_id)) {
    throw new EdgeError(
      "imprint_corrupted",
      { path: file, reason: "receipt" },
      `The learn receipt ${file} does not match its own receipt_sha256 (it was edited or damaged); it was not used.`,
    );
  }
  const imprint = await store.get(receipt.imprint_id);
  if (imprint.imprint_sha256 !== receipt.extra?.["imprint_sha256"]) {
    throw new EdgeError(
      "imprint_corrupted",
      { path: file, imprint_id: imprint.id, reason: "receipt_mismatch" },
      `The stored imprint ${imprint.id} is not the one the learn receipt ${file} sealed; it was not used.`,
    );
  }
  return imprint;
}

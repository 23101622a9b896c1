// The receipt store in Node: one pretty-printed JSON file per receipt in <dataDir>/receipts/,
// named by zero-padded seq (000000000001.json …), private (folder 0700, files 0600). Appends take
// an inter-process lock file, read the head, chain, and write the new file atomically and
// without ever replacing an existing one, so concurrent CLI processes still form one chain.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Receipt, ReceiptBody } from "./types.ts";
import type { ReceiptStore } from "./store.ts";
import { chainReceipt } from "./chain.ts";
import { EdgeError } from "../contract/errors.ts";
import { dataDir, ensurePrivateDir, listDirIfExists, withFileLock, writeFileAtomic, type FileLockOptions } from "../platform/node-files.ts";
import { toStorageError } from "../platform/storage-error.ts";

export interface NodeReceiptStoreOptions extends FileLockOptions {
  /** The data directory (receipts go to <dir>/receipts). Default dataDir() at creation time. */
  dir?: string;
}

const FILE_RE = /^(\d{12})\.json$/;

export function receiptFileName(seq: number): string {
  return `${String(seq).padStart(12, "0")}.json`;
}

export function createNodeReceiptStore(options: NodeReceiptStoreOptions = {}): ReceiptStore & { readonly dir: string } {
  const root = options.dir ?? dataDir();
  const dir = path.join(root, "receipts");
  const lockFile = path.join(dir, ".lock");
  const idsDir = path.join(dir, ".ids");
  // Appends of this process queue up here first, so they do not spin on the file lock against each other.
  let queue: Promise<unknown> = Promise.resolve();

  async function files(): Promise<string[]> {
    return (await listDirIfExists(dir, "list receipts")).filter((f) => FILE_RE.test(f));
  }

  async function readReceipt(file: string): Promise<Receipt> {
    const full = path.join(dir, file);
    let text: string;
    try {
      text = await readFile(full, "utf8");
    } catch (err) {
      throw toStorageError(err, "read receipt", { path: full });
    }
    try {
      return JSON.parse(text) as Receipt;
    } catch (err) {
      throw new EdgeError("storage_failed", { op: "read receipt", path: full, reason: "not_json" }, `Saving to local storage failed: ${full} is not JSON (${(err as Error).message}). Restore the file, or move it away to start with an empty store.`);
    }
  }

  // Under the lock: read only the head (the last file), claim the id with a marker file created
  // exclusively (so a duplicate id is refused in O(1), not by reading every receipt), then write.
  async function appendLocked(body: ReceiptBody): Promise<Receipt> {
    const names = await files();
    const last = names.at(-1);
    const prev = last ? await readReceipt(last) : null;
    const receipt = await chainReceipt(body, prev);
    await ensurePrivateDir(idsDir, { narrow: true });
    try {
      // The marker only guards uniqueness; the receipt file below is the durable record.
      await writeFile(path.join(idsDir, `${encodeURIComponent(body.id)}.seq`), String(receipt.seq), { flag: "wx", mode: 0o600 });
    } catch (err) {
      if ((err as { code?: string }).code === "EEXIST") {
        throw EdgeError.withTableFix("receipt_id_conflict", { id: body.id }, `A receipt with id ${body.id} is already stored; receipt ids must be unique.`);
      }
      throw toStorageError(err, "write receipt id", { path: idsDir });
    }
    await writeFileAtomic(path.join(dir, receiptFileName(receipt.seq)), `${JSON.stringify(receipt, null, 2)}\n`, { noClobber: true });
    return receipt;
  }

  return {
    dir,
    append(body) {
      const run = queue.then(async () => {
        await ensurePrivateDir(root);
        await ensurePrivateDir(dir, { narrow: true });
        return withFileLock(lockFile, () => appendLocked(body), options);
      });
      queue = run.catch(() => undefined);
      return run;
    },
    async get(id) {
      const names = await files();
      for (let i = names.length - 1; i >= 0; i--) {
        const r = await readReceipt(names[i]!);
        if (r.id === id) return r;
      }
      return undefined;
    },
    async list() {
      return Promise.all((await files()).map(readReceipt));
    },
  };
}

// The imprint store in Node: one pretty-printed JSON file per imprint, <dataDir>/imprints/<id>.json,
// private (folder 0700, files 0600), written atomically and never replaced. Every read re-verifies
// the seal, so a file edited on disk is refused (imprint_corrupted), not trusted. An imprint's saved
// model state lives beside it as <id>.state (node-state.ts); deleting the imprint deletes it too.
import { unlink } from "node:fs/promises";
import path from "node:path";
import { EdgeError } from "../contract/errors.ts";
import {
  dataDir,
  ensurePrivateDir,
  listDirIfExists,
  readTextIfExists,
  unlinkIfExists,
  writeFileAtomic,
} from "../platform/node-files.ts";
import { toStorageError } from "../platform/storage-error.ts";
import { isImprintId, listingOf, verifyImprint, type ImprintListing } from "./record.ts";
import type { ImprintStore } from "./store.ts";

export interface NodeImprintStoreOptions {
  /** The data directory (imprints go to <dir>/imprints). Default dataDir() at creation time. */
  dir?: string;
}

const FILE_RE = /^(imp_[0-9a-f]{24})\.json$/;

export interface NodeImprintStore extends ImprintStore {
  /** The imprints folder. */
  readonly dir: string;
  /** Create the data folder and the imprints folder, private. */
  ensureDir(): Promise<void>;
  /** Where an imprint's saved model state lives (whether or not it exists). */
  stateFile(id: string): string;
}

export function createNodeImprintStore(options: NodeImprintStoreOptions = {}): NodeImprintStore {
  const root = options.dir ?? dataDir();
  const dir = path.join(root, "imprints");
  const fileOf = (id: string): string => {
    if (!isImprintId(id))
      throw EdgeError.withTableFix(
        "imprint_not_found",
        { id },
        `No imprint with id "${id}" is stored (imprint ids look like imp_ followed by 24 hex digits).`,
      );
    return path.join(dir, `${id}.json`);
  };

  async function readRaw(file: string, id: string): Promise<unknown> {
    const text = await readTextIfExists(file, "read imprint");
    if (text === undefined)
      throw new EdgeError(
        "imprint_not_found",
        { id },
        `No imprint with id "${id}" is stored; list them with \`edge imprints list\`.`,
      );
    try {
      return JSON.parse(text);
    } catch {
      return text; // verifyImprint reports it as corrupted
    }
  }

  const ensureDir = async (): Promise<void> => {
    await ensurePrivateDir(root);
    await ensurePrivateDir(dir, { narrow: true });
  };

  return {
    dir,
    ensureDir,
    stateFile: (id) => fileOf(id).replace(/\.json$/, ".state"),
    async put(imprint) {
      const verified = await verifyImprint(imprint);
      await ensureDir();
      await writeFileAtomic(fileOf(verified.id), `${JSON.stringify(verified, null, 2)}\n`, { noClobber: true });
    },
    async get(id) {
      const file = fileOf(id);
      const value = await readRaw(file, id);
      const imprint = await verifyImprint(value);
      if (imprint.id !== id)
        throw EdgeError.withTableFix(
          "imprint_corrupted",
          { id, reason: "id does not match its file" },
          `The imprint file ${id}.json holds another imprint (${imprint.id}); it was not used.`,
        );
      return imprint;
    },
    async list(): Promise<ImprintListing[]> {
      const names = (await listDirIfExists(dir, "list imprints")).filter((f) => FILE_RE.test(f));
      const rows: ImprintListing[] = [];
      for (const name of names) {
        const id = FILE_RE.exec(name)![1]!;
        rows.push(await listingOf(await readRaw(path.join(dir, name), id), id));
      }
      return rows.sort((a, b) =>
        (a.created_at ?? "") < (b.created_at ?? "")
          ? -1
          : (a.created_at ?? "") > (b.created_at ?? "")
            ? 1
            : a.id < b.id
              ? -1
              : 1,
      );
    },
    async delete(id) {
      const file = fileOf(id);
      try {
        await unlink(file);
      } catch (err) {
        if ((err as { code?: string }).code === "ENOENT")
          throw EdgeError.withTableFix("imprint_not_found", { id }, `No imprint with id "${id}" is stored.`);
        throw toStorageError(err, "delete imprint", { path: file });
      }
      await unlinkIfExists(file.replace(/\.json$/, ".state"), "delete imprint state");
    },
  };
}

// `edge imprints list|show|export|import|delete`: the imprints stored under $EDGE_DATA_DIR/imprints.
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { EdgeError } from "../contract/errors.ts";
import type { ImprintBinding } from "../chat/session.ts";
import { exportImprint, importImprint, imprintBinding, isImprintId, parseImprintText } from "../imprint/index.ts";
import { createNodeImprintStore } from "../imprint/node-store.ts";
import { EXIT_FAILED, EXIT_OK, printJson, table, UsageError, type CliIO } from "./io.ts";

export async function imprintsCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { json: { type: "boolean" }, output: { type: "string", short: "o" } },
    allowPositionals: true,
    strict: true,
  });
  const store = createNodeImprintStore();
  const one = (what: string): string => {
    if (positionals.length !== 1) throw new UsageError(`imprints ${sub} takes exactly one ${what}.`);
    return positionals[0]!;
  };
  switch (sub) {
    case "list": {
      if (positionals.length) throw new UsageError("imprints list takes no arguments.");
      const rows = await store.list();
      if (values.json) printJson(io, { ok: true, imprints: rows });
      else if (rows.length === 0) io.out("no imprints stored\n");
      else {
        io.out(
          table([
            ["id", "created", "model", "sample", "tools"],
            ...rows.map((r) => [r.id, r.created_at ?? "-", r.model_id ?? "-", r.sample_id ?? "-", r.corrupted ? "CORRUPTED" : r.tools ? r.tools.join(",") || "-" : "(none)"]),
          ]),
        );
      }
      return rows.some((r) => r.corrupted) ? EXIT_FAILED : EXIT_OK;
    }
    case "show": {
      const imprint = await store.get(one("ID"));
      if (values.json) printJson(io, { ok: true, imprint });
      else {
        io.out(`${imprint.id}  learned ${imprint.created_at} with ${imprint.model.model_id} (${imprint.model.engine})\n`);
        io.out(`  sample ${imprint.sample.sample_id} ${imprint.sample.sample_sha256}\n`);
        io.out(`  tools: ${imprint.tools ? Object.keys(imprint.tools.tool_schema_sha256).join(", ") : "(none)"}\n`);
        io.out(`  prefix: ${imprint.prefix.length} chars, ${imprint.prefix_sha256}\n  imprint_sha256: ${imprint.imprint_sha256}\n`);
        io.out(`  evaluation: with prefix ${imprint.evaluation.matched_with_prefix}/${imprint.evaluation.scored}, without ${imprint.evaluation.matched_without_prefix}/${imprint.evaluation.scored}\n`);
      }
      return EXIT_OK;
    }
    case "export": {
      const text = await exportImprint(store, one("ID"));
      if (values.output) {
        try {
          await writeFile(values.output, text, { flag: "wx", mode: 0o600 });
        } catch (err) {
          throw new EdgeError("storage_failed", { path: values.output, reason: String(err) }, `Could not write ${values.output}: ${(err as Error).message} (an existing file is never replaced).`);
        }
        if (values.json) printJson(io, { ok: true, file: values.output });
      } else io.out(text);
      return EXIT_OK;
    }
    case "import": {
      const file = one("FILE");
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (err) {
        throw new EdgeError("imprint_corrupted", { path: file, reason: "unreadable" }, `The imprint file ${file} could not be read: ${(err as Error).message}`);
      }
      const imprint = await importImprint(store, text);
      if (values.json) printJson(io, { ok: true, imprint_id: imprint.id });
      else io.out(`imported ${imprint.id}\n`);
      return EXIT_OK;
    }
    case "delete": {
      const id = one("ID");
      await store.delete(id);
      if (values.json) printJson(io, { ok: true, deleted: id });
      else io.out(`deleted ${id}\n`);
      return EXIT_OK;
    }
    default:
      throw new UsageError(sub ? `Unknown subcommand "imprints ${sub}".` : "Missing subcommand: imprints list|show|export|import|delete.");
  }
}

/**
 * `--with-imprint VALUE`: an imprint id from the store, or the path of an exported imprint file
 * (verified, not stored). The returned binding's gate runs in createChatSession.
 */
export async function imprintBindingFor(value: string): Promise<ImprintBinding> {
  if (isImprintId(value)) return imprintBinding(await createNodeImprintStore().get(value));
  let text: string;
  try {
    text = await readFile(value, "utf8");
  } catch {
    throw new EdgeError("imprint_not_found", { id: value }, `No imprint "${value}": it is neither a stored imprint id (imp_…) nor a readable exported imprint file.`);
  }
  return imprintBinding(await parseImprintText(text));
}

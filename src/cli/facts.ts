// `edge facts import|list|inspect|delete|export`: local facts stores under $EDGE_DATA_DIR/facts.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { EdgeError, toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { importFacts } from "../facts/import.ts";
import { compareWithSchemaExport, looksLikeJson, manifestSchemas, validateToolsManifest } from "../facts/manifest.ts";
import { createNodeFactsStore } from "../facts/store-node.ts";
import { readToolsFile } from "../runner/node-file-source.ts";
import { EXIT_FAILED, EXIT_OK, formatError, printJson, table, UsageError, type CliIO } from "./io.ts";

export async function factsCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { store: { type: "string" }, json: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  const facts = createNodeFactsStore();
  const json = values.json === true;
  if (values.store !== undefined && sub !== "import") throw new UsageError("--store is only for facts import (the other subcommands take the store name as STORE).");
  switch (sub) {
    case "import": {
      const file = one(positionals, "FILE");
      let raw: Uint8Array;
      try {
        raw = await readFile(file);
      } catch (err) {
        throw new EdgeError("invalid_facts_file", { path: file }, `The facts file ${file} could not be read: ${(err as Error).message}`);
      }
      try {
        const report = await importFacts(facts, raw, values.store !== undefined ? { store: values.store } : {});
        if (json) printJson(io, { ok: true, ...report });
        else io.out(`imported ${report.imported} facts into "${report.store}" (${report.inserted} new, ${report.updated} updated; ${report.total} in the store)\n`);
        return EXIT_OK;
      } catch (err) {
        // A bad file: every problem, not just the first.
        const e = toErrorJson(err);
        const all = err instanceof EdgeError && Array.isArray(err.details["errors"]) ? (err.details["errors"] as ErrorJson[]) : [e];
        if (json) printJson(io, { ok: false, error: e, errors: all });
        else io.err(`edge: facts file ${file} was not imported (nothing changed):\n${all.map(formatError).join("\n")}\n`);
        return EXIT_FAILED;
      }
    }
    case "list": {
      none(positionals);
      const stores = await facts.list();
      if (json) printJson(io, { ok: true, stores });
      else if (stores.length === 0) io.out("no facts stores (edge facts import FILE --store NAME)\n");
      else io.out(table([["STORE", "FACTS", "TOPICS", "UPDATED"], ...stores.map((s) => [s.store, String(s.facts), String(s.topics), s.updated_at ?? "-"])]));
      return EXIT_OK;
    }
    case "inspect": {
      const detail = await facts.inspect(one(positionals, "STORE"));
      if (json) printJson(io, { ok: true, ...detail });
      else {
        io.out(`store ${detail.store}: ${detail.facts} facts, ${detail.topics} topics, updated ${detail.updated_at ?? "-"}\n\n`);
        io.out(table([["TOPIC", "FACTS"], ...detail.topic_counts.map((t) => [t.topic, String(t.facts)])]));
        if (detail.tag_counts.length) io.out(`\ntags: ${detail.tag_counts.map((t) => `${t.tag} (${t.facts})`).join(", ")}\n`);
      }
      return EXIT_OK;
    }
    case "delete": {
      const result = await facts.delete(one(positionals, "STORE"));
      if (json) printJson(io, { ok: true, ...result });
      else io.out(`deleted store "${result.store}" (${result.deleted} facts)\n`);
      return EXIT_OK;
    }
    case "export": {
      // Always JSON: the output is an importable edge.demo.facts.v1 file.
      printJson(io, await facts.export(one(positionals, "STORE")));
      return EXIT_OK;
    }
    default:
      throw new UsageError(sub ? `Unknown subcommand "facts ${sub}".` : "Missing subcommand: facts import|list|inspect|delete|export.");
  }
}

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`Expected exactly one ${what}.`);
  return positionals[0]!;
}

function none(positionals: string[]): void {
  if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
}

// ── `edge tools validate|inspect MANIFEST.json` (called from tools.ts) ──────────────────────

/** The file's bytes when it is a tools manifest (.json name, or JSON content), else null. */
export async function readIfManifest(file: string): Promise<Uint8Array | null> {
  let raw: Uint8Array;
  try {
    // The tools file's own reader: a regular file within the size limit, or no manifest.
    raw = await readToolsFile(file);
  } catch {
    return null; // the tools.py path reports unreadable, non-regular or oversized files with its own code
  }
  return file.toLowerCase().endsWith(".json") || looksLikeJson(raw) ? raw : null;
}

export async function manifestCommand(
  sub: "validate" | "inspect",
  file: string,
  raw: Uint8Array,
  options: { learnSample?: string; json: boolean; selection: boolean },
  io: CliIO,
): Promise<number> {
  if (options.selection) throw new UsageError("--tool / --tool-tag select among a tools.py's tools; a manifest's tools are all active.");
  const report = await validateToolsManifest(raw);
  if (options.learnSample !== undefined) {
    let sample: unknown;
    try {
      sample = JSON.parse(await readFile(options.learnSample, "utf8"));
    } catch (err) {
      throw new EdgeError("invalid_argument", { path: options.learnSample }, `The learn sample ${options.learnSample} is not a readable JSON file: ${(err as Error).message}`);
    }
    report.warnings.push(...compareWithSchemaExport(report, sample));
  }
  const { manifest, ...shown } = report;
  const out = sub === "inspect" && manifest ? { ...shown, tools_file: file, schemas: manifestSchemas(manifest) } : shown;
  if (options.json) printJson(io, out);
  else {
    io.out(`${report.ok ? "valid" : "INVALID"}: ${file} (tools manifest)\n`);
    io.out(`  tools: ${report.tool_count}, tools_manifest_sha256: ${report.tools_manifest_sha256}\n`);
    if (report.active_set_sha256) io.out(`  active_set_sha256: ${report.active_set_sha256}\n`);
    if (report.tools.length) io.out(table([["TOOL", "KIND", "STORE"], ...report.tools.map((t) => [t.name, t.kind, t.store])]));
    if (report.errors.length) io.out(`errors:\n${report.errors.map(formatError).join("\n")}\n`);
    if (report.warnings.length) io.out(`warnings:\n${report.warnings.map(formatError).join("\n")}\n`);
  }
  return report.ok ? EXIT_OK : EXIT_FAILED;
}

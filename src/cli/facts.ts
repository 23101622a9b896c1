// `edge facts import|list|inspect|stores|delete|export`: local facts stores under $EDGE_DATA_DIR/facts,
// and the facts in one store (`list --store S`, `inspect FACT_ID --store S`), as Edge Studio documents.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { EdgeError, toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { sha256Text } from "../contract/hash.ts";
import type { Fact } from "../facts/format.ts";
import { importFacts } from "../facts/import.ts";
import { compareWithSchemaExport, manifestSchemas, validateToolsManifest } from "../facts/manifest.ts";
import { createNodeFactsStore } from "../facts/store-node.ts";
import { EXIT_FAILED, EXIT_OK, failureJson, formatError, printJson, table, UsageError, type CliIO } from "./io.ts";

const storeOptions = { store: { type: "string" }, json: { type: "boolean" } } as const;

/** `--store S`, or (the older form) the one positional; never both. */
function storeArg(sub: string, values: { store?: string }, positionals: string[]): string {
  if (values.store !== undefined && positionals.length === 0) return values.store;
  if (values.store === undefined && positionals.length === 1) return positionals[0]!;
  throw new UsageError(`facts ${sub} takes one store: --store STORE.`);
}

export async function factsImport(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: storeOptions,
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError("facts import takes exactly one FILE.");
  const file = positionals[0]!;
  const json = values.json === true;
  let raw: Uint8Array;
  try {
    raw = await readFile(file);
  } catch (err) {
    throw new EdgeError(
      "invalid_facts_file",
      { path: file },
      `The facts file ${file} could not be read: ${(err as Error).message}. Check the path and its permissions.`,
    );
  }
  try {
    const report = await importFacts(
      createNodeFactsStore(),
      raw,
      values.store !== undefined ? { store: values.store } : {},
    );
    if (json) printJson(io, { ok: true, ...report });
    else
      io.out(
        `imported ${report.imported} facts into "${report.store}" (${report.inserted} new, ${report.updated} updated; ${report.total} in the store)\n`,
      );
    return EXIT_OK;
  } catch (err) {
    return printRefusal(io, json, `facts file ${file}`, err);
  }
}

/** A refused import: every problem, not just the first; nothing changed. */
export function printRefusal(io: CliIO, json: boolean, what: string, err: unknown): number {
  const e = toErrorJson(err);
  const all =
    err instanceof EdgeError && Array.isArray(err.details["errors"]) ? (err.details["errors"] as ErrorJson[]) : [e];
  if (json) printJson(io, failureJson(all[0] ?? e, all));
  else io.err(`edge: ${what} was not imported (nothing changed):\n${all.map(formatError).join("\n")}\n`);
  return EXIT_FAILED;
}

export async function factsStores(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
  const stores = await createNodeFactsStore().list();
  if (values.json) printJson(io, { ok: true, stores });
  else if (stores.length === 0) io.out("no facts stores (edge facts import FILE --store NAME)\n");
  else
    io.out(
      table([
        ["STORE", "FACTS", "TOPICS", "UPDATED"],
        ...stores.map((s) => [s.store, String(s.facts), String(s.topics), s.updated_at ?? "-"]),
      ]),
    );
  return EXIT_OK;
}

/** A fact as printed: hashes by default (as Edge Studio), its text only with --include-text. */
async function factView(f: Fact, includeText: boolean): Promise<Record<string, unknown>> {
  return {
    fact_id: f.fact_id,
    topic: f.topic,
    tags: f.tags,
    source_label: f.source_label,
    ...(f.provenance ? { provenance: f.provenance } : {}),
    text_sha256: await sha256Text(f.text),
    text_chars: f.text.length,
    ...(includeText ? { text: f.text } : {}),
  };
}

export async function factsList(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...storeOptions, "include-text": { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  // Without --store, the stores themselves (what `facts list` printed before facts by store).
  if (values.store === undefined && positionals.length === 0 && !values["include-text"])
    return factsStores(values.json ? ["--json"] : [], io);
  const store = storeArg("list", values, positionals);
  const facts = await createNodeFactsStore().facts(store);
  const includeText = values["include-text"] === true;
  if (values.json)
    printJson(io, {
      ok: true,
      store,
      count: facts.length,
      facts: await Promise.all(facts.map((f) => factView(f, includeText))),
    });
  else {
    const rows = [
      ["FACT_ID", "TOPIC", "TAGS", "SOURCE"],
      ...facts.map((f) => [
        f.fact_id,
        f.topic,
        f.tags.join(",") || "-",
        f.provenance?.source_url ?? (f.source_label || "-"),
      ]),
    ];
    io.out(
      table(includeText ? rows.map((r, i) => [...r, i === 0 ? "TEXT" : JSON.stringify(facts[i - 1]!.text)]) : rows),
    );
  }
  return EXIT_OK;
}

export async function factsInspect(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...storeOptions, "include-text": { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (values.store === undefined) {
    throw new UsageError(
      "facts inspect needs --store STORE: `facts inspect FACT_ID --store STORE` shows one fact, `facts inspect --store STORE` the store.",
    );
  }
  if (positionals.length > 1) throw new UsageError("facts inspect takes at most one FACT_ID.");
  const facts = createNodeFactsStore();
  if (positionals.length === 1) {
    const id = positionals[0]!;
    const fact = (await facts.facts(values.store)).find((f) => f.fact_id === id);
    if (!fact)
      throw new EdgeError(
        "fact_not_found",
        { store: values.store, fact_id: id },
        `No fact "${id}" is in the facts store "${values.store}"; list its ids with edge facts list --store ${values.store}.`,
      );
    const view = await factView(fact, values["include-text"] === true);
    if (values.json) printJson(io, { ok: true, store: values.store, fact: view });
    else
      io.out(
        Object.entries(view)
          .map(([k, v]) => `${k.padEnd(12)} ${typeof v === "string" ? v : JSON.stringify(v)}`)
          .join("\n") + "\n",
      );
    return EXIT_OK;
  }
  if (values["include-text"])
    throw new UsageError("--include-text shows one fact's text: facts inspect FACT_ID --store STORE --include-text.");
  const detail = await facts.inspect(values.store);
  if (values.json) printJson(io, { ok: true, ...detail });
  else {
    io.out(
      `store ${detail.store}: ${detail.facts} facts, ${detail.topics} topics, updated ${detail.updated_at ?? "-"}\n\n`,
    );
    io.out(table([["TOPIC", "FACTS"], ...detail.topic_counts.map((t) => [t.topic, String(t.facts)])]));
    if (detail.tag_counts.length)
      io.out(`\ntags: ${detail.tag_counts.map((t) => `${t.tag} (${t.facts})`).join(", ")}\n`);
  }
  return EXIT_OK;
}

export async function factsDelete(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: storeOptions,
    allowPositionals: true,
    strict: true,
  });
  const result = await createNodeFactsStore().delete(storeArg("delete", values, positionals));
  if (values.json) printJson(io, { ok: true, ...result });
  else io.out(`deleted store "${result.store}" (${result.deleted} facts)\n`);
  return EXIT_OK;
}

export async function factsExport(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: storeOptions,
    allowPositionals: true,
    strict: true,
  });
  // Always JSON: the output is an importable edge.demo.facts.v1 file.
  printJson(io, await createNodeFactsStore().export(storeArg("export", values, positionals)));
  return EXIT_OK;
}

// ── `edge tools validate|inspect MANIFEST.json` (called from tools.ts) ──────────────────────

export async function manifestCommand(
  sub: "validate" | "inspect",
  file: string,
  raw: Uint8Array,
  options: { learnSample?: string; json: boolean; selection: boolean },
  io: CliIO,
): Promise<number> {
  if (options.selection)
    throw new UsageError("--tool / --tool-tag select among a tools.py's tools; a manifest's tools are all active.");
  const report = await validateToolsManifest(raw);
  if (options.learnSample !== undefined) {
    let sample: unknown;
    try {
      sample = JSON.parse(await readFile(options.learnSample, "utf8"));
    } catch (err) {
      throw new EdgeError(
        "invalid_learn_sample",
        { path: options.learnSample },
        `The learn sample ${options.learnSample} is not a readable JSON file: ${(err as Error).message}`,
      );
    }
    report.warnings.push(...compareWithSchemaExport(report, sample));
  }
  const { manifest, ...shown } = report;
  const out =
    sub === "inspect" && manifest ? { ...shown, tools_file: file, schemas: manifestSchemas(manifest) } : shown;
  if (options.json)
    printJson(io, report.ok || !report.errors[0] ? out : failureJson(report.errors[0], report.errors, out));
  else {
    io.out(`${report.ok ? "valid" : "INVALID"}: ${file} (tools manifest)\n`);
    io.out(`  tools: ${report.tool_count}, tools_manifest_sha256: ${report.tools_manifest_sha256}\n`);
    if (report.active_set_sha256) io.out(`  active_set_sha256: ${report.active_set_sha256}\n`);
    if (report.tools.length)
      io.out(table([["TOOL", "KIND", "STORE"], ...report.tools.map((t) => [t.name, t.kind, t.store])]));
    if (report.errors.length) io.out(`errors:\n${report.errors.map(formatError).join("\n")}\n`);
    if (report.warnings.length) io.out(`warnings:\n${report.warnings.map(formatError).join("\n")}\n`);
  }
  return report.ok ? EXIT_OK : EXIT_FAILED;
}

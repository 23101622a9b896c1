// `edge facts import-url` and `edge facts crawl-url` (Edge Studio's commands, as documented):
// HTML pages into a facts store, every bound explicit, validated whole before anything is written.
// The HTML parser and extractor load only when one of these commands runs.
import { parseArgs } from "node:util";
import { createNodeFactsStore } from "../facts/store-node.ts";
import type { FactOptions, SplitMode, UrlImportReport } from "../facts/url-import.ts";
import { printRefusal } from "./facts.ts";
import { EXIT_OK, printJson, table, UsageError, type CliIO } from "./io.ts";

const FACT_OPTIONS = {
  store: { type: "string" },
  split: { type: "string" },
  topic: { type: "string" },
  tags: { type: "string" },
  "fact-id-prefix": { type: "string" },
  "max-bytes": { type: "string" },
  timeout: { type: "string" },
  json: { type: "boolean" },
} as const;

interface FactValues {
  store?: string;
  split?: string;
  topic?: string;
  tags?: string;
  "fact-id-prefix"?: string;
}

function oneUrl(sub: string, positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(`facts ${sub} takes exactly one URL.`);
  return positionals[0]!;
}

const SPLITS: readonly SplitMode[] = ["page", "html-table-rows"];

function factOptions(sub: string, values: FactValues): FactOptions & { store: string } {
  if (values.store === undefined) throw new UsageError(`facts ${sub} needs --store STORE.`);
  if (values.split !== undefined && !(SPLITS as readonly string[]).includes(values.split)) {
    throw new UsageError(`--split must be one of ${SPLITS.join(", ")}.`);
  }
  return {
    store: values.store,
    ...(values.split ? { split: values.split as SplitMode } : {}),
    ...(values.topic !== undefined ? { topic: values.topic } : {}),
    ...(values.tags !== undefined ? { tags: values.tags.split(",") } : {}),
    ...(values["fact-id-prefix"] !== undefined ? { factIdPrefix: values["fact-id-prefix"] } : {}),
  };
}

function integer(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number ≥ 0.`);
  return n;
}

function printReport(io: CliIO, json: boolean, report: UrlImportReport): number {
  if (json) {
    printJson(io, { ok: true, ...report });
    return EXIT_OK;
  }
  io.out(
    `imported ${report.imported} facts from ${report.pages.length} page(s) into "${report.store}" (${report.inserted} new, ${report.updated} updated; ${report.total} in the store)\n`,
  );
  io.out(
    table([
      ["PAGE", "FACTS", "BYTES", "PAGE_SHA256"],
      ...report.pages.map((p) => [p.final_url, String(p.facts), String(p.bytes), p.page_sha256]),
    ]),
  );
  for (const s of report.skipped) io.out(`skipped ${s.url}: ${s.code}${s.status ? ` (HTTP ${s.status})` : ""}\n`);
  return EXIT_OK;
}

export async function factsImportUrl(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: FACT_OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  const url = oneUrl("import-url", positionals);
  const options = factOptions("import-url", values);
  const json = values.json === true;
  try {
    const { importUrl } = await import("../facts/url-import.ts");
    const report = await importUrl(createNodeFactsStore(), url, {
      ...options,
      maxBytes: integer(values["max-bytes"], "--max-bytes") ?? 2_000_000,
      timeoutMs: (integer(values.timeout, "--timeout") ?? 30) * 1000,
    });
    return printReport(io, json, report);
  } catch (err) {
    return printRefusal(io, json, url, err);
  }
}

export async function factsCrawlUrl(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...FACT_OPTIONS,
      "max-depth": { type: "string" },
      "max-urls": { type: "string" },
      "max-pages": { type: "string" },
      "max-bytes-total": { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const url = oneUrl("crawl-url", positionals);
  const options = factOptions("crawl-url", values);
  if (values["max-urls"] !== undefined && values["max-pages"] !== undefined)
    throw new UsageError("Give --max-urls or --max-pages, not both.");
  const bounds = {
    maxDepth: integer(values["max-depth"], "--max-depth"),
    maxUrls: integer(values["max-urls"] ?? values["max-pages"], "--max-urls"),
    maxBytes: integer(values["max-bytes"], "--max-bytes"),
    maxBytesTotal: integer(values["max-bytes-total"], "--max-bytes-total"),
    timeoutMs: values.timeout === undefined ? undefined : integer(values.timeout, "--timeout")! * 1000,
  };
  const flags: Record<keyof typeof bounds, string> = {
    maxDepth: "--max-depth N",
    maxUrls: "--max-urls N",
    maxBytes: "--max-bytes N",
    maxBytesTotal: "--max-bytes-total N",
    timeoutMs: "--timeout SECONDS",
  };
  const missing = (Object.keys(bounds) as (keyof typeof bounds)[]).filter((k) => bounds[k] === undefined);
  if (missing.length) {
    throw new UsageError(
      `facts crawl-url needs every bound given explicitly (there are no defaults); missing: ${missing.map((k) => flags[k]).join(", ")}.`,
    );
  }
  const json = values.json === true;
  try {
    const { crawlUrl } = await import("../facts/url-import.ts");
    return printReport(io, json, await crawlUrl(createNodeFactsStore(), url, { ...options, ...bounds }));
  } catch (err) {
    return printRefusal(io, json, url, err);
  }
}

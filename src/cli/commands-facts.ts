// The command table's second part (commands.ts): what the model is taught — local facts stores
// and learn samples (a Neural Imprint is learned from one).
import { lazy, MODEL, JSON_OUT, type Command } from "./command-table.ts";

export const FACTS_COMMANDS: readonly Command[] = [
  {
    path: ["facts", "import"],
    summary: "validate a whole edge.demo.facts.v1 file, then upsert it by fact_id",
    usage: `edge facts import FILE [--store STORE] [--json]

The whole file is validated first; a bad file changes nothing and every problem is listed.
--store imports into another store than the one the file names. ${JSON_OUT}`,
    run: lazy(
      () => import("./facts.ts"),
      (m) => m.factsImport,
    ),
  },
  {
    path: ["facts", "import-url"],
    summary: "fetch one HTML page and import its text (or its table rows) as facts",
    usage: `edge facts import-url URL --store STORE [--split page|html-table-rows] [--topic TOPIC]
          [--tags a,b] [--fact-id-prefix PREFIX] [--max-bytes N] [--timeout SECONDS] [--json]

One http(s) URL, fetched once (no JavaScript runs, no links are followed). --split page (default)
keeps the page's main text (a readability extractor drops navigation, scripts and boilerplate),
split at paragraph boundaries into facts of at most 4,000 characters; --split html-table-rows makes
one fact per table row, its links made absolute. Each fact records source_url and the page's
sha256 in its provenance. Defaults: --max-bytes 2000000, --timeout 30 (their ceilings: 8 MiB, 300 s).
The facts are validated as one file before anything is written. ${JSON_OUT}`,
    run: lazy(
      () => import("./facts-url.ts"),
      (m) => m.factsImportUrl,
    ),
  },
  {
    path: ["facts", "crawl-url"],
    summary: "a bounded, same-origin crawl of a few linked HTML pages into facts",
    usage: `edge facts crawl-url URL --store STORE --max-depth N --max-urls N --max-bytes N
          --max-bytes-total N --timeout SECONDS [--split page|html-table-rows] [--topic TOPIC]
          [--tags a,b] [--fact-id-prefix PREFIX] [--json]

Every bound is required (there are no defaults; --max-pages is accepted for --max-urls):
--max-depth links from the start page (0: the start page only, ceiling 5), --max-urls pages in all
(ceiling 100), --max-bytes per page, --max-bytes-total for the crawl, --timeout for the whole crawl
in seconds (ceiling 300). Same origin only, always: other origins' links are not queued and a
redirect to another origin fails the crawl. Static HTML only (no JavaScript); robots.txt is not
consulted, so point it only at pages you may fetch. Nothing is written unless every fetched page
passes; pages that are not HTML or answer an HTTP error are skipped and listed. ${JSON_OUT}`,
    run: lazy(
      () => import("./facts-url.ts"),
      (m) => m.factsCrawlUrl,
    ),
  },
  {
    path: ["facts", "list"],
    summary: "the facts in one store (ids, topics, tags, sources; text with --include-text)",
    usage: `edge facts list --store STORE [--include-text] [--json]
edge facts list [--json]                  without --store: the stores (as edge facts stores)

Output is hash-first: each fact's text_sha256 and length; its text only with --include-text. ${JSON_OUT}`,
    run: lazy(
      () => import("./facts.ts"),
      (m) => m.factsList,
    ),
  },
  {
    path: ["facts", "inspect"],
    summary: "one fact of a store, or the store's topics and tags",
    usage: `edge facts inspect FACT_ID --store STORE [--include-text] [--json]
edge facts inspect --store STORE [--json]       the store: facts, topics, tags, revision

${JSON_OUT}`,
    run: lazy(
      () => import("./facts.ts"),
      (m) => m.factsInspect,
    ),
  },
  {
    path: ["facts", "stores"],
    summary: "list the facts stores",
    usage: `edge facts stores [--json]`,
    run: lazy(
      () => import("./facts.ts"),
      (m) => m.factsStores,
    ),
  },
  {
    path: ["facts", "delete"],
    summary: "delete a facts store",
    usage: `edge facts delete --store STORE [--json]   (or: edge facts delete STORE)`,
    run: lazy(
      () => import("./facts.ts"),
      (m) => m.factsDelete,
    ),
  },
  {
    path: ["facts", "export"],
    summary: "a store as an importable edge.demo.facts.v1 file on stdout",
    usage: `edge facts export --store STORE   (or: edge facts export STORE)`,
    run: lazy(
      () => import("./facts.ts"),
      (m) => m.factsExport,
    ),
  },
  {
    path: ["learn", "validate"],
    summary: "check a learn sample (edge.demo.learn.sample.v1), optionally against the tools",
    usage: `edge learn validate SAMPLE.json [--tools FILE [--tool NAME]... [--tool-tag TAG]...] [--json]

Prints counts and hashes, never the sample's text; warnings (e.g. tool_schema_export_name_mismatch,
fact_correction_unstable) never refuse. ${JSON_OUT}`,
    run: lazy(
      () => import("./learn.ts"),
      (m) => m.validateSample,
    ),
  },
  {
    path: ["learn", "run"],
    summary: "learn a Neural Imprint from a sample (or --dry-run: the plan, no model)",
    usage: `edge learn run --sample-file SAMPLE.json [--tools FILE [--tool NAME]... [--tool-tag TAG]...
          | --facts-store STORE | --tools-manifest FILE] [--max-calls N]
          (--model FILE.gguf|URL|NAME [MODEL OPTIONS] | --engine scripted --script OUTPUTS.json)
          [--no-evaluate] [--include-text] [--json]
edge learn run --dry-run --sample-file SAMPLE.json [--tools FILE | --facts-store STORE
          | --tools-manifest FILE] [--include-text] [--json]

${MODEL}
The imprint is bound to the tool surface it learned (a tools.py's active set, a facts store's
lookup, or a manifest's lookups); chat restores it with the same surface. With --model, the
prefix is evaluated once more and the model's state saved beside the imprint (bound to the model
file, runtime, --ctx-size and tokens): a chat with the same model loads it instead of evaluating
the prefix again. The script holds, per
scored question, the output without the prefix, then the output with it.
--dry-run validates everything and prints the plan (questions, corrections applied or skipped,
what would be scored, the prefix hash) without running a model or writing anything.
--include-text adds the question texts (dry run) and the prefix's text; output is hash-first
without it. ${JSON_OUT}`,
    run: lazy(
      () => import("./learn.ts"),
      (m) => m.run,
    ),
  },
  {
    path: ["learn", "sample", "init"],
    summary: "write a valid, commented starting learn sample for your tools",
    usage: `edge learn sample init [--output FILE] [--tools FILE [--tool NAME]... [--tool-tag TAG]...
          | --facts-store STORE | --tools-manifest FILE] [--json]

Writes a sample that validates with no warnings against the given tool surface (or without
tools); each record and correction carries a "note" saying what to put there (notes are kept,
never rendered). Without --output it is printed; an existing --output file is never replaced.`,
    run: lazy(
      () => import("./learn-sample.ts"),
      (m) => m.learnSampleInit,
    ),
  },
  {
    path: ["learn", "sample", "validate"],
    summary: "the same as edge learn validate",
    usage: `edge learn sample validate SAMPLE.json [--tools FILE] [--json]`,
    run: lazy(
      () => import("./learn.ts"),
      (m) => m.validateSample,
    ),
  },
];

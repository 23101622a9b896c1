// One composition root per environment (docs/architecture.md, "assembly"): the front doors ask
// src/assembly/node.ts or src/assembly/browser.ts for their stores, runner host, broker, engine and
// session, and never build those parts themselves. The one-shot CLI commands (`edge tools call`,
// `edge tools confirm`) give the Node root the runner keeper's host (src/cli/runners.ts, allowed
// below), the one place that makes it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(new URL("../", import.meta.url).pathname);

/** What only a root builds. */
const ROOT_ONLY = [
  "createChatSession(",
  "createConfirmationBroker(",
  "nodeConfirmationBroker(",
  "createBrowserRunnerHost(",
  "createNodeRunnerHost(",
  "createIdbReceiptStore(",
  "createIdbPendingStore(",
  "createMemoryReceiptStore(",
  "createMemoryPendingStore(",
  "openEdgeDb(",
  "startPurging(",
  "createMcpToolService(",
  "createNodeLlamaCppEngine(",
  "new LlamaCppEngine(",
  "new WebLLMEngine(",
];

/** Front-door files that build some of those parts, and why. */
const ALLOWED: Readonly<Record<string, string>> = {
  "src/cli/runners.ts": "the one-shot commands' runner host (the keeper's)",
  "src/app/debug.ts": "the runner debug page: a bare runner host with its timings, no session",
};

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(ROOT, rel)).isDirectory()) return filesUnder(rel);
    return rel.endsWith(".ts") && !/\.test(-helpers)?\.ts$/.test(rel) ? [rel] : [];
  });
}

describe("the composition roots", () => {
  it("no front door builds what a root owns (stores, purging, runner host, broker, engines, sessions)", () => {
    const found = ["src/app", "src/widget", "src/cli"].flatMap(filesUnder).flatMap((file) => {
      if (ALLOWED[file]) return [];
      const text = readFileSync(path.join(ROOT, file), "utf8").replace(/^\s*(\/\/|\*).*$/gm, "");
      return ROOT_ONLY.filter((call) => text.includes(call)).map((call) => `${file}: ${call}`);
    });
    expect(found).toEqual([]);
  });

  it("every allowed exception still exists and still needs its exception", () => {
    for (const file of Object.keys(ALLOWED)) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      expect(
        ROOT_ONLY.some((call) => text.includes(call)),
        file,
      ).toBe(true);
    }
  });
});

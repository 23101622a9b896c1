// The llama.cpp engine in Node beyond the shared conformance suite: its grammars on the real
// llama.cpp, the GGUF type table against the runtime's own, and bad input — a truncated GGUF, a
// wrong hash, a 404, a file that is not GGUF, a download aborted or dropped half-way. Each gets its
// code, leaves nothing in the model cache, and the same backend loads a good model afterwards.
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateAgainst } from "../../src/contract/ajv.ts";
import { EdgeError } from "../../src/contract/errors.ts";
import type { JsonObject } from "../../src/contract/types.ts";
import { toolCallOrTextResponseFormat } from "../../src/engines/grammar.ts";
import type { ModelSource } from "../../src/engines/llamacpp/backend.ts";
import { LlamaCppEngine } from "../../src/engines/llamacpp/engine.ts";
import { ggmlTypeSize, KNOWN_GGML_TYPES } from "../../src/engines/llamacpp/gguf.ts";
import { createNodeLlamaBackend } from "../../src/engines/llamacpp/node/backend.ts";
import { loadLlamaBinding, llamaBinding } from "../../src/engines/llamacpp/node/binding.ts";
import { checkImprint, learn, parseLearnSampleText } from "../../src/imprint/index.ts";
import { createChatSession } from "../../src/chat/session.ts";
import { buildTestModel, writeTestModel } from "../fixtures/gguf.ts";
import { startModelServer, type ModelServer } from "./model-server.ts";
import { nodeLlamaAvailable } from "./node-llama.ts";

const available = await nodeLlamaAvailable();
const dir = mkdtempSync(path.join(tmpdir(), "edge-llama-node-"));
const cacheDir = path.join(dir, "models");
const backend = createNodeLlamaBackend({ cacheDir });
const model = writeTestModel();
let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer(buildTestModel());
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** maxLength bounds the grammar (llama.cpp counts code points of the bytes it decodes), but random
 *  byte-level weights can emit invalid UTF-8, which JavaScript decodes to more U+FFFD characters than
 *  llama.cpp counted; real models' tokenizers emit valid UTF-8. The loop's ajv check catches such a
 *  call (invalid_tool_args); this test checks the rest of the structure. */
function withoutMaxLength(schema: object): object {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) => (key === "maxLength" ? undefined : value)),
  ) as object;
}
const engineFor = (source: ModelSource) => new LlamaCppEngine({ backend, model: source, threads: 1 });
async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (e) {
    expect(e).toBeInstanceOf(EdgeError);
    return (e as EdgeError).code;
  }
  return "resolved";
}
/** The cache holds exactly these complete entries (.gguf + .json), and no partial file. */
function cacheEntries(): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return [];
  }
  expect(names.filter((n) => !/^[0-9a-f]{24}\.(gguf|json)$/.test(n))).toEqual([]);
  return names.filter((n) => n.endsWith(".gguf"));
}
/** After a failure the same backend still loads a good model and answers. */
async function stillWorks(): Promise<void> {
  const e = engineFor({ kind: "file", path: model.path });
  await e.load();
  expect(
    (
      await e.chat({
        messages: [{ role: "user", content: "hi" }],
        responseFormat: { type: "grammar", grammar: 'root ::= "ok"' },
      })
    ).text,
  ).toBe("ok");
  await e.unload();
}

describe("the Node model runtime", () => {
  it("missing, it is model_runtime_missing with the one command that installs it", async () => {
    const e = (await loadLlamaBinding("node-llama-cpp-not-installed").catch((x: unknown) => x)) as EdgeError;
    expect(e.code).toBe("model_runtime_missing");
    expect(e.message).toContain("Install it with: npm run setup:llama");
    expect(e.details).toMatchObject({
      command: "npm run setup:llama",
      alternative: "npm install node-llama-cpp@3.22.1",
    });
  });
});

describe.skipIf(!available)("llama.cpp in Node (node-llama-cpp 3.22.1, generated test model)", () => {
  it("the GGUF reader's tensor type table is llama.cpp's own", async () => {
    // node-llama-cpp's internal binding exposes ggml's table; the version is pinned.
    const { llama } = await llamaBinding();
    const bindings = (
      llama as typeof llama & {
        _bindings: { getBlockSizeForGgmlType(t: number): number; getTypeSizeForGgmlType(t: number): number };
      }
    )._bindings;
    for (const t of KNOWN_GGML_TYPES)
      expect([t, ...ggmlTypeSize(t)!]).toEqual([
        t,
        bindings.getBlockSizeForGgmlType(t),
        bindings.getTypeSizeForGgmlType(t),
      ]);
  });

  it("llama.cpp accepts every grammar Edge builds, and sampling under it (temperature 1) gives schema-valid JSON", async () => {
    const schemas: JsonObject[] = [
      {
        type: "object",
        properties: { a: { type: "integer" }, b: { type: "number", minimum: 0 }, c: { type: "boolean" } },
        required: ["a"],
        additionalProperties: false,
      },
      {
        type: "object",
        properties: {
          tags: { type: "array", items: { type: "string", maxLength: 4 }, minItems: 1, maxItems: 3 },
          mode: { type: ["string", "null"], enum: ["x", "y", null] },
        },
        required: ["tags", "mode"],
        additionalProperties: false,
      },
      {
        type: "object",
        properties: {
          n: { type: "integer", minimum: -50, maximum: 50 },
          nested: {
            type: "object",
            properties: { k: { const: "v" }, o: { type: "string", maxLength: 3 } },
            required: ["k"],
            additionalProperties: false,
          },
        },
        required: [],
        additionalProperties: false,
      },
      {
        anyOf: [
          { type: "integer", minimum: 0, maximum: 9 },
          { type: "array", items: { type: "boolean" }, maxItems: 2 },
        ],
      },
    ];
    const engine = new LlamaCppEngine({
      backend,
      model: { kind: "file", path: model.path },
      threads: 1,
      temperature: 1,
    });
    await engine.load();
    for (const [i, schema] of schemas.entries()) {
      for (let n = 0; n < 6; n++) {
        const r = await engine.chat({
          messages: [{ role: "user", content: `sample ${i}.${n}` }],
          responseFormat: { type: "json_object", schema: JSON.stringify(schema) },
          maxTokens: 200,
        });
        expect(r.finishReason, r.text).toBe("stop");
        const value: unknown = JSON.parse(r.text);
        expect(validateAgainst(withoutMaxLength(schema), value).valid, `${JSON.stringify(schema)} ← ${r.text}`).toBe(
          true,
        );
      }
    }
    // The call-or-text grammar: either a valid call or text whose first character is not "{"/whitespace.
    const tool = { name: "fee_quote", parameters: schemas[0]! };
    for (let n = 0; n < 6; n++) {
      const r = await engine.chat({
        messages: [{ role: "user", content: `either ${n}` }],
        responseFormat: toolCallOrTextResponseFormat([tool]),
        maxTokens: 40,
      });
      if (r.text.startsWith("{"))
        expect(
          validateAgainst(
            {
              type: "object",
              properties: { tool_name: { const: "fee_quote" }, arguments: schemas[0] },
              required: ["tool_name", "arguments"],
              additionalProperties: false,
            },
            JSON.parse(r.text),
          ).valid,
        ).toBe(true);
      else expect(r.text).toMatch(/^[^{\s]/u);
    }
    await engine.unload();
  });

  it("a local file: its sha256 is in the fingerprint; a wrong pinned hash is model_integrity_failed", async () => {
    const e = engineFor({ kind: "file", path: model.path });
    await e.load();
    expect(e.info().fingerprint).toEqual({
      modelId: path.basename(model.path),
      sha256: `sha256:${model.sha256}`,
      runtime: "node-llama-cpp 3.22.1",
    });
    await e.unload();
    expect(await codeOf(engineFor({ kind: "file", path: model.path, sha256: "0".repeat(64) }).load())).toBe(
      "model_integrity_failed",
    );
    await stillWorks();
  });

  it("a truncated GGUF and a file that is not GGUF are refused before llama.cpp sees them", async () => {
    const truncated = path.join(dir, "cut.gguf");
    writeFileSync(truncated, buildTestModel().subarray(0, 300_000));
    const notes = path.join(dir, "notes.gguf");
    writeFileSync(notes, "not a model\n".repeat(100));
    expect(await codeOf(engineFor({ kind: "file", path: truncated }).load())).toBe("model_truncated");
    expect(await codeOf(engineFor({ kind: "file", path: notes }).load())).toBe("model_not_gguf");
    expect(await codeOf(engineFor({ kind: "file", path: path.join(dir, "nope.gguf") }).load())).toBe("unknown_model");
    await stillWorks();
  });

  it("a URL is downloaded once into the cache (atomically) and loaded from it afterwards", async () => {
    const url = server.url("/model.gguf");
    const seen: number[] = [];
    const first = engineFor({ kind: "url", url, sha256: model.sha256 });
    await first.load((p) => seen.push(p.progress));
    expect(seen.some((p) => p > 0 && p < 0.5)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(first.info().fingerprint?.sha256).toBe(`sha256:${model.sha256}`);
    await first.unload();
    expect(cacheEntries()).toHaveLength(1);
    const again = engineFor({ kind: "url", url });
    await again.load();
    await again.unload();
    expect(server.hits("/model.gguf")).toBe(1);
    // A damaged cache entry is noticed (re-hashed before use) and downloaded again.
    const [entry] = cacheEntries();
    writeFileSync(path.join(cacheDir, entry!), buildTestModel({ seed: 2 }));
    await engineFor({ kind: "url", url }).load();
    expect(server.hits("/model.gguf")).toBe(2);
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it("a bad download — 404, wrong hash, truncated, not GGUF, dropped, aborted — leaves no cache entry", async () => {
    const cases: Array<[string, string | undefined, string]> = [
      ["/missing.gguf", undefined, "model_fetch_failed"],
      ["/model.gguf", "f".repeat(64), "model_integrity_failed"],
      ["/truncated.gguf", undefined, "model_truncated"],
      ["/notes.gguf", undefined, "model_not_gguf"],
      ["/drop.gguf", undefined, "model_fetch_failed"],
    ];
    for (const [route, sha256, code] of cases) {
      expect([
        route,
        await codeOf(engineFor({ kind: "url", url: server.url(route), ...(sha256 ? { sha256 } : {}) }).load()),
      ]).toEqual([route, code]);
      expect(cacheEntries()).toEqual([]);
    }
    const controller = new AbortController();
    const stalled = engineFor({ kind: "url", url: server.url("/stall.gguf") }).load((p) => {
      if (p.progress > 0.1) controller.abort();
    }, controller.signal);
    expect(await codeOf(stalled)).toBe("aborted");
    expect(cacheEntries()).toEqual([]);
    await stillWorks();
  });

  it("the Node download hashes what it stores: the cached file's sha256 is the pinned one", async () => {
    const e = engineFor({ kind: "url", url: server.url("/model.gguf"), sha256: `sha256:${model.sha256}` });
    await e.load();
    await e.unload();
    const [entry] = cacheEntries();
    expect(
      createHash("sha256")
        .update(readFileSync(path.join(cacheDir, entry!)))
        .digest("hex"),
    ).toBe(model.sha256);
  });

  it("receipts and imprints record the GGUF file's sha256; an imprint refuses another file under the same name", async () => {
    const a = new LlamaCppEngine({ backend, model: { kind: "file", path: model.path, id: "edge-test" }, threads: 1 });
    const other = writeTestModel({ seed: 2 });
    const b = new LlamaCppEngine({ backend, model: { kind: "file", path: other.path, id: "edge-test" }, threads: 1 });
    await a.load();
    await b.load();
    const session = await createChatSession({
      engine: a,
      responseFormat: () => ({ type: "grammar", grammar: 'root ::= "Hello."' }),
    });
    const run = await session.chat("Say hello.");
    expect(run.receipt.model_fingerprint).toEqual({
      modelId: "edge-test",
      sha256: `sha256:${model.sha256}`,
      runtime: "node-llama-cpp 3.22.1",
    });
    const sample = parseLearnSampleText(
      readFileSync(new URL("../../public/examples/learn_sample.json", import.meta.url), "utf8"),
    );
    const { imprint } = await learn({ sample, toolset: null, engine: a, evaluate: false });
    expect(imprint.model.fingerprint?.sha256).toBe(`sha256:${model.sha256}`);
    await checkImprint(imprint, { schemas: [], toolset: null, engine: a.info() });
    const refused = await checkImprint(imprint, { schemas: [], toolset: null, engine: b.info() }).catch(
      (e: EdgeError) => e,
    );
    expect((refused as EdgeError).code).toBe("imprint_model_mismatch");
    await a.unload();
    await b.unload();
  });
});

// `edge chat --model` and `edge learn run --model`: a real GGUF model (the generated test model) in
// Node through the same loop, receipts and stores, with the real Pyodide runners. Needs the optional
// runtime (npm run setup:llama); CI installs it.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFORMANCE_TOOLS, expectedFeeQuote } from "../../test/fixtures/conformance-tools.ts";
import { buildTestModel, writeTestModel } from "../../test/fixtures/gguf.ts";
import { startModelServer, type ModelServer } from "../../test/engines/model-server.ts";
import { nodeLlamaAvailable } from "../../test/engines/node-llama.ts";
import { EXAMPLES, cli, writeTestFile } from "../../test/cli.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-model-cli-"));
process.env.EDGE_DATA_DIR = join(tmp, "data");
const TOOLS = writeTestFile(tmp, "tools.py", CONFORMANCE_TOOLS);
const model = writeTestModel();
const available = await nodeLlamaAvailable();
let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(buildTestModel());
});
afterAll(() => server.close());

describe("edge chat --model: command line", () => {
  it("--engine llamacpp without --model, --model with another engine, or a bad --tool-choice is a usage error", async () => {
    expect((await cli("chat", "--engine", "llamacpp", "--prompt", "x", "--json")).code).toBe(2);
    expect((await cli("chat", "--engine", "scripted", "--model", model.path, "--prompt", "x", "--json")).code).toBe(2);
    const bad = await cli("chat", "--model", model.path, "--tool-choice", "sometimes", "--prompt", "x", "--json");
    expect(bad.code).toBe(2);
    expect(bad.json.error.message).toContain("--tool-choice must be auto, required or none");
  });

  it("a model that is neither a GGUF file, a URL nor a catalog name is unknown_model, naming what can run", async () => {
    const r = await cli("chat", "--model", "qwen3.5-9b-4bit", "--prompt", "x", "--json");
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("unknown_model");
    expect(r.json.error.message).toContain("Edge Studio model id");
    expect(r.json.error.message).toContain("qwen2.5-0.5b-instruct-q4_k_m");
  });
});

// Slow on a busy machine: the first command builds this data dir's runner snapshot.
describe.skipIf(!available)(
  "edge chat --model / edge learn run --model (generated model, node-llama-cpp)",
  { timeout: 180_000 },
  () => {
    it("runs the real model through the loop: a guided call runs the real tool, and the receipt names the model file", async () => {
      const r = await cli(
        "chat",
        "--model",
        model.path,
        "--threads",
        "1",
        "--tools",
        TOOLS,
        "--tool-choice",
        "required",
        "--prompt",
        "Quote the fee for 120.",
        "--include-text",
        "--json",
      );
      expect(r.code, r.err).toBe(0);
      expect(r.json).toMatchObject({
        ok: true,
        outcome: "return_direct",
        receipt: {
          engine: "llamacpp",
          model_fingerprint: { sha256: `sha256:${model.sha256}`, runtime: "node-llama-cpp 3.22.1" },
        },
      });
      const call = r.json.receipt.calls[0];
      expect(call).toMatchObject({ tool_name: "fee_quote", status: "ok", runner_secret_verified: true });
      expect(r.json.result).toEqual(expectedFeeQuote(call.arguments));
    });

    it("a URL is downloaded once into $EDGE_DATA_DIR/models, checked against --model-sha256, and reused", async () => {
      const url = server.url("/model.gguf");
      const args = [
        "chat",
        "--model",
        url,
        "--model-sha256",
        model.sha256,
        "--threads",
        "1",
        "--tools",
        TOOLS,
        "--tool-choice",
        "required",
        "--prompt",
        "fee for 3?",
      ];
      const first = await cli(...args);
      expect(first.code, first.err).toBe(0);
      expect(first.err).toMatch(/model: Downloading the model/);
      expect((await cli(...args, "--json")).code).toBe(0);
      expect(server.hits("/model.gguf")).toBe(1);
      expect(readdirSync(join(tmp, "data", "models")).sort()).toEqual([
        expect.stringMatching(/\.gguf$/),
        expect.stringMatching(/\.json$/),
      ]);
      const wrong = await cli("chat", "--model", server.url("/truncated.gguf"), "--prompt", "x", "--json");
      expect(wrong.json.error.code).toBe("model_truncated");
    });

    it("edge learn run --model learns an imprint bound to the model file, evaluating with the real model", async () => {
      const r = await cli(
        "learn",
        "run",
        "--sample-file",
        join(EXAMPLES, "learn_sample.json"),
        "--model",
        model.path,
        "--threads",
        "1",
        "--max-tokens",
        "24",
        "--json",
      );
      expect(r.code, r.err).toBe(0);
      expect(r.json.evaluation).toMatchObject({ engine: "llamacpp", model_id: model.path.split("/").pop() });
      expect(r.json.evaluation.scored).toBeGreaterThan(0);
      const shown = await cli("imprints", "show", r.json.imprint_id, "--json");
      expect(JSON.stringify(shown.json)).toContain(`sha256:${model.sha256}`);
      // The learn receipt names the model by its bytes, as a chat receipt does.
      const receipt = await cli("receipts", "show", r.json.receipt_id, "--json");
      expect(receipt.json).toMatchObject({
        kind: "learn",
        model_fingerprint: { sha256: `sha256:${model.sha256}`, runtime: "node-llama-cpp 3.22.1" },
      });
    });
  },
);

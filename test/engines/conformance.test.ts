// The engine conformance suite in Node: the scripted engine, web-llm against its faithful fake
// (no GPU here), and the llama.cpp engine on the
// generated test model and on a tiny real-shape model with Qwen3's real vocabulary, through node-llama-cpp (the optional runtime: `npm run setup:llama`; CI
// installs it and sets EDGE_REQUIRE_LLAMA_RUNTIME=1 so a missing runtime fails instead of skipping).
// Runners are the real Node Pyodide runners.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
import { createNodeLlamaBackend } from "../../src/engines/llamacpp/node/backend.ts";
import { createNodeRunnerHost } from "../../src/runner/node.ts";
import { memorySource } from "../../src/toolset/inspect.ts";
import { CONFORMANCE_TOOLS } from "../fixtures/conformance-tools.ts";
import { writeTestModel } from "../fixtures/gguf.ts";
import { realShapeModel } from "../fixtures/real-shape.ts";
import { CHECKS, type EngineSubject } from "./conformance.ts";
import { llamacppSubject } from "./llamacpp-subject.ts";
import { nodeLlamaAvailable } from "./node-llama.ts";
import { scriptedSubject } from "./scripted-subject.ts";
import { webllmConformanceSubject } from "./webllm-subject.ts";

const host = createNodeRunnerHost({ spares: 1 });
const env = { host, tools: memorySource("tools.py", CONFORMANCE_TOOLS) };
const dir = mkdtempSync(path.join(tmpdir(), "edge-conformance-"));
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

const subjects: EngineSubject[] = [scriptedSubject, webllmConformanceSubject];
if (await nodeLlamaAvailable()) {
  const notGguf = path.join(dir, "notes.gguf");
  writeFileSync(notGguf, "These are my notes, not a model.\n".repeat(20));
  subjects.push(
    llamacppSubject({
      name: "llama.cpp (LlamaCppEngine, node-llama-cpp, generated test model)",
      backend: createNodeLlamaBackend({ cacheDir: path.join(dir, "models") }),
      model: { kind: "file", path: writeTestModel().path },
      smallModel: { kind: "file", path: writeTestModel({ contextLength: 256 }).path },
      notGguf: { kind: "file", path: notGguf },
      threads: 1,
    }),
    llamacppSubject({
      name: "llama.cpp (LlamaCppEngine, node-llama-cpp, Qwen3's real vocabulary: tiny real-shape model)",
      backend: createNodeLlamaBackend({ cacheDir: path.join(dir, "models") }),
      model: { kind: "file", path: realShapeModel({ family: "qwen3", shape: "tiny" }).path },
      // Qwen3's tokenizer packs the contract into ~250 tokens: 192 cannot hold it.
      smallModel: { kind: "file", path: realShapeModel({ family: "qwen3", shape: "tiny", contextLength: 192 }).path },
      notGguf: { kind: "file", path: notGguf },
      threads: 1,
    }),
  );
}

// Each llama.cpp check loads its own engine; a 151,936-token vocabulary takes seconds to load on a
// busy machine, so those checks get more than vitest's default minute.
const timeout = (subject: EngineSubject) => (subject.name.includes("real vocabulary") ? 240_000 : undefined);
for (const subject of subjects) {
  describe(`engine conformance: ${subject.name}`, () => {
    for (const c of CHECKS) {
      it.skipIf(c.needs !== undefined && !subject.capabilities[c.needs])(c.name, { timeout: timeout(subject) }, () =>
        c.run(subject, env),
      );
    }
  });
}

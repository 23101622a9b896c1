// An imprint's saved model state without a model runtime: what the record binds and verifies, the
// checks that run before any state reaches llama.cpp, the export bundle, learn's bookkeeping, and
// the receipt fields of a session with an engine that keeps no prefix. The same paths with the
// real runtime and the CLI: src/cli/imprint-state.test.ts.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { sha256Bytes, sha256Text } from "../contract/hash.ts";
import { createChatSession } from "../chat/session.ts";
import type { EngineInfo } from "../engines/engine.ts";
import { readSeqStateHeader } from "../engines/llamacpp/state-file.ts";
import { ScriptedEngine } from "../engines/scripted.ts";
import { imprintBinding } from "./gate.ts";
import { learn } from "./learn.ts";
import { createMemoryImprintStore } from "./store-memory.ts";
import { sealImprint, verifyImprint, type Imprint } from "./record.ts";
import { parseLearnSampleText } from "./sample.ts";
import { artifactProblem, bindingProblem, stateBinding, tokensSha256, type ImprintState } from "./state.ts";
import { importImprint, parseImprintExport, renderImprintExport } from "./transfer.ts";

const SAMPLE = parseLearnSampleText(
  readFileSync(new URL("../../public/examples/learn_sample.json", import.meta.url), "utf8"),
);
const TOKENS = Array.from({ length: 40 }, (_, i) => 100 + i);
const readHeader = (bytes: Uint8Array) => {
  const h = readSeqStateHeader(bytes);
  return h ? { format: "llama.cpp.seq_state", version: h.version, tokens: h.tokens } : null;
};

/** Bytes laid out as llama.cpp writes a sequence state: magic, version 3, tokens, then KV data. */
function stateBytes(tokens: readonly number[], kvBytes = 30_000): Uint8Array {
  const bytes = new Uint8Array(12 + tokens.length * 4 + kvBytes);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x67677371, true);
  view.setUint32(4, 3, true);
  view.setUint32(8, tokens.length, true);
  tokens.forEach((t, i) => view.setInt32(12 + i * 4, t, true));
  for (let i = 12 + tokens.length * 4; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
  return bytes;
}

const info = (over: Partial<EngineInfo> = {}): EngineInfo => ({
  kind: "llamacpp",
  modelId: "m.gguf",
  label: "m",
  fingerprint: { modelId: "m.gguf", sha256: `sha256:${"a".repeat(64)}`, runtime: "node-llama-cpp 3.22.1" },
  contextWindow: 4096,
  ...over,
});

async function learned(): Promise<{ imprint: Imprint; bytes: Uint8Array; state: ImprintState }> {
  const engine = new ScriptedEngine([]);
  await engine.load();
  const bytes = stateBytes(TOKENS);
  let state: ImprintState | null = null;
  const { imprint } = await learn({
    sample: SAMPLE,
    engine,
    evaluate: false,
    saveState: async (_id, prefix) => {
      state = await stateBinding(info(), readHeader, { bytes, tokens: TOKENS, prefixSha256: await sha256Text(prefix) });
      return { state: state!, discard: async () => undefined };
    },
  });
  return { imprint, bytes, state: state! };
}

describe("the state binding", () => {
  it("is sealed into the record and checked on every read; records without one still verify", async () => {
    const { imprint, state, bytes } = await learned();
    expect(imprint.state).toEqual(state);
    expect(state).toMatchObject({
      format: "llama.cpp.seq_state",
      format_version: 3,
      artifact_bytes: bytes.byteLength,
      artifact_sha256: await sha256Bytes(bytes),
      prefix_sha256: imprint.prefix_sha256,
      prefix_tokens: TOKENS.length,
      context_size: 4096,
    });
    await expect(verifyImprint(imprint)).resolves.toBeTruthy();
    const { state: _s, ...older } = imprint;
    await expect(verifyImprint(await sealImprint(older))).resolves.toBeTruthy();
    for (const [what, bad] of [
      ["malformed", { ...state, artifact_bytes: -1 }],
      ["another prefix", { ...state, prefix_sha256: await sha256Text("another prefix") }],
    ] as const) {
      const e = (await verifyImprint(await sealImprint({ ...imprint, state: bad as ImprintState })).catch(
        (x: unknown) => x,
      )) as EdgeError;
      expect([what, e.code]).toEqual([what, "imprint_corrupted"]);
    }
  });

  it("no state is kept for an engine that does not name its model file, runtime and window", async () => {
    const saved = { bytes: stateBytes(TOKENS), tokens: TOKENS, prefixSha256: await sha256Text("p") };
    expect(await stateBinding(info({ fingerprint: { modelId: "m.gguf" } }), readHeader, saved)).toBeNull();
    expect(await stateBinding(info({ contextWindow: undefined }), readHeader, saved)).toBeNull();
    // A file that does not read back as those tokens is refused at once.
    await expect(stateBinding(info(), readHeader, { ...saved, tokens: TOKENS.slice(1) })).rejects.toMatchObject({
      code: "imprint_state_corrupted",
    });
  });

  it("each binding is compared with the loaded engine before anything is read", async () => {
    const { state, imprint } = await learned();
    expect(bindingProblem(state, info(), imprint.prefix_sha256)).toBeNull();
    const cases: Array<[EngineInfo, string, string]> = [
      [
        info({
          fingerprint: { modelId: "m.gguf", sha256: `sha256:${"b".repeat(64)}`, runtime: "node-llama-cpp 3.22.1" },
        }),
        imprint.prefix_sha256,
        "model_sha256",
      ],
      [
        info({ fingerprint: { modelId: "m.gguf", sha256: `sha256:${"a".repeat(64)}`, runtime: "wllama 3.13.0" } }),
        imprint.prefix_sha256,
        "runtime",
      ],
      [info({ contextWindow: 8192 }), imprint.prefix_sha256, "context_size"],
      // A profile-only imprint joined with a facts surface starts with another system message.
      [info(), await sha256Text(`contract\n\n${imprint.prefix}`), "prefix_sha256"],
    ];
    for (const [engine, system, reason] of cases)
      expect(bindingProblem(state, engine, system as never)).toMatchObject({ code: "imprint_state_mismatch", reason });
  });

  it("the file's size, sha256, header and tokens are checked before the runtime sees it", async () => {
    const { state, bytes } = await learned();
    expect(await artifactProblem(state, bytes, TOKENS, readHeader)).toBeNull();
    const edited = bytes.slice();
    edited[500] = edited[500]! ^ 1;
    const otherTokens = stateBytes(TOKENS.map((t) => t + 1));
    const resealed = { ...state, artifact_sha256: await sha256Bytes(otherTokens) };
    const notAState = bytes.slice();
    notAState[0] = 0;
    const cases: Array<[string, ImprintState, Uint8Array, string, string]> = [
      ["truncated", state, bytes.subarray(0, 1000), "imprint_state_corrupted", "truncated"],
      ["edited", state, edited, "imprint_state_corrupted", "sha256"],
      [
        "not a state (re-sealed)",
        { ...state, artifact_sha256: await sha256Bytes(notAState) },
        notAState,
        "imprint_state_corrupted",
        "header",
      ],
      ["other tokens (re-sealed)", resealed, otherTokens, "imprint_state_mismatch", "state_tokens"],
    ];
    for (const [what, s, b, code, reason] of cases)
      expect([what, await artifactProblem(s, b, TOKENS, readHeader)]).toEqual([
        what,
        expect.objectContaining({ code, reason }),
      ]);
    expect(await tokensSha256(TOKENS)).toBe(state.tokens_sha256);
  });
});

describe("export bundle (edge.imprint.export.v2)", () => {
  it("carries the state byte for byte; a plain record still imports; a changed state is refused", async () => {
    const { imprint, bytes } = await learned();
    const big = stateBytes(TOKENS, 200_001); // more than one base64 chunk, not a multiple of 3
    const bigImprint = await sealImprint({
      ...imprint,
      state: { ...imprint.state!, artifact_bytes: big.byteLength, artifact_sha256: await sha256Bytes(big) },
    });
    const back = await parseImprintExport(renderImprintExport(bigImprint, big));
    expect(back.imprint).toEqual(bigImprint);
    expect(Buffer.from(back.state!).equals(Buffer.from(big))).toBe(true);
    expect(await parseImprintExport(renderImprintExport(imprint, null))).toEqual({ imprint, state: null });

    const text = renderImprintExport(imprint, bytes);
    const bundle = JSON.parse(text);
    const flipped = {
      ...bundle,
      state_base64: `${bundle.state_base64[0] === "A" ? "B" : "A"}${bundle.state_base64.slice(1)}`,
    };
    const cases: Array<[string, unknown, string, string]> = [
      ["edited state", flipped, "imprint_state_corrupted", "sha256"],
      ["cut state", { ...bundle, state_base64: bundle.state_base64.slice(0, 400) }, "imprint_state_corrupted", "size"],
      ["not base64", { ...bundle, state_base64: "%%%" }, "imprint_state_corrupted", "base64"],
      [
        "a record without a state",
        { ...bundle, imprint: await sealImprint({ ...imprint, state: null }) },
        "imprint_state_corrupted",
        "unexpected_state",
      ],
      [
        "an edited record",
        { ...bundle, imprint: { ...imprint, prefix: `${imprint.prefix} ` } },
        "imprint_corrupted",
        "imprint_sha256 does not match the record",
      ],
    ];
    const store = createMemoryImprintStore();
    for (const [what, value, code, reason] of cases) {
      const e = (await importImprint(store, JSON.stringify(value)).catch((x: unknown) => x)) as EdgeError;
      expect([what, e.code, e.details["reason"]]).toEqual([what, code, reason]);
    }
    expect(await store.list()).toEqual([]);
    // A store that keeps records only (the browser's) takes the verified record, without the bytes.
    expect((await importImprint(store, text)).state).toEqual(imprint.state);
    expect(await store.get(imprint.id)).toEqual(imprint);
  });
});

describe("learn and the session", () => {
  it("a state file is removed again when its imprint cannot be stored", async () => {
    const engine = new ScriptedEngine([]);
    await engine.load();
    const store = createMemoryImprintStore();
    let discarded = 0;
    const saveState = async (_id: string, prefix: string) => ({
      state: (await stateBinding(info(), readHeader, {
        bytes: stateBytes(TOKENS),
        tokens: TOKENS,
        prefixSha256: await sha256Text(prefix),
      }))!,
      discard: async () => void discarded++,
    });
    const receipts = {
      append: () => Promise.reject(new EdgeError("storage_failed")),
      get: async () => undefined,
      list: async () => [],
    };
    await expect(learn({ sample: SAMPLE, engine, evaluate: false, store, receipts, saveState })).rejects.toMatchObject({
      code: "storage_failed",
    });
    expect([discarded, await store.list()]).toEqual([1, []]);
  });

  it("an engine that keeps no prefix between conversations: the receipt says the prefix was sent as text", async () => {
    const { imprint } = await learned();
    const engine = new ScriptedEngine(["Hello.", "Again."]);
    await engine.load();
    const session = await createChatSession({ engine, imprint: imprintBinding(imprint) });
    const run = await session.chat("Hi");
    expect(run.receipt).toMatchObject({
      tool_instruction_mode: "imprint",
      imprint_restore: "prefix",
      imprint_prefix: { prefix_cache: "none" },
    });
    expect(run.receipt.imprint_prefix).toEqual({ prefix_cache: "none" });
    const plain = await (await createChatSession({ engine })).chat("Hi");
    expect(plain.receipt).not.toHaveProperty("imprint_restore");
  });
});

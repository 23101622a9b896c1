// Browser bench (WebGPU required; cannot run on a machine without a GPU adapter): time to first
// token (TTFT) of prompts 2..5 in one chat session, plain contract vs restored imprint, same model,
// same prompts, measured in the same page load. Also the learn-time prefill of the prefix.
// Both sessions share one loaded web-llm engine; each session starts a new conversation, so
// web-llm resets its KV cache at each session's first prompt and reuses it for the following
// prompts when the conversation only grew (its multi-round rule).
import { createChatSession } from "../src/chat/session.ts";
import { probeWebGPU } from "../src/engines/webgpu.ts";
import { WebLLMEngine } from "../src/engines/webllm.ts";
import { imprintBinding, learn, parseLearnSampleText } from "../src/imprint/index.ts";
import { createBrowserRunnerHost } from "../src/runner/browser/index.ts";
import { freezeToolset } from "../src/toolset/freeze.ts";
import { memorySource } from "../src/toolset/inspect.ts";

const out = document.getElementById("out")!;
const log = (text: string): void => {
  out.textContent = text;
  console.log(text);
};
const PROMPTS = [
  "Hi, what can you do?",
  "Which fee tiers are there?",
  "Is express shipping possible?",
  "How do I check an order?",
  "Thanks, that is all.",
];

async function main(): Promise<void> {
  const probe = await probeWebGPU();
  if (!probe.available) throw new Error(`No WebGPU adapter here (${probe.reason}); this bench needs a GPU.`);
  const model = new URLSearchParams(location.search).get("model") ?? undefined;
  const engine = new WebLLMEngine(model ? { modelId: model } : {});
  log("loading the model…");
  await engine.load((p) => log(`loading: ${Math.round(p.progress * 100)}% ${p.text}`));
  const [toolsText, sampleText] = await Promise.all([
    fetch("/examples/tools.py").then((r) => r.text()),
    fetch("/examples/learn_sample.json").then((r) => r.text()),
  ]);
  const host = await createBrowserRunnerHost();
  try {
    const toolset = await freezeToolset(memorySource("tools.py", toolsText), host);
    const sample = parseLearnSampleText(sampleText);
    log("learning (prefill + evaluation)…");
    const learned = await learn({ sample, toolset, engine, maxTokens: 64 });
    const ttft = async (mode: "contract" | "imprint"): Promise<number[]> => {
      const session = await createChatSession({
        engine,
        host,
        tools: { kind: "toolset", toolset },
        maxTokens: 32,
        ...(mode === "imprint" ? { imprint: imprintBinding(learned.imprint) } : {}),
      });
      const times: number[] = [];
      for (const p of PROMPTS) {
        const t0 = performance.now();
        let first: number | undefined;
        await session.chat(p, { onToken: () => void (first ??= performance.now() - t0) });
        times.push(Math.round(first ?? performance.now() - t0));
      }
      return times;
    };
    const contract = await ttft("contract");
    const imprint = await ttft("imprint");
    const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    log(
      JSON.stringify(
        {
          bench: "imprint.webllm_ttft",
          model: engine.info().modelId,
          adapter: probe.adapter,
          learn_prefill_ms: learned.evaluation.prefill_ms,
          evaluation: {
            scored: learned.evaluation.scored,
            without: learned.evaluation.matched_without_prefix,
            with: learned.evaluation.matched_with_prefix,
          },
          ttft_ms: { contract, imprint },
          mean_ttft_prompts_2_5_ms: { contract: mean(contract.slice(1)), imprint: mean(imprint.slice(1)) },
          ratio_prompts_2_5_imprint_vs_contract: +(mean(imprint.slice(1)) / mean(contract.slice(1))).toFixed(3),
        },
        null,
        2,
      ),
    );
  } finally {
    await host.close();
    await engine.unload();
  }
}

main().catch((err: unknown) => log(`failed: ${String((err as Error)?.message ?? err)}`));

// Whether the optional Node model runtime is installed. Tests that need it are skipped without it,
// except where EDGE_REQUIRE_LLAMA_RUNTIME=1 (CI): there a missing runtime is a failure.
import { llamaBinding } from "../../src/engines/llamacpp/node/binding.ts";

export async function nodeLlamaAvailable(): Promise<boolean> {
  try {
    await llamaBinding();
    return true;
  } catch (e) {
    if (process.env.EDGE_REQUIRE_LLAMA_RUNTIME === "1") throw e;
    console.warn(
      `node-llama-cpp is not installed: llama.cpp tests are skipped (npm run setup:llama). ${(e as Error).message}`,
    );
    return false;
  }
}

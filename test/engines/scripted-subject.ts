// The scripted demo engine as a conformance subject: it replays the suite's replies exactly.
// It knows no context window and reports no prompt-cache counts (capabilities false).
import { ScriptedEngine } from "../../src/engines/scripted.ts";
import { replyText, type EngineSubject } from "./conformance.ts";

export const scriptedSubject: EngineSubject = {
  name: "scripted (ScriptedEngine)",
  capabilities: { promptCacheCounts: false, contextWindow: false },
  async create(replies) {
    // A 1 ms pause between 4-character pieces: long replies stream long enough to be aborted.
    const engine = new ScriptedEngine(replies.map(replyText), { chunkSize: 4, chunkDelayMs: 1 });
    await engine.load();
    return engine;
  },
  steer: () => undefined,
  async failingLoad() {
    // Replaying needs no file, so the only load failure is being cancelled.
    const controller = new AbortController();
    controller.abort();
    return { engine: new ScriptedEngine([]), code: "aborted", signal: controller.signal };
  },
};

// The session every llama.cpp bench runs (Node side): public/examples/tools.py's tool contract as the
// system message, exactly as the chat loop sends it, and the guided call format the loop uses for a
// required call (toolCallResponseFormat of the active tools: JSON schema → GBNF).
import { createChatSession } from "../src/chat/session.ts";
import { toolCallResponseFormat } from "../src/engines/grammar.ts";
import { ScriptedEngine } from "../src/engines/scripted.ts";
import { createNodeRunnerHost, fileSource } from "../src/runner/node.ts";
import { activeSchemas } from "../src/toolset/freeze.ts";
import type { SessionPlan } from "./session-core.ts";

export async function examplePlan(sizes: { tokens: number; samples: number }): Promise<SessionPlan> {
  const host = createNodeRunnerHost({ spares: 0 });
  try {
    const session = await createChatSession({
      engine: new ScriptedEngine([]),
      host,
      tools: { kind: "file", source: fileSource("public/examples/tools.py") },
    });
    if (!session.contract || !session.toolset) throw new Error("the example tools gave no contract");
    return { system: session.contract, guided: toolCallResponseFormat(activeSchemas(session.toolset)), ...sizes };
  } finally {
    await host.close();
  }
}

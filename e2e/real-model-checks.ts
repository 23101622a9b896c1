// A question to a real-weight model (SmolLM2-135M-Instruct: trained weights, test/real-models.ts) in
// the playground or the <edge-chat> widget, and what must hold afterwards whatever the model says.
// Shared by the Chromium spec (e2e/real-model.spec.ts) and the Firefox/WebKit journey
// (e2e/browsers/real-model-journey.ts); what the page showed and stored is read by the page-side
// functions in real-model-page.ts, and checked here, in Node.
//
// Held whatever a 135M model says (its choice of tool and its words are never asserted):
//   * with tool choice "required" the first turn calls a tool (with "auto" it may answer at once),
//     and every call is valid against its tool's schema (checked here with ajv, independently of
//     the loop's own check, where the front door shows the schemas: the playground);
//   * every call ran once, in the runner: its card's result is exactly what the Python function
//     returns for those arguments, and the run's receipt has one call per card, each with its own
//     id, the runner's HMAC and the tools file's hash verified, and the hashes of those arguments
//     and that result;
//   * the receipt names the model file that ran (model_fingerprint.sha256 = the pinned sha256 of
//     the real file) and is chained (the stored chain verifies);
//   * the model's text streamed into the chat (non-empty, growing while it was generated), and the
//     run ended on its own, answered with non-empty text: a llama.cpp turn after a result is a
//     checked turn (src/chat/model-turn.ts), so a model that repeats its call (SmolLM2 does) is
//     declined and answers, and once the budget is spent its turn can only answer.
import { Ajv } from "ajv";
import { isDeepStrictEqual } from "node:util";
import { sha256Json } from "../src/contract/hash.ts";
import { verifyReceipts } from "../src/receipts/chain.ts";
import type { Receipt } from "../src/receipts/types.ts";
import { checkCalibration } from "../src/chat/check-calibration.ts";
import { startModelServer, type ModelServer } from "../test/engines/model-server.ts";
import { pinnedModel } from "../test/real-models.ts";
import type { SeenRun } from "./real-model-page.ts";

export const REAL_MODEL = pinnedModel("smollm2-135m-instruct-q4_1");

/** Two read tools with whole-number arguments: whichever the model picks, its result is known here
 *  (the grammar bounds integers to 15 digits, so sums and differences stay exact in JavaScript). */
export const REAL_TOOLS = `from edgestudio.tools import edge_tool

@edge_tool(description="Add two whole numbers.")
def add(a: int, b: int) -> dict:
    return {"sum": a + b}

@edge_tool(description="Subtract the second whole number from the first.")
def subtract(a: int, b: int) -> dict:
    return {"difference": a - b}
`;
export const REAL_TOOL_COUNT = 2;
export const REAL_QUESTION = "What is 12 plus 30?";
/** A question no tool of REAL_TOOLS fits, for tool choice "auto": its call start sits ~2.9 nats below
 *  SmolLM2's measured line in native llama.cpp (-9.38 against -6.508), far beyond the ≤ 0.26 by which
 *  WebAssembly and native differed (e2e/llamacpp-choices.spec.ts). */
export const NO_TOOL_QUESTION = "Hi! Who are you?";

type Args = { a: number; b: number };
/** The tool choices the real-weight runs ask with. */
export type ToolChoice = "required" | "auto";
/** What each tool in REAL_TOOLS returns. */
const EXPECTED: Record<string, (args: Args) => Record<string, number>> = {
  add: ({ a, b }) => ({ sum: a + b }),
  subtract: ({ a, b }) => ({ difference: a - b }),
};

const ajv = new Ajv({ strict: true, allErrors: true });

function fail(what: string, seen: unknown): never {
  throw new Error(`${what} (seen: ${JSON.stringify(seen).slice(0, 1500)})`);
}

interface CheckedCall {
  tool: string;
  argsSha: string;
  resultSha: string;
}

/** The cards: each ok and valid, with the function's result; at least one under tool choice "required". */
async function checkCards(
  seen: SeenRun,
  schemas: Record<string, object> | null,
  choice: ToolChoice,
): Promise<CheckedCall[]> {
  if (choice === "required" && seen.cards.length === 0)
    fail("no tool card: with tool choice required the first turn must call a tool", seen);
  const calls: CheckedCall[] = [];
  for (const card of seen.cards) {
    const expected = EXPECTED[card.tool] ?? fail(`a card for ${card.tool}, which is not one of the tools`, card);
    if (!card.ok) fail(`the ${card.tool} card did not end ok`, card);
    const args = JSON.parse(card.args) as Args;
    const schema = schemas?.[card.tool];
    if (schemas && !schema) fail(`no schema shown for ${card.tool}`, schemas);
    if (schema) {
      const validate = ajv.compile(schema);
      if (!validate(args))
        fail(`${card.tool}'s arguments do not match its schema: ${ajv.errorsText(validate.errors)}`, card);
    }
    const result: unknown = JSON.parse(card.result);
    if (!isDeepStrictEqual(result, expected(args)))
      fail(`${card.tool}'s card shows ${card.result}, not what the function returns for ${card.args}`, card);
    calls.push({ tool: card.tool, argsSha: await sha256Json(args), resultSha: await sha256Json(result) });
  }
  return calls;
}

/** How the run ended and what streamed: answered with text, shown as it grew. */
function checkEnd(seen: SeenRun): void {
  if (seen.outcome !== "answered")
    fail(`the run ended ${seen.outcome}${seen.code ? ` (${seen.code})` : ""}, not answered`, seen);
  if (!seen.answer?.trim()) fail("an answer without text", seen);
  if (!seen.streamed.some((t) => t.trim())) fail("no model text showed while the model generated", seen.streamed);
  if (new Set(seen.streamed).size < 2)
    fail("the model's text did not stream (it never grew while shown)", seen.streamed);
}

/**
 * Everything that must hold after the run `seen` (the comment at the top says what), against the
 * page origin's stored receipts and, where the front door shows them, the tools' schemas (null: the
 * cards' state, the loop's own ajv check, stands for it). Returns the run's receipt.
 */
export async function checkRealRun(
  seen: SeenRun,
  receipts: readonly Receipt[],
  schemas: Record<string, object> | null,
  choice: ToolChoice = "required",
): Promise<Receipt> {
  checkEnd(seen);
  const calls = await checkCards(seen, schemas, choice);
  // The widget does not show the receipt's id: its run's receipt is the newest (one run at a time).
  const receipt =
    (seen.receiptId ? receipts.find((r) => r.id === seen.receiptId) : receipts[receipts.length - 1]) ??
    fail(
      `no stored receipt ${seen.receiptId ?? ""}`,
      receipts.map((r) => r.id),
    );
  if (
    receipt.kind !== "chat" ||
    receipt.outcome !== seen.outcome ||
    receipt.code !== seen.code ||
    receipt.engine !== "llamacpp" ||
    receipt.model_id !== REAL_MODEL.file
  )
    fail("the receipt is not this run's", receipt);
  if (receipt.model_fingerprint?.sha256 !== `sha256:${REAL_MODEL.sha256}`)
    fail(
      `the receipt's model_fingerprint does not name the real file (sha256:${REAL_MODEL.sha256})`,
      receipt.model_fingerprint,
    );
  if (receipt.calls.length !== calls.length)
    fail(
      `the receipt has ${receipt.calls.length} call(s), the chat ${calls.length} card(s): each call runs once`,
      receipt.calls,
    );
  if (new Set(receipt.calls.map((c) => c.call_id)).size !== calls.length) fail("two calls share an id", receipt.calls);
  receipt.calls.forEach((c, i) => {
    const card = calls[i]!;
    const ran =
      c.tool_name === card.tool && c.status === "ok" && c.runner_secret_verified && c.tools_file_sha256_verified;
    if (!ran || c.args_sha256 !== card.argsSha || c.result_sha256 !== card.resultSha)
      fail(`receipt call ${i + 1} is not the card's call, run in the runner`, { call: c, card });
  });
  const chain = await verifyReceipts(receipts);
  if (!chain.ok) fail("the stored receipts' chain does not verify", chain.firstBroken);
  return receipt;
}

/** Where the model server serves the real file: the front doors name a model from a URL by the URL's
 *  last part, so the receipts' model_id is the file's own name. */
export const REAL_MODEL_PATH = `/models/${REAL_MODEL.file}`;

/** The local model server with the real file (streamed from disk, 98 MB) at REAL_MODEL_PATH. */
export function serveRealModel(file: string): Promise<ModelServer> {
  // Nothing here uses the generated model's routes (/model.gguf and its failures): they get no bytes.
  return startModelServer(new Uint8Array(), { [REAL_MODEL_PATH]: { path: file } });
}

/** One line on how a checked run went (for the log: what a person waited, at wasm speed). */
export function runSummary(receipt: Receipt): string {
  const s = receipt.engine_stats;
  const speed = (n: number | undefined) => (n === undefined ? "?" : n.toFixed(1));
  const first = s?.time_to_first_token_ms === undefined ? "?" : (s.time_to_first_token_ms / 1000).toFixed(1);
  return `${receipt.outcome}${receipt.code ? ` (${receipt.code})` : ""} after ${receipt.calls.length} call(s); ${s?.generations ?? "?"} generation(s), first token after ${first} s, prefill ${speed(s?.prefill_tokens_per_s)} tok/s, decode ${speed(s?.decode_tokens_per_s)} tok/s`;
}

/**
 * Tool choice "auto" and NO_TOOL_QUESTION: the first turn was weighed in the page (SmolLM2's signal
 * is its call's start, src/chat/check-calibration.ts) and answered without proposing a call, and
 * the receipt says so with the score, under the model's line. Returns the score, for the log.
 */
export function checkWeighedNoCall(receipt: Receipt): number {
  const line = checkCalibration(`sha256:${REAL_MODEL.sha256}`);
  if (line?.signal !== "call_start") fail("SmolLM2 has no call-start calibration", line);
  if (receipt.calls.length) fail("a call ran for a question no tool fits", receipt.calls);
  const [check, ...more] = receipt.call_checks ?? [];
  if (!check || more.length || check.turn !== 0 || check.tool_name !== "" || check.verdict !== "no_call")
    fail("the first turn was not weighed and answered without a call (verdict no_call)", receipt.call_checks);
  if (check.threshold !== line.threshold || check.score === undefined || !(check.score <= line.threshold))
    fail(`the receipt does not give a score at or under SmolLM2's line ${line.threshold}`, check);
  return check.score;
}

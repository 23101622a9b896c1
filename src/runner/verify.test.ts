// The reply checks on their own: these are the rules that decide whether a runner's answer is
// believed, so each way of lying gets its own case (the end-to-end tests in node.test.ts cover the
// real worker path).
import { describe, expect, it } from "vitest";
import { hmacSha256Hex, randomHex, sha256Json } from "../contract/hash.ts";
import { SCHEMA_GENERATOR_VERSION, type JsonObject } from "../contract/types.ts";
import { verifyCallReply, verifyDiscoverReply } from "./verify.ts";

const jobId = randomHex(16);
const callId = "call_test";
const secret = randomHex(32);

async function signedDone(result: unknown, opts: { sha?: string; key?: string; job?: string; mac?: string } = {}) {
  const sha = opts.sha ?? (await sha256Json(result));
  const reply = JSON.stringify({ ok: true, result, result_sha256: sha, stderr: "", tools_file_sha256_verified: true });
  const hmac = opts.mac ?? (await hmacSha256Hex(opts.key ?? secret, callId + sha));
  return { type: "done", jobId: opts.job ?? jobId, reply, hmac };
}

const ctx = (outputSchema: JsonObject | null = null) => ({ jobId, callId, secret, outputSchema });

describe("verifyCallReply", () => {
  it("accepts a correctly signed reply", async () => {
    const out = await verifyCallReply(await signedDone({ a: 1 }), ctx());
    expect(out.ok).toBe(true);
    expect(out.runner_secret_verified).toBe(true);
    expect(out.result).toEqual({ a: 1 });
  });

  it("rejects a reply signed with another secret", async () => {
    const out = await verifyCallReply(await signedDone({ a: 1 }, { key: randomHex(32) }), ctx());
    expect(out.error?.code).toBe("runner_reply_unverified");
    expect(out.runner_secret_verified).toBe(false);
    expect(out.result).toBeUndefined();
  });

  it("rejects a result swapped after signing (hash and HMAC of the original)", async () => {
    const good = await signedDone({ a: 1 });
    const tampered = { ...good, reply: good.reply.replace('"a":1', '"a":2') };
    const out = await verifyCallReply(tampered, ctx());
    expect(out.error?.code).toBe("runner_reply_unverified");
  });

  it("rejects a claimed result_sha256 that is not the result's hash, even when signed", async () => {
    const fake = await sha256Json({ other: true });
    const out = await verifyCallReply(await signedDone({ a: 1 }, { sha: fake }), ctx());
    expect(out.error?.code).toBe("runner_reply_unverified");
  });

  it("rejects another job's reply and a missing HMAC", async () => {
    expect((await verifyCallReply(await signedDone({ a: 1 }, { job: randomHex(16) }), ctx())).error?.code).toBe(
      "runner_reply_unverified",
    );
    const unsigned: Record<string, unknown> = { ...(await signedDone({ a: 1 })) };
    delete unsigned.hmac;
    expect((await verifyCallReply(unsigned, ctx())).error?.code).toBe("runner_reply_unverified");
    expect((await verifyCallReply({ type: "ready" }, ctx())).error?.code).toBe("runner_reply_unverified");
  });

  it("applies size and output_schema rules only after the signature holds", async () => {
    const big = await verifyCallReply(await signedDone({ t: "x".repeat(70_000) }), ctx());
    expect(big.error?.code).toBe("tool_result_oversized");
    expect(big.runner_secret_verified).toBe(true);
    const schema = {
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
      additionalProperties: false,
    };
    const bad = await verifyCallReply(await signedDone({ n: "1" }), ctx(schema));
    expect(bad.error?.code).toBe("tool_result_schema_mismatch");
    const list = await verifyCallReply(await signedDone([1, 2]), ctx());
    expect(list.error?.code).toBe("unsupported_tool_result");
  });

  it("passes a coded Python failure through and refuses unknown codes", async () => {
    const fail = (code: string) => ({
      type: "done",
      jobId,
      reply: JSON.stringify({
        ok: false,
        error: { code, message: "m" },
        diagnostics: { traceback: "tb" },
        stderr: "",
        tools_file_sha256_verified: true,
      }),
    });
    const raised = await verifyCallReply(fail("tool_raised"), ctx());
    expect(raised.error).toEqual({ code: "tool_raised", message: "m" });
    expect(raised.diagnostics).toEqual({ traceback: "tb" });
    expect((await verifyCallReply(fail("made_up"), ctx())).error?.code).toBe("runner_reply_unverified");
  });
});

describe("verifyDiscoverReply", () => {
  const sha = `sha256:${"a".repeat(64)}`;
  const done = (reply: unknown) => ({ type: "done", jobId, reply: JSON.stringify(reply) });
  const base = {
    ok: true,
    tools_file_sha256: sha,
    schema_generator_version: SCHEMA_GENERATOR_VERSION,
    tools: [],
    errors: [],
    warnings: [],
    stderr: "",
  };

  it("refuses a reply that claims another file hash", () => {
    const out = verifyDiscoverReply(done({ ...base, tools_file_sha256: `sha256:${"b".repeat(64)}` }), jobId, sha);
    expect(out.ok).toBe(false);
    expect(out.errors[0]?.code).toBe("runner_reply_unverified");
  });

  it("refuses a reply that names another schema generator (a stale or tampered runner image)", () => {
    expect(verifyDiscoverReply(done(base), jobId, sha).ok).toBe(true);
    const out = verifyDiscoverReply(
      done({ ...base, schema_generator_version: "edge.tools.schema.forged" }),
      jobId,
      sha,
    );
    expect(out.ok).toBe(false);
    expect(out.errors[0]?.code).toBe("runner_reply_unverified");
    expect(out.schema_generator_version).toBe("");
  });

  it("refuses malformed tools", () => {
    const out = verifyDiscoverReply(done({ ...base, tools: [{ schema: { name: "x" } }] }), jobId, sha);
    expect(out.errors[0]?.code).toBe("runner_reply_unverified");
  });
});

// parseWorkerToHost: what the pool believes of a worker's message. Each message type in its real
// shape is accepted; a wrong type, a missing field, an unknown type or an extra key (an own
// __proto__ as JSON.parse makes it) is refused, so the pool treats it as a protocol violation.
import { describe, expect, it } from "vitest";
import { parseWorkerToHost, type WorkerToHost } from "./protocol.ts";

const valid: WorkerToHost[] = [
  { type: "ready", bootMs: 12, fromSnapshot: true },
  { type: "snapshot", bytes: new Uint8Array([1, 2, 3]), bootMs: 40 },
  { type: "done", jobId: "j1", reply: '{"ok":true}' },
  { type: "done", jobId: "j1", reply: '{"ok":true}', hmac: "ab", stderr: "out" },
  { type: "fatal", message: "pyodide did not load" },
];

describe("parseWorkerToHost", () => {
  it("accepts each message type as the worker sends it", () => {
    for (const msg of valid) expect(parseWorkerToHost(msg)).toEqual({ ok: true, message: msg });
  });

  it("accepts a message that came through JSON (the Node runner's frames)", () => {
    const msg = JSON.parse('{"type":"done","jobId":"j1","reply":"{}","stderr":""}') as unknown;
    expect(parseWorkerToHost(msg).ok).toBe(true);
  });

  it("refuses what is not an object or has an unknown type", () => {
    for (const msg of [
      null,
      undefined,
      "done",
      3,
      [],
      [{ type: "done" }],
      {},
      { type: "hurry" },
      { type: 1 },
      { type: "toString" },
    ]) {
      expect(parseWorkerToHost(msg).ok).toBe(false);
    }
  });

  it("refuses a field of the wrong type", () => {
    const bad: unknown[] = [
      { type: "ready", bootMs: "12", fromSnapshot: true },
      { type: "ready", bootMs: 12, fromSnapshot: "yes" },
      { type: "snapshot", bytes: [1, 2, 3], bootMs: 40 },
      { type: "snapshot", bytes: new Uint8Array(1).buffer, bootMs: 40 },
      { type: "done", jobId: 1, reply: "{}" },
      { type: "done", jobId: "j1", reply: { ok: true } },
      { type: "done", jobId: "j1", reply: "{}", hmac: 5 },
      { type: "done", jobId: "j1", reply: "{}", stderr: null },
      { type: "fatal", message: { text: "x" } },
    ];
    for (const msg of bad) {
      const out = parseWorkerToHost(msg);
      expect(out.ok, JSON.stringify(msg)).toBe(false);
      if (!out.ok) expect(out.reason).toMatch(/is not a/);
    }
  });

  it("refuses a missing field", () => {
    const missing: unknown[] = [
      { type: "ready", fromSnapshot: false },
      { type: "ready", bootMs: 1 },
      { type: "snapshot", bootMs: 1 },
      { type: "snapshot", bytes: new Uint8Array(1) },
      { type: "done", reply: "{}" },
      { type: "done", jobId: "j1" },
      { type: "fatal" },
    ];
    for (const msg of missing) expect(parseWorkerToHost(msg).ok, JSON.stringify(msg)).toBe(false);
  });

  it("refuses extra keys, an own __proto__ included", () => {
    const proto = JSON.parse('{"type":"done","jobId":"j1","reply":"{}","__proto__":{"hmac":"ab"}}') as unknown;
    expect(Object.hasOwn(proto as object, "__proto__")).toBe(true);
    const out = parseWorkerToHost(proto);
    expect(out).toEqual({ ok: false, reason: 'done: unexpected field "__proto__"' });
    expect(parseWorkerToHost({ type: "fatal", message: "x", code: "runner_crashed" }).ok).toBe(false);
    expect(parseWorkerToHost({ type: "ready", bootMs: 1, fromSnapshot: false, extra: 1 }).ok).toBe(false);
  });

  it("does not read fields through the prototype", () => {
    const inherited = Object.assign(Object.create({ jobId: "j1", reply: "{}" }) as object, { type: "done" });
    expect(parseWorkerToHost(inherited).ok).toBe(false);
  });
});

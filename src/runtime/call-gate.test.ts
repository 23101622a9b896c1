// createCallGate: calls that arrive one by one follow runScheduled's rule. Proven with controlled
// promises (each job waits on its own latch, opened by the test); nothing waits on time.
import { describe, expect, it } from "vitest";
import { createCallGate } from "./schedule.ts";

const drain = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function jobs() {
  const started: string[] = [];
  const latches = new Map<string, () => void>();
  const job = (k: string) => () =>
    new Promise<string>((resolve) => {
      started.push(k);
      latches.set(k, () => resolve(k));
    });
  const open = async (k: string) => {
    latches.get(k)!();
    await drain();
  };
  return { started, job, open };
}

describe("createCallGate", () => {
  it("runs safe calls side by side up to the cap, and an unsafe call alone, in arrival order", async () => {
    const gate = createCallGate(2);
    const { started, job, open } = jobs();
    const results = [
      gate.run(true, job("s1")),
      gate.run(true, job("s2")),
      gate.run(true, job("s3")),
      gate.run(false, job("u1")),
      gate.run(true, job("s4")),
    ];
    await drain();
    expect(started).toEqual(["s1", "s2"]); // the cap
    await open("s1");
    expect(started).toEqual(["s1", "s2", "s3"]);
    await open("s2");
    await open("s3");
    expect(started).toEqual(["s1", "s2", "s3", "u1"]); // after everything before it settled
    expect(started).not.toContain("s4"); // and everything after it waits
    await open("u1");
    expect(started).toEqual(["s1", "s2", "s3", "u1", "s4"]);
    await open("s4");
    expect(await Promise.all(results)).toEqual(["s1", "s2", "s3", "u1", "s4"]);
  });

  it("a failed call releases the gate for the next one", async () => {
    const gate = createCallGate(1);
    const first = gate.run(false, () => Promise.reject(new Error("boom")));
    const second = gate.run(false, async () => "next");
    await expect(first).rejects.toThrow("boom");
    expect(await second).toBe("next");
  });
});

// The pool host's answer to a worker that dies while booting: blame the memory snapshot only when
// the worker itself failed. A worker that died with its environment (the browser's sandbox frame,
// lost to another tool's heap exhaustion) gets one more boot from the same snapshot; the snapshot
// is neither discarded nor replaced by slow plain boots. Fake workers: no Pyodide needed.
import { describe, expect, it } from "vitest";
import { sha256Bytes } from "../contract/hash.ts";
import type { BootMessage, DiscoverJobMessage } from "../../workers/protocol.ts";
import { createRunnerHost, type RunnerWorkerFactory, type SnapshotStore } from "./pool.ts";

type Fate = "ok" | "dies-with-environment" | "fails-to-boot";

/** Workers that boot (or not, as planned) after a few ms and answer a discovery with no tools. */
function plannedFactory(plan: Fate[]): { factory: RunnerWorkerFactory; boots: Array<{ fromSnapshot: boolean }> } {
  const boots: Array<{ fromSnapshot: boolean }> = [];
  const factory: RunnerWorkerFactory = {
    pyodideAssets: () => ({ kind: "indexURL", indexURL: "unused" }),
    spawn() {
      const fate = plan.shift() ?? "ok";
      let onMessage: (msg: unknown) => void = () => undefined;
      let onExit: (reason: string, withEnvironment?: boolean) => void = () => undefined;
      const later = (fn: () => void) => setTimeout(fn, 5);
      return {
        post(msg) {
          if (msg.type === "boot") {
            const fromSnapshot = (msg as BootMessage).snapshot !== undefined;
            boots.push({ fromSnapshot });
            if (fate === "dies-with-environment") later(() => onExit("the sandbox frame was lost", true));
            else if (fate === "fails-to-boot") later(() => onMessage({ type: "fatal", message: "snapshot does not boot" }));
            else later(() => onMessage({ type: "ready", bootMs: 1, fromSnapshot }));
          } else if (msg.type === "discover") {
            const job = msg as DiscoverJobMessage;
            const reply = { ok: true, tools_file_sha256: job.expectedSha256, tools: [], errors: [], warnings: [], stderr: "" };
            later(() => onMessage({ type: "done", jobId: job.jobId, reply: JSON.stringify(reply) }));
          }
        },
        onMessage: (handler) => (onMessage = handler),
        onExit: (handler) => (onExit = handler),
        terminate: () => undefined,
      };
    },
  };
  return { factory, boots };
}

function heldSnapshot(): SnapshotStore & { discarded: number } {
  const store = {
    discarded: 0,
    get: async () => new Uint8Array([1, 2, 3]),
    put: async () => undefined,
    discard: async () => void store.discarded++,
  };
  return store;
}

async function discoverOnce(fates: Fate[]) {
  const { factory, boots } = plannedFactory(fates);
  const snapshot = heldSnapshot();
  const host = createRunnerHost(factory, { pythonFiles: {}, spares: 0, snapshot });
  const bytes = new TextEncoder().encode("");
  const out = await host.discover({ bytes, expectedSha256: await sha256Bytes(bytes), filename: "tools.py" });
  const stats = host.stats();
  await host.close();
  return { out, boots, stats, discarded: snapshot.discarded };
}

describe("a worker that dies while booting", () => {
  it("with its environment: the job boots again from the same snapshot, which is kept", async () => {
    const r = await discoverOnce(["dies-with-environment", "ok"]);
    expect(r.out.ok).toBe(true);
    expect(r.boots).toEqual([{ fromSnapshot: true }, { fromSnapshot: true }]);
    expect(r.discarded).toBe(0);
    expect(r.stats.snapshot).toBe("ready");
    expect(r.stats.plainBoots).toBe(0);
  });

  it("by itself: the snapshot is blamed, discarded, and the job boots plainly", async () => {
    const r = await discoverOnce(["fails-to-boot", "ok"]);
    expect(r.out.ok).toBe(true);
    expect(r.boots).toEqual([{ fromSnapshot: true }, { fromSnapshot: false }]);
    expect(r.discarded).toBe(1);
    expect(r.stats.snapshot).toBe("failed");
  });

  it("with its environment twice in a row: the job fails as runner_boot_failed, the snapshot is kept", async () => {
    const r = await discoverOnce(["dies-with-environment", "dies-with-environment"]);
    expect(r.out.ok).toBe(false);
    expect(r.out.errors[0]?.code).toBe("runner_boot_failed");
    expect(r.discarded).toBe(0);
    expect(r.stats.snapshot).toBe("ready");
  });
});

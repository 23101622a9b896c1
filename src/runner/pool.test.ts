// The pool host's answer to a worker that dies while booting: blame the memory snapshot only when
// the worker itself failed. A worker that died with its environment (the browser's sandbox frame,
// lost to another tool's heap exhaustion) gets one more boot from the same snapshot; the snapshot
// is neither discarded nor replaced by slow plain boots. Fake workers: no Pyodide needed.
import { describe, expect, it } from "vitest";
import { sha256Bytes } from "../contract/hash.ts";
import { SCHEMA_GENERATOR_VERSION } from "../contract/types.ts";
import type { BootMessage, DiscoverJobMessage } from "../../workers/protocol.ts";
import { createRunnerHost } from "./pool.ts";
import type { SnapshotStore } from "./pool-snapshot.ts";
import type { RunnerWorkerFactory } from "./worker-handle.ts";

type Fate = "ok" | "dies-with-environment" | "fails-to-boot";

/** Workers that boot (or not, as planned) after a few ms and answer a discovery with no tools (and
 *  a snapshot boot with a snapshot). `spawned` counts the workers started. */
function plannedFactory(plan: Fate[]): {
  factory: RunnerWorkerFactory;
  boots: Array<{ fromSnapshot: boolean }>;
  spawned: () => number;
} {
  const boots: Array<{ fromSnapshot: boolean }> = [];
  let spawned = 0;
  const factory: RunnerWorkerFactory = {
    pyodideAssets: () => ({ kind: "indexURL", indexURL: "unused" }),
    spawn() {
      spawned++;
      const fate = plan.shift() ?? "ok";
      let onMessage: (msg: unknown) => void = () => undefined;
      let onExit: (reason: string, withEnvironment?: boolean) => void = () => undefined;
      const later = (fn: () => void) => setTimeout(fn, 5);
      return {
        post(msg) {
          if (msg.type === "boot" && (msg as BootMessage).makeSnapshot) {
            later(() => onMessage({ type: "snapshot", bytes: new Uint8Array([1, 2, 3]), bootMs: 1 }));
          } else if (msg.type === "boot") {
            const fromSnapshot = (msg as BootMessage).snapshot !== undefined;
            boots.push({ fromSnapshot });
            if (fate === "dies-with-environment") later(() => onExit("the sandbox frame was lost", true));
            else if (fate === "fails-to-boot")
              later(() => onMessage({ type: "fatal", message: "snapshot does not boot" }));
            else later(() => onMessage({ type: "ready", bootMs: 1, fromSnapshot }));
          } else if (msg.type === "discover") {
            const job = msg as DiscoverJobMessage;
            const reply = {
              ok: true,
              tools_file_sha256: job.expectedSha256,
              schema_generator_version: SCHEMA_GENERATOR_VERSION,
              tools: [],
              errors: [],
              warnings: [],
              stderr: "",
            };
            later(() => onMessage({ type: "done", jobId: job.jobId, reply: JSON.stringify(reply) }));
          }
        },
        onMessage: (handler) => (onMessage = handler),
        onExit: (handler) => (onExit = handler),
        terminate: () => undefined,
      };
    },
  };
  return { factory, boots, spawned: () => spawned };
}

/** A snapshot store holding `held` (null: none yet). */
function heldSnapshot(held: Uint8Array | null = new Uint8Array([1, 2, 3])): SnapshotStore & { discarded: number } {
  const store = {
    discarded: 0,
    get: async () => held ?? undefined,
    put: async (bytes: Uint8Array) => void (held = bytes),
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

describe("prestarted workers (a one-shot command's runners)", () => {
  const discover = async (host: ReturnType<typeof createRunnerHost>) => {
    const bytes = new TextEncoder().encode("");
    return host.discover({ bytes, expectedSha256: await sha256Bytes(bytes), filename: "tools.py" });
  };

  it("start when the host is created, boot from the snapshot, serve the next jobs and are not replaced", async () => {
    const { factory, boots, spawned } = plannedFactory([]);
    const host = createRunnerHost(factory, { pythonFiles: {}, spares: 0, prestart: 2, snapshot: heldSnapshot() });
    expect(spawned()).toBe(2); // before any job, before the snapshot is even read
    await host.started(); // both have their boot messages: the host's own work for them is done
    expect(boots).toHaveLength(2);
    expect((await discover(host)).ok).toBe(true);
    expect((await discover(host)).ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 30)); // a refill would have started by now
    expect(spawned()).toBe(2);
    expect(boots).toEqual([{ fromSnapshot: true }, { fromSnapshot: true }]);
    expect(host.stats()).toMatchObject({ bootsFromSnapshot: 2, plainBoots: 0, workersSpawned: 2 });
    await host.close();
  });

  it("with no snapshot yet, wait for it to be made and then boot from it", async () => {
    const { factory, boots, spawned } = plannedFactory([]);
    const host = createRunnerHost(factory, { pythonFiles: {}, spares: 0, prestart: 2, snapshot: heldSnapshot(null) });
    expect((await discover(host)).ok).toBe(true);
    expect((await discover(host)).ok).toBe(true);
    expect(spawned()).toBe(3); // the two and the snapshot maker
    expect(boots).toEqual([{ fromSnapshot: true }, { fromSnapshot: true }]);
    expect(host.stats().snapshot).toBe("ready");
    await host.close();
  });

  it("warm up like the pool's spares (the second one has the discovery's time for it)", async () => {
    const { factory } = plannedFactory([]);
    const warmUps: Array<boolean | undefined> = [];
    const spawn = factory.spawn.bind(factory);
    const watched: RunnerWorkerFactory = {
      ...factory,
      warmsUp: true,
      spawn(role) {
        const handle = spawn(role);
        const post = handle.post.bind(handle);
        handle.post = (msg, transfer) => {
          if (msg.type === "boot" && !msg.makeSnapshot) warmUps.push(msg.warmUp);
          post(msg, transfer);
        };
        return handle;
      },
    };
    const oneShot = createRunnerHost(watched, { pythonFiles: {}, spares: 0, prestart: 2, snapshot: heldSnapshot() });
    await oneShot.started();
    expect(warmUps).toEqual([true, true]);
    await oneShot.close();
    const pool = createRunnerHost(watched, { pythonFiles: {}, spares: 1, snapshot: heldSnapshot() });
    await pool.warm();
    expect(warmUps).toEqual([true, true, true]);
    await pool.close();
  });

  it("are stopped by close() before they booted: nothing is left waiting", async () => {
    const { factory, boots } = plannedFactory([]);
    const host = createRunnerHost(factory, { pythonFiles: {}, spares: 0, prestart: 1, snapshot: heldSnapshot() });
    await host.close();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(boots).toEqual([]); // killed before its boot message: none was sent
    expect(host.stats().sparesReady).toBe(0);
  });
});

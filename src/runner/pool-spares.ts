// The pool's runners before their job: every live worker, the booted-but-unused spares kept ready,
// the boot message each is sent (from the memory snapshot when there is one), their refill after a
// job, and the choice of the runner a job gets (acquire). The host (pool.ts) runs jobs on them.
import type { BootMessage, PythonFiles } from "../../workers/protocol.ts";
import { EnvironmentLost, Runner } from "./pool-runner.ts";
import type { PoolSnapshot } from "./pool-snapshot.ts";
import type { RunnerWorkerFactory } from "./worker-handle.ts";

export interface SpareCounts {
  workersSpawned: number;
  bootsFromSnapshot: number;
  plainBoots: number;
  lastBootMs?: number;
}

export interface SparesOptions {
  factory: RunnerWorkerFactory;
  snapshot: PoolSnapshot;
  /** The runner's Python sources, read once. */
  files: () => Promise<PythonFiles>;
  /** How many booted spares to keep ready. */
  target: number;
  bootTimeoutMs: number;
  stderrLimit: number;
  /** Counts shared with the snapshot's maker (it is a spawned worker too). */
  counts: SpareCounts;
}

export class RunnerSpares {
  private closed = false;
  private readonly spares: Runner[] = [];
  private readonly live = new Set<Runner>();
  /** Boot messages being prepared (started() waits for them). */
  private readonly booting = new Set<Promise<void>>();
  /** Spares being spawned by refill (warm() waits for them). */
  private readonly spawning = new Set<Promise<Runner>>();

  constructor(private readonly o: SparesOptions) {}

  /** Spares ready to take a job now. */
  get ready(): number {
    return this.spares.filter((r) => r.state === "ready").length;
  }

  /** Runners started at once for the first jobs (RunnerHostOptions.prestart): they boot from the
   *  snapshot once it is loaded, or made on a first run — two plain boots beside the maker would be
   *  slower on two cores than the maker plus boots. They warm up like spares (`edge tools call`'s
   *  second runner has the discovery's time for it; without, the one-shot call was slower,
   *  docs/runner.md); a job that takes one hurries it. Never refilled beyond the target. */
  prestart(count: number): void {
    for (let i = 0; i < count; i++) {
      const runner = this.createRunner();
      this.spares.push(runner);
      this.sendBoot(runner, true, true, true).catch(() => undefined); // a failed boot drops it (onDeath)
    }
  }

  /** Boot spares up to the target. A spare that fails to boot just drops out (onDeath); the next
   *  job refills it. */
  refill(): void {
    if (this.closed) return;
    const idle = this.spares.filter((r) => r.state === "booting" || r.state === "ready").length + this.spawning.size;
    for (let i = idle; i < this.o.target; i++) {
      const pending = this.spawnRunner(true, true);
      this.spawning.add(pending);
      pending.then(
        (runner) => {
          this.spawning.delete(pending);
          if (runner.state !== "dead") this.spares.push(runner);
        },
        () => void this.spawning.delete(pending),
      );
    }
  }

  /** A booted runner for one job: a ready spare, else a booting one, else a fresh (cold) boot.
   *  If a snapshot boot fails, the snapshot is dropped and the job gets one plain boot — unless the
   *  runner read the stored file itself (SnapshotStore.reference) and refused it: then, as when
   *  the store's own check refuses its bytes, a new snapshot is made and the job boots from it.
   *  If the boot died with its environment (a lost sandbox frame), the job gets one more boot as
   *  it was. */
  async acquire(): Promise<Runner> {
    const snapshot = this.o.snapshot;
    await snapshot.settle();
    // While the first snapshot is being made, wait for it rather than boot plainly beside it: two
    // Pyodide boots at once on two cores take longer than the snapshot plus a boot from it.
    if (snapshot.state === "making" && !this.spares.some((r) => r.state === "ready")) await snapshot.making;
    let runner = this.spares.find((r) => r.state === "ready") ?? this.spares.find((r) => r.state === "booting");
    if (runner) {
      this.spares.splice(this.spares.indexOf(runner), 1);
      if (this.o.factory.warmsUp) runner.hurry();
    } else runner = await this.spawnRunner(true);
    runner.state = runner.state === "ready" ? "taken" : runner.state;
    try {
      await runner.ready;
    } catch (err) {
      if (this.closed || !(runner.usesSnapshot || err instanceof EnvironmentLost)) throw err;
      if (!(err instanceof EnvironmentLost)) await snapshot.refused();
      runner = await this.spawnRunner(snapshot.state === "ready");
      await runner.ready;
    }
    if (runner.state === "dead") throw new Error("the runner died after boot");
    runner.state = "taken";
    return runner;
  }

  /** Resolves when every runner started so far has been sent its boot message. */
  async started(): Promise<void> {
    await Promise.allSettled([...this.booting]);
  }

  /** Refills, then resolves when every spare has booted (or failed to). */
  async warm(): Promise<void> {
    this.refill();
    await Promise.allSettled([...this.spawning]);
    await Promise.allSettled(this.spares.map((r) => r.ready));
  }

  close(): void {
    this.closed = true;
    for (const r of [...this.live]) r.kill("host closed");
    this.spares.length = 0;
  }

  /** A new runner's worker, started now; its boot message follows (bootRunner). */
  private createRunner(): Runner {
    const handle = this.o.factory.spawn();
    this.o.counts.workersSpawned++;
    const runner = new Runner(handle, (r) => {
      this.live.delete(r);
      const i = this.spares.indexOf(r);
      if (i >= 0) this.spares.splice(i, 1);
    });
    this.live.add(runner);
    if (this.closed) runner.kill("host closed");
    return runner;
  }

  /** A new runner, its boot message sent. */
  private async spawnRunner(allowSnapshot: boolean, spare = false): Promise<Runner> {
    const runner = this.createRunner();
    await this.sendBoot(runner, allowSnapshot, spare);
    return runner;
  }

  /** bootRunner, tracked for started(). */
  private sendBoot(runner: Runner, allowSnapshot: boolean, spare: boolean, afterSnapshot = false): Promise<void> {
    const sent = this.bootRunner(runner, allowSnapshot, spare, afterSnapshot);
    this.booting.add(sent);
    const done = (): void => void this.booting.delete(sent);
    sent.then(done, done);
    return sent;
  }

  /** Send the boot message once the Python files are read (and, with `afterSnapshot`, once the
   *  snapshot is settled: loaded, or made first). The worker starts before: its own start-up
   *  overlaps these reads. `spare` when nobody waits for it yet, so its boot may include warm-up. */
  private async bootRunner(
    runner: Runner,
    allowSnapshot: boolean,
    spare: boolean,
    afterSnapshot: boolean,
  ): Promise<void> {
    const { factory, snapshot, counts } = this.o;
    let pf: PythonFiles;
    try {
      [pf] = await Promise.all([this.o.files(), afterSnapshot ? snapshot.settle() : undefined]);
      if (afterSnapshot) await snapshot.making;
    } catch (err) {
      runner.kill(`the runner's Python files could not be read: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    if (runner.state === "dead") return; // the host closed (or the worker died) meanwhile
    const snap = allowSnapshot && snapshot.state === "ready" ? snapshot.image : undefined;
    runner.usesSnapshot = snap !== undefined;
    // The snapshot is copied (structured clone), never transferred or shared: tool code in one
    // worker must not be able to write into the bytes the next worker boots from.
    const boot: BootMessage = {
      type: "boot",
      pythonFiles: pf,
      pyodide: factory.pyodideAssets(),
      stderrLimit: this.o.stderrLimit,
    };
    if (snap instanceof Uint8Array) boot.snapshot = snap;
    else if (snap) boot.snapshotFile = snap;
    if (spare && factory.warmsUp) boot.warmUp = true;
    runner.boot(boot);
    const bootTimer = setTimeout(() => runner.kill("boot timed out"), this.o.bootTimeoutMs);
    runner.ready.then(
      (info) => {
        clearTimeout(bootTimer);
        counts.lastBootMs = info.bootMs;
        if (info.fromSnapshot) counts.bootsFromSnapshot++;
        else counts.plainBoots++;
      },
      () => clearTimeout(bootTimer),
    );
  }
}

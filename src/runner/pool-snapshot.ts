// The pool's memory snapshot: loaded once from its store, or made once in a background worker when
// there is none, and dropped (then made again) when a boot refuses it. Workers boot from its image:
// the bytes, or where a worker that reads snapshot files itself finds them (SnapshotStore.reference).
import { parseWorkerToHost, type PythonFiles, type SnapshotFileRef } from "../../workers/protocol.ts";
import { unexpected } from "./pool-runner.ts";
import type { RunnerWorkerFactory, RunnerWorkerHandle } from "./worker-handle.ts";

/** Where memory snapshots are kept between hosts (disk in Node, IndexedDB/Cache in a browser). */
export interface SnapshotStore {
  get(): Promise<Uint8Array | undefined>;
  /** Where the stored snapshot is, for workers that read it themselves and check its sha256
   *  (RunnerWorkerFactory.readsSnapshotFiles): the host then never reads its bytes. */
  reference?(): Promise<SnapshotFileRef | undefined>;
  put(bytes: Uint8Array): Promise<void>;
  /** Forget a snapshot that failed to boot. */
  discard?(): Promise<void>;
}

export type SnapshotState = "unknown" | "loading" | "making" | "ready" | "absent" | "failed";

export class PoolSnapshot {
  state: SnapshotState;
  /** What workers boot from, once `state` is "ready". */
  image: Uint8Array | SnapshotFileRef | undefined;
  /** The snapshot being made, if one is. */
  making: Promise<void> | undefined;
  private settled: Promise<void> | undefined;
  private maker: RunnerWorkerHandle | undefined;
  /** Ends the snapshot being made (close): its boot timer would otherwise keep the process alive. */
  private abortMaking: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly store: SnapshotStore | null,
    private readonly factory: RunnerWorkerFactory,
    private readonly files: () => Promise<PythonFiles>,
    private readonly bootTimeoutMs: number,
    /** Counts the maker among the host's spawned workers. */
    private readonly spawned: () => void,
  ) {
    this.state = store ? "unknown" : "absent";
  }

  /** Load the stored snapshot once; when there is none, make one in a background worker. */
  settle(): Promise<void> {
    const store = this.store;
    if (!store) return Promise.resolve();
    this.settled ??= (async () => {
      this.state = "loading";
      try {
        const ref = this.factory.readsSnapshotFiles ? await store.reference?.() : undefined;
        const found = ref && ref.size > 0 ? ref : await store.get();
        if (found && (found instanceof Uint8Array ? found.byteLength > 0 : true)) {
          this.image = found;
          this.state = "ready";
          return;
        }
      } catch {
        // unreadable cache: same as none
      }
      this.state = "making";
      this.making = this.make();
    })();
    return this.settled;
  }

  /** A boot refused the snapshot: forget it; if workers read the stored file themselves, make a new
   *  one (as when the store's own check refuses its bytes) and wait for it. */
  async refused(): Promise<void> {
    const referenced = this.image !== undefined && !(this.image instanceof Uint8Array);
    this.state = "failed";
    this.image = undefined;
    await this.store?.discard?.().catch(() => undefined);
    if (referenced && !this.closed) {
      this.state = "making";
      await (this.making = this.make());
    }
  }

  close(): void {
    this.closed = true;
    this.abortMaking?.();
    this.maker?.terminate();
    this.maker = undefined;
  }

  private async make(): Promise<void> {
    if (!this.store || this.closed) return;
    try {
      const bytes = await this.fromMaker();
      this.maker?.terminate();
      this.maker = undefined;
      if (this.closed) return;
      this.image = bytes;
      this.state = "ready";
      await this.store.put(bytes).catch(() => undefined);
    } catch {
      this.maker?.terminate();
      this.maker = undefined;
      if (this.state === "making") this.state = "failed";
    }
  }

  /** A worker booted to make the snapshot, and the bytes it sends. */
  private fromMaker(): Promise<Uint8Array> {
    return new Promise<Uint8Array>((resolve, reject) => {
      void this.files().then((pythonFiles) => {
        if (this.closed) return reject(new Error("closed"));
        const handle = this.factory.spawn("snapshot");
        this.maker = handle;
        this.spawned();
        const timer = setTimeout(() => reject(new Error("snapshot boot timed out")), this.bootTimeoutMs * 2);
        this.abortMaking = () => {
          clearTimeout(timer);
          reject(new Error("closed"));
        };
        handle.onMessage((msg) => {
          clearTimeout(timer);
          const parsed = parseWorkerToHost(msg);
          if (parsed.ok && parsed.message.type === "snapshot") resolve(parsed.message.bytes);
          else reject(new Error(`snapshot worker: ${unexpected(parsed)}`));
        });
        handle.onExit((reason) => {
          clearTimeout(timer);
          reject(new Error(`snapshot worker exited: ${reason}`));
        });
        handle.post({ type: "boot", pythonFiles, pyodide: this.factory.pyodideAssets(), makeSnapshot: true });
      }, reject);
    });
  }
}

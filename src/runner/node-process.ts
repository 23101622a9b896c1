// Runner PROCESSES for the Node adapter: each runner is a child process under Node's permission
// model, never a thread of the CLI (docs/contract.md §5). What the child may do is fixed by the flags
// it is started with (runner-plan.ts):
// read Pyodide's own files and nothing else; no file writes, child processes, workers, native
// addons, WASI or inspector (none of them is allowed, so all are denied); no JavaScript from
// strings; an empty environment; its own stdio; none of the descriptors this process inherited;
// where the platform gives one without privileges, its own empty network namespace (runner-launch.ts).
// The protocol travels as frames on a private pipe (fd 3), bounded by size; whatever reaches the
// child's fd 1 and 2 is captured here, bounded, as the job's stderr. Every runner is killed when
// this process ends or is told to (SIGINT, SIGTERM, SIGHUP). What the permission model does not
// cover is closed in the child (workers/runner.node-process.ts) or listed in docs/security.md.
import { spawn, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { BoundedText } from "../../workers/bounded-text.ts";
import {
  encodeFrame,
  FrameReader,
  RUNNER_FRAME_JSON_LIMIT,
  type FrameLimits,
  type FrameMessage,
} from "../../workers/frames.ts";
import type { BootMessage, PyodideAssets } from "../../workers/protocol.ts";
import { inheritableDescriptors } from "./descriptors.ts";
import type { RunnerRole, RunnerWorkerFactory, RunnerWorkerHandle } from "./worker-handle.ts";
import type { RunnerLaunch } from "./runner-launch.ts";
import { privateSnapshotBoot, type SnapshotFiles } from "./node-snapshot-file.ts";
import { runnerSpawnPlan, type RunnerSpawnPlan } from "./runner-plan.ts";

/** What a runner may send in one frame: its replies are bounded far below 1 MiB (runner-jobs.ts);
 *  only the snapshot maker sends raw bytes (the ≈ 31 MB snapshot). Anything more kills the runner,
 *  decided from the frame's header before it is buffered. */
const FRAME_LIMITS: Record<RunnerRole, FrameLimits> = {
  job: { json: RUNNER_FRAME_JSON_LIMIT, bytes: 0 },
  snapshot: { json: RUNNER_FRAME_JSON_LIMIT, bytes: 256 * 1024 * 1024 },
};
/** Output a runner writes to its fd 1/2 that is kept (the pool bounds the job's stderr again). */
const OUTPUT_LIMIT = 65_536;
const EXIT_TAIL = 4096;

// ── the runners of this process, ended with it ──────────────────────────────────────────────
//
// While any runner process lives: a SIGUSR1 listener keeps this process's inspector closed (by
// default Node opens it on 127.0.0.1:9229 when it receives SIGUSR1, from any process of the user;
// runners cannot signal, this also covers anything else on the machine); every runner is SIGKILLed
// when this process exits; and SIGINT, SIGTERM or SIGHUP that nobody else handles kill every runner,
// then end this process as the signal would have. A process that is killed outright (SIGKILL)
// cannot do this: there the kernel ends the runners (runner-launch.ts, parent-death signal).
const live = new Set<RunnerProcess>();
const ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const ignoreSigusr1 = (): void => undefined;
const killAll = (): void => {
  for (const runner of live) runner.terminate();
};
const onEndingSignal = (signal: NodeJS.Signals): void => {
  // Someone else listens (e.g. the interactive chat's Ctrl-C, which stops its turn): theirs to
  // decide; the exit hook still kills the runners if they end the process.
  if (process.listenerCount(signal) > 1) return;
  killAll();
  removeProcessHooks();
  process.kill(process.pid, signal);
};

function addProcessHooks(): void {
  process.on("SIGUSR1", ignoreSigusr1);
  process.on("exit", killAll);
  for (const s of ENDING_SIGNALS) process.on(s, onEndingSignal);
}

function removeProcessHooks(): void {
  process.off("SIGUSR1", ignoreSigusr1);
  process.off("exit", killAll);
  for (const s of ENDING_SIGNALS) process.off(s, onEndingSignal);
}

function track(runner: RunnerProcess): void {
  if (live.size === 0) addProcessHooks();
  live.add(runner);
}

function untrack(runner: RunnerProcess): void {
  if (live.delete(runner) && live.size === 0) removeProcessHooks();
}

/** The process adapter behind createNodeRunnerHost. `cacheFiles`: the disk cache's snapshot files
 *  (node-snapshot.ts), which the pool then hands over by reference: each is copied into this
 *  process's private folder (node-snapshot-file.ts), and runners check its sha256 themselves. */
export function nodeProcessFactory(
  indexURL: string,
  cacheFiles?: string,
  plan = runnerSpawnPlan(indexURL),
  onLaunch?: LaunchListener,
): RunnerWorkerFactory {
  return {
    pyodideAssets: (): PyodideAssets => ({ kind: "indexURL", indexURL }),
    warmsUp: true, // each process compiles Pyodide's wasm for itself
    readsSnapshotFiles: cacheFiles !== undefined,
    spawn: (role = "job") => localRunnerProcess(plan, role, onLaunch),
  };
}

/** Told how each runner is started (the command announces a weaker boundary: launchNotice). */
export type LaunchListener = (launch: Pick<RunnerLaunch, "network" | "parentDeath" | "reason">) => void;

/** A runner process started by this process now (its script may still be bundling). */
export function localRunnerProcess(
  plan: RunnerSpawnPlan,
  role: RunnerRole = "job",
  onLaunch?: LaunchListener,
): RunnerWorkerHandle {
  return new RunnerProcess(
    async (events, cancelled) => {
      const [text, launch] = await plan.ready;
      if (cancelled()) throw new Error("ended before it started");
      onLaunch?.(launch);
      return spawnRunnerChild(plan, text, launch, events);
    },
    FRAME_LIMITS[role],
    plan.snapshotFiles,
  );
}

/** A runner started elsewhere and already booted (the keeper's, keeper-client.ts): the pool must
 *  not send it a boot message; its first frame is its `ready`. */
export function linkedRunnerProcess(open: (events: RunnerLinkEvents) => RunnerLink): RunnerWorkerHandle {
  return new RunnerProcess(async (events) => open(events), FRAME_LIMITS.job, undefined);
}

/** What a started runner's channels deliver: fd 3's bytes (the protocol's frames), fd 1/2's text,
 *  and its end (called at least once). */
export interface RunnerLinkEvents {
  data(chunk: Uint8Array): void;
  output(text: string): void;
  close(reason: string): void;
}

/** A started runner's channels, from the side that talks to it. */
export interface RunnerLink {
  /** One frame's chunks, written together. */
  write(chunks: Uint8Array[]): void;
  kill(): void;
}

type RunnerChannel = Readable & { write(chunk: Uint8Array): boolean; cork(): void; uncork(): void; destroy(): void };

/** Start one runner process: `node <flags> -e <script> <inherited fds>`, an empty environment, its
 *  protocol on fd 3, fd 1/2 read as text. */
export function spawnRunnerChild(
  plan: Pick<RunnerSpawnPlan, "args" | "cwd">,
  text: string,
  launch: RunnerLaunch,
  events: RunnerLinkEvents,
): RunnerLink {
  // The descriptors this process would pass on: the child closes them before anything else.
  const inherited = inheritableDescriptors().join(",");
  const [command, ...prefix] = [...launch.prefix, process.execPath];
  const child: ChildProcess = spawn(command!, [...prefix, ...plan.args, text, inherited], {
    cwd: plan.cwd,
    env: {}, // tool code sees no environment variable of the host, in process.env or /proc/self/environ
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    windowsHide: true,
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => events.output(chunk));
  }
  const channel = child.stdio[3] as RunnerChannel;
  channel.on("data", (chunk: Buffer) => events.data(chunk));
  channel.on("error", () => undefined); // EPIPE after the child died; its exit is reported below
  child.on("error", (err) => events.close(`runner process error: ${err.message}`));
  child.on("close", (code, signal) =>
    events.close(signal ? `runner process killed by ${signal}` : `runner process exited with code ${code}`),
  );
  return {
    // A frame's chunks in one system call (corked: one writev): the runner reads the whole frame
    // at once instead of waking up for the header, the JSON and the bytes one by one.
    write(chunks) {
      channel.cork();
      for (const chunk of chunks) channel.write(chunk);
      channel.uncork();
    },
    kill() {
      child.kill("SIGKILL");
      channel.destroy();
    },
  };
}

/** One runner process, as the pool sees it (RunnerWorkerHandle), over its link. */
class RunnerProcess implements RunnerWorkerHandle {
  private link: RunnerLink | undefined;
  /** Frames posted before the link is open (the runner script is still being bundled). */
  private queued: Uint8Array[][] = [];
  /** Set once a message waited for its snapshot file: later messages are sent after it, in order. */
  private outbox: Promise<void> | undefined;
  private messageHandler: ((msg: unknown) => void) | undefined;
  private exitHandler: ((reason: string) => void) | undefined;
  private exited = false;
  /** A `done` waiting one event-loop turn for the output written before it (receive). */
  private pendingDone: FrameMessage | undefined;
  private readonly output = new BoundedText(OUTPUT_LIMIT);
  private tail = "";

  constructor(
    open: (events: RunnerLinkEvents, cancelled: () => boolean) => Promise<RunnerLink>,
    limits: FrameLimits,
    private readonly snapshotFiles: SnapshotFiles | undefined,
  ) {
    track(this);
    const reader = new FrameReader(limits);
    const events: RunnerLinkEvents = {
      data: (chunk) => {
        if (this.exited) return; // its first message decided the job: the rest is not read
        let messages: FrameMessage[];
        try {
          messages = reader.push(chunk);
        } catch (err) {
          this.exit(`protocol violation: ${err instanceof Error ? err.message : String(err)}`);
          return this.link?.kill();
        }
        for (const msg of messages) this.receive(msg);
      },
      output: (chunk) => {
        this.output.append(chunk);
        this.tail = (this.tail + chunk).slice(-EXIT_TAIL);
      },
      close: (reason) => this.exit(reason),
    };
    open(events, () => this.exited).then(
      (link) => {
        this.link = link;
        if (this.exited) return link.kill();
        for (const chunks of this.queued) link.write(chunks);
        this.queued = [];
      },
      (err: unknown) =>
        this.exit(`the runner could not be started: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  private receive(msg: FrameMessage): void {
    if (this.exited || this.pendingDone) return;
    if (msg.type === "ready") this.output.clear(); // boot chatter is not the job's output
    if (msg.type !== "done") return this.messageHandler?.(msg);
    // Output the tool wrote to fd 1/2 before its reply joins the reply's stderr. It was written
    // before the reply, so it is readable now; one turn of the event loop lets it be read. The
    // runner ends itself right after its reply: exit() delivers a done still waiting here first.
    this.pendingDone = msg;
    setImmediate(() => this.deliverDone());
  }

  private deliverDone(): void {
    const msg = this.pendingDone;
    if (!msg || this.exited) return;
    this.pendingDone = undefined;
    const printed = this.output.text;
    this.output.clear();
    if (printed && (msg.stderr === undefined || typeof msg.stderr === "string"))
      msg.stderr = `${msg.stderr ?? ""}${printed}`;
    this.messageHandler?.(msg);
  }

  private exit(reason: string): void {
    this.deliverDone();
    if (this.exited) return;
    this.exited = true;
    untrack(this);
    this.exitHandler?.(this.tail ? `${reason}; runner output: ${this.tail}` : reason);
  }

  post(msg: Parameters<RunnerWorkerHandle["post"]>[0]): void {
    if (this.exited) return;
    const frame = this.frame(msg);
    if (!(frame instanceof Promise) && !this.outbox) return this.send(frame);
    this.outbox = (this.outbox ?? Promise.resolve())
      .then(() => frame)
      .then(
        (chunks) => this.send(chunks),
        (err: unknown) =>
          this.exit(`the runner's message could not be sent: ${err instanceof Error ? err.message : String(err)}`),
      );
  }

  /** A boot's snapshot goes by one of this process's private files when it has them
   *  (node-snapshot-file.ts: bytes placed, the disk cache's file copied), else inline. */
  private frame(msg: Parameters<RunnerWorkerHandle["post"]>[0]): Uint8Array[] | Promise<Uint8Array[]> {
    const boot = msg as BootMessage;
    if (boot.type !== "boot" || !this.snapshotFiles || (!(boot.snapshot instanceof Uint8Array) && !boot.snapshotFile))
      return encodeFrame(msg);
    return privateSnapshotBoot(this.snapshotFiles, boot).then((sent) => encodeFrame(sent));
  }

  private send(chunks: Uint8Array[]): void {
    if (this.exited) return;
    if (!this.link) this.queued.push(chunks);
    else this.link.write(chunks);
  }

  onMessage(handler: (msg: unknown) => void): void {
    this.messageHandler = handler;
  }

  onExit(handler: (reason: string) => void): void {
    this.exitHandler = handler;
  }

  /** The pool ends this runner: no exit is reported for it. */
  terminate(): void {
    this.exited = true;
    this.pendingDone = undefined;
    untrack(this);
    this.kill();
  }

  private kill(): void {
    this.link?.kill();
  }
}

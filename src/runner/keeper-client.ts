// A one-shot command's runners, taken from the runner keeper when one is running (keeper.ts): a
// process that outlives commands and holds runner processes already booted from the memory
// snapshot, each started exactly as this command would start it and given to one command, for one
// job, then killed. A runner is still fresh for every job; the command only skips its boot.
// Without a keeper (none running, its token unreadable, a different boot, all its runners taken)
// the command starts its own runner at once, as without this file, and when it closes it starts
// a keeper for the next command. docs/cli.md says when, and what it costs.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import type { BootMessage, HostToWorker } from "../../workers/protocol.ts";
import {
  RECORD,
  RECORD_CHUNK,
  RecordReader,
  encodeChunked,
  jsonRecord,
  keeperKey,
  recordText,
  type KeeperAnswer,
  type KeeperHello,
  type KeeperPaths,
  type KeeperSpec,
  type KeeperStatus,
  type WireRecord,
} from "./keeper-wire.ts";
import {
  linkedRunnerProcess,
  localRunnerProcess,
  nodeProcessFactory,
  type LaunchListener,
  type RunnerLinkEvents,
} from "./node-process.ts";
import { runnerScriptSha256, runnerSpawnPlan, type RunnerSpawnPlan } from "./runner-plan.ts";
import type { RunnerWorkerFactory, RunnerWorkerHandle } from "./worker-handle.ts";

const EDGE_BIN = fileURLToPath(new URL("../../bin/edge.cjs", import.meta.url));
/** How long a command waits for the keeper's answer (it may be finishing a runner's boot) before it
 *  starts its own runner: a keeper that answers later is not waited for. */
const ANSWER_TIMEOUT_MS = 5_000;
/** What the keeper may send in one record: a runner's fd 3 and fd 1/2 arrive as it read them. */
const CLIENT_LIMIT = (type: number): number => (type === RECORD.HELLO ? 64 * 1024 : RECORD_CHUNK);

/** The keeper a command's runners come from, and whether one must be started when it closes. */
export interface KeeperEndpoint {
  readonly paths: KeeperPaths;
  /** The spec of a boot this command's runners were sent (the keeper to start boots the same). */
  spec?: KeeperSpec;
  /** No keeper answered (or it refused a runner this command wanted): start one at close. */
  missing: boolean;
  /** Told how each runner, the keeper's or this process's own, was started. */
  onLaunch?: LaunchListener;
}

/** The factory of a one-shot command: job runners come from the keeper when it has them. */
export function keptRunnerFactory(
  indexURL: string,
  cacheFiles: string | undefined,
  endpoint: KeeperEndpoint,
): RunnerWorkerFactory {
  const plan = runnerSpawnPlan(indexURL);
  const base = nodeProcessFactory(indexURL, cacheFiles, plan, endpoint.onLaunch);
  return {
    ...base,
    spawn: (role = "job") => (role === "job" ? new KeptRunner(endpoint, plan, indexURL, cacheFiles) : base.spawn(role)),
  };
}

/** Start a keeper in the background for the next commands (detached: it outlives this one), with
 *  the spec this command booted its runners with. Nothing is reported: without a keeper, commands
 *  work as before. */
export function startKeeper(endpoint: KeeperEndpoint): void {
  if (!endpoint.missing || !endpoint.spec?.boot.snapshotFile) return; // nothing to boot fast from yet
  try {
    const tmp = `${endpoint.paths.spec}.${randomBytes(6).toString("hex")}`;
    writeFileSync(tmp, JSON.stringify(endpoint.spec), { mode: 0o600, flag: "wx" });
    renameSync(tmp, endpoint.paths.spec);
    const child = spawn(process.execPath, [EDGE_BIN, "__runner-keeper", endpoint.paths.socket], {
      detached: true,
      stdio: "ignore",
      env: process.env,
    });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // a keeper that cannot be started: the next command starts its own runners again
  }
}

/** A job runner: the keeper's, else one of this process's own (started as soon as it is clear
 *  there is no keeper to ask, so a missing keeper costs nothing). */
class KeptRunner implements RunnerWorkerHandle {
  private inner: RunnerWorkerHandle | undefined;
  private readonly pending: HostToWorker[] = [];
  private boot: BootMessage | undefined;
  private socket: Socket | undefined;
  private reader = new RecordReader(CLIENT_LIMIT);
  private asked = false;
  private token: string | undefined;
  private answerTimer: NodeJS.Timeout | undefined;
  /** The linked runner's events, once it exists; records that arrive before wait in `early`. */
  private events: RunnerLinkEvents | undefined;
  private early: { type: number; payload: Uint8Array }[] = [];
  private exitReason: string | undefined;
  private messageHandler: ((msg: unknown) => void) | undefined;
  private exitHandler: ((reason: string) => void) | undefined;
  private terminated = false;

  constructor(
    private readonly endpoint: KeeperEndpoint,
    private readonly plan: RunnerSpawnPlan,
    private readonly indexURL: string,
    private readonly cacheFiles: string | undefined,
  ) {
    const token = readToken(endpoint.paths);
    if (token === undefined) {
      this.useLocal(true);
      return;
    }
    const socket = connect(endpoint.paths.socket);
    this.socket = socket;
    socket.on("error", () => this.lost());
    socket.on("close", () => this.lost());
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.once("connect", () => this.ask(token));
  }

  post(msg: HostToWorker): void {
    if (msg.type === "boot" && !this.boot) {
      this.boot = msg;
      this.endpoint.spec = this.spec(msg);
      if (this.inner) return this.inner.post(msg);
      if (this.socket?.readyState === "open") this.ask(undefined);
    } else if (this.inner) this.inner.post(msg);
    else this.pending.push(msg);
  }

  private spec(boot: BootMessage): KeeperSpec {
    const { warmUp: _warmUp, ...rest } = boot;
    return { boot: rest, indexURL: this.indexURL, ...(this.cacheFiles ? { cacheFiles: this.cacheFiles } : {}) };
  }

  /** The hello, once connected and the boot is known. */
  private ask(token: string | undefined): void {
    if (token !== undefined) this.token = token;
    if (this.asked || !this.boot || this.token === undefined || !this.socket) return;
    this.asked = true;
    const spec = this.endpoint.spec!;
    void runnerScriptSha256().then(
      (sha) => {
        if (this.inner || !this.socket) return;
        for (const c of jsonRecord(RECORD.HELLO, { token: this.token, key: keeperKey(spec, sha) }))
          this.socket.write(c);
        this.answerTimer = setTimeout(() => this.useLocal(false), ANSWER_TIMEOUT_MS);
      },
      () => this.useLocal(false),
    );
  }

  private receive(chunk: Buffer): void {
    let records: WireRecord[];
    try {
      records = this.reader.push(chunk);
    } catch {
      return this.lost();
    }
    for (const record of records) {
      if (this.inner === undefined && record.type === RECORD.HELLO)
        this.answered(JSON.parse(recordText(record.payload)) as KeeperAnswer);
      else if (this.events) this.deliver(record);
      else this.early.push(record);
    }
  }

  private answered(answer: KeeperAnswer): void {
    clearTimeout(this.answerTimer);
    if (!answer.ok) {
      // A keeper for another boot, or one with no runner left: ours is started here. A keeper that
      // refused the token or found its runners stale is replaced when this command closes.
      if (answer.reason !== "busy") this.endpoint.missing = true;
      return this.useLocal(false);
    }
    if ("launch" in answer && answer.launch) this.endpoint.onLaunch?.(answer.launch);
    const socket = this.socket!;
    this.inner = linkedRunnerProcess((events) => {
      this.events = events;
      for (const record of this.early.splice(0)) this.deliver(record);
      return {
        write: (chunks) => {
          socket.cork();
          for (const c of chunks) for (const r of encodeChunked(RECORD.PROTOCOL, c)) socket.write(r);
          socket.uncork();
        },
        kill: () => socket.destroy(),
      };
    });
    this.attach(this.inner);
    for (const msg of this.pending.splice(0)) this.inner.post(msg);
  }

  private deliver(record: { type: number; payload: Uint8Array }): void {
    if (record.type === RECORD.PROTOCOL) this.events!.data(record.payload);
    else if (record.type === RECORD.OUTPUT) this.events!.output(recordText(record.payload));
    else if (record.type === RECORD.EXIT) this.exitReason = recordText(record.payload).slice(0, 400);
  }

  /** The connection ended: before an answer, this command starts its own runner; after, the
   *  runner it was given has ended. */
  private lost(): void {
    if (this.events) return this.events.close(this.exitReason ?? "the runner keeper closed the runner's connection");
    if (!this.inner) this.useLocal(!this.asked);
  }

  /** This process's own runner, sent what the keeper's would have been spared. */
  private useLocal(missing: boolean): void {
    if (this.inner || this.terminated) return;
    clearTimeout(this.answerTimer);
    if (missing) this.endpoint.missing = true;
    this.socket?.destroy();
    this.socket = undefined;
    this.inner = localRunnerProcess(this.plan, "job", this.endpoint.onLaunch);
    this.attach(this.inner);
    if (this.boot) this.inner.post(this.boot);
    for (const msg of this.pending.splice(0)) this.inner.post(msg);
  }

  private attach(inner: RunnerWorkerHandle): void {
    if (this.messageHandler) inner.onMessage(this.messageHandler);
    if (this.exitHandler) inner.onExit(this.exitHandler);
  }

  onMessage(handler: (msg: unknown) => void): void {
    this.messageHandler = handler;
    this.inner?.onMessage(handler);
  }

  onExit(handler: (reason: string) => void): void {
    this.exitHandler = handler;
    this.inner?.onExit(handler);
  }

  terminate(): void {
    this.terminated = true;
    clearTimeout(this.answerTimer);
    this.inner?.terminate();
    this.socket?.destroy();
  }
}

/** The keeper's numbers (its pid, runners served and ready, failed boots), or undefined when no
 *  keeper answers at `paths` with the token there: for `npm run bench:cli` and the tests. */
export async function keeperStatus(paths: KeeperPaths): Promise<KeeperStatus | undefined> {
  const token = readToken(paths);
  const answer = token === undefined ? undefined : await askKeeper(paths.socket, { token, key: "", status: true });
  return answer?.ok ? answer.status : undefined;
}

/** Send one hello and read the keeper's answer (undefined: no keeper, or no answer). */
export function askKeeper(socketPath: string, hello: KeeperHello): Promise<KeeperAnswer | undefined> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const reader = new RecordReader(CLIENT_LIMIT);
    const done = (answer: KeeperAnswer | undefined): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.on("error", () => done(undefined));
    socket.on("close", () => done(undefined));
    socket.once("connect", () => {
      for (const c of jsonRecord(RECORD.HELLO, hello)) socket.write(c);
    });
    socket.on("data", (chunk: Buffer) => {
      try {
        const [answer] = reader.push(chunk);
        if (answer) done(JSON.parse(recordText(answer.payload)) as KeeperAnswer);
      } catch {
        done(undefined);
      }
    });
  });
}

/** The keeper's token, or undefined when there is none to read. */
function readToken(paths: KeeperPaths): string | undefined {
  try {
    return readFileSync(paths.token, "utf8").trim();
  } catch {
    return undefined;
  }
}

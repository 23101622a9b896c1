// The runner keeper: `edge __runner-keeper SOCKET`, started in the background by a one-shot command
// (keeper-client.ts). It holds SPARES runner processes booted from the memory snapshot, each
// started as the command that started the keeper would start it (runnerSpawnPlan, the spec's boot
// message, the same runner script: keeperKey), and gives each to one command that presents its
// token, for one job. When that command's connection closes, the runner is killed and a new one
// boots. The keeper never runs tool code itself and never reads a runner's frames after its
// `ready`: the command does, with its own limits, as from a runner of its own. It runs no command
// and no code of a command: it only holds runners.
//
// It ends after EDGE_RUNNER_KEEPER_IDLE_MS (default 10 minutes) without a command, when a command
// wants runners booted otherwise (an edited runner, a new snapshot: that command starts the next
// keeper), after MAX_FAILED_BOOTS boots in a row fail, when its socket file is removed or replaced,
// and on SIGTERM/SIGINT/SIGHUP; its runners end with it (and by the kernel's parent-death signal).
import { randomBytes, timingSafeEqual } from "node:crypto";
import { lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { encodeFrame, FrameReader, RUNNER_FRAME_JSON_LIMIT } from "../../workers/frames.ts";
import { parseWorkerToHost } from "../../workers/protocol.ts";
import {
  RECORD,
  RECORD_CHUNK,
  RecordReader,
  encodeChunked,
  jsonRecord,
  keeperKey,
  keeperPathsOf,
  recordText,
  type KeeperAnswer,
  type KeeperHello,
  type KeeperPaths,
  type KeeperSpec,
} from "./keeper-wire.ts";
import { spawnRunnerChild, type RunnerLink } from "./node-process.ts";
import { privateSnapshotBoot } from "./node-snapshot-file.ts";
import { runnerScriptSha256, runnerSpawnPlan, type RunnerSpawnPlan } from "./runner-plan.ts";
import type { RunnerLaunch } from "./runner-launch.ts";

const SPARES = 2; // `edge tools call` takes two when it must discover (src/runner/discovery-cache.ts): the discovery's and the call's
const DEFAULT_IDLE_MS = 10 * 60_000;
const BOOT_TIMEOUT_MS = 60_000;
const HELLO_TIMEOUT_MS = 10_000;
const WATCH_MS = 2_000;
const MAX_FAILED_BOOTS = 3;
/** A hello is a token and a key; after it, PROTOCOL records of a job's frames. */
const SERVER_LIMIT = (type: number): number => (type === RECORD.HELLO ? 256 * 1024 : RECORD_CHUNK);

/** One runner process of the keeper, from its start to its end. */
class Spare {
  state: "booting" | "ready" | "taken" | "dead" = "booting";
  readonly ready: Promise<boolean>;
  private settle!: (ok: boolean) => void;
  private readyFrame: Uint8Array[] | undefined;
  private client: Socket | undefined;
  private readonly link: RunnerLink;
  private readonly reader = new FrameReader({ json: RUNNER_FRAME_JSON_LIMIT, bytes: 0 });
  private readonly timer: NodeJS.Timeout;

  constructor(
    plan: RunnerSpawnPlan,
    script: string,
    readonly launch: RunnerLaunch,
    boot: KeeperSpec["boot"],
    onEnd: (spare: Spare, booted: boolean) => void,
  ) {
    this.ready = new Promise((resolve) => (this.settle = resolve));
    this.link = spawnRunnerChild(plan, script, launch, {
      data: (chunk) => this.data(chunk),
      // Boot chatter is dropped; a job's output goes to its command, which bounds it.
      output: (text) => this.client?.write(Buffer.concat(encodeChunked(RECORD.OUTPUT, Buffer.from(text)))),
      close: (reason) => {
        if (this.state === "dead") return;
        const booted = this.state !== "booting";
        this.state = "dead";
        clearTimeout(this.timer);
        this.settle(false);
        const client = this.client;
        // After every frame read before it (forwarded one turn later, see data).
        if (client) setImmediate(() => client.end(Buffer.concat(encodeChunked(RECORD.EXIT, Buffer.from(reason)))));
        onEnd(this, booted);
      },
    });
    this.link.write(encodeFrame({ ...boot, warmUp: true }));
    this.timer = setTimeout(() => this.kill(), BOOT_TIMEOUT_MS);
  }

  private data(chunk: Uint8Array): void {
    if (this.state === "taken") {
      // One turn later, so the output the runner wrote before a frame reaches the command first.
      const client = this.client!;
      setImmediate(() => client.write(Buffer.concat(encodeChunked(RECORD.PROTOCOL, chunk))));
      return;
    }
    if (this.state !== "booting") return this.kill(); // an idle runner has nothing to say
    try {
      const messages = this.reader.push(chunk);
      const parsed = messages.length === 1 ? parseWorkerToHost(messages[0]) : undefined;
      if (messages.length === 0) return;
      if (!parsed?.ok || parsed.message.type !== "ready") return this.kill();
      this.readyFrame = encodeFrame(messages[0]!);
      this.state = "ready";
      clearTimeout(this.timer);
      this.settle(true);
    } catch {
      this.kill();
    }
  }

  hurry(): void {
    if (this.state === "booting") this.link.write(encodeFrame({ type: "hurry" }));
  }

  /** Give this booted runner to a command: its `ready` first, then its channels both ways. */
  take(client: Socket, reader: RecordReader, answer: Uint8Array[]): void {
    this.state = "taken";
    this.client = client;
    client.write(Buffer.concat([...answer, ...this.readyFrame!.flatMap((c) => encodeChunked(RECORD.PROTOCOL, c))]));
    client.on("data", (chunk: Buffer) => {
      try {
        for (const record of reader.push(chunk)) if (record.type === RECORD.PROTOCOL) this.link.write([record.payload]);
      } catch {
        client.destroy();
      }
    });
    client.on("close", () => this.kill());
    client.on("error", () => this.kill());
  }

  kill(): void {
    this.link.kill();
  }
}

function readSpec(file: string): KeeperSpec {
  const text = readFileSync(file, "utf8");
  rmSync(file, { force: true });
  const spec = JSON.parse(text) as KeeperSpec;
  if (spec?.boot?.type !== "boot" || typeof spec.indexURL !== "string")
    throw new Error("the keeper's spec is not a boot");
  return spec;
}

/** Listen on `path` unless a keeper already answers there; a socket file nobody answers is removed. */
function claim(path: string): Promise<{ server: Server; own: number | undefined } | undefined> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once("connect", () => {
      probe.destroy();
      resolve(undefined);
    });
    probe.once("error", () => {
      rmSync(path, { force: true });
      const server = createServer();
      server.once("error", () => resolve(undefined));
      // The socket file this keeper made, as it is now: a keeper started at the same moment may
      // replace it (and its token) a moment later; the later one stays (Keeper's watch).
      server.listen(path, () => resolve({ server, own: inode(path) }));
    });
  });
}

/** The keeper's token beside its socket (0600), replaced atomically. */
function writeToken(paths: KeeperPaths, token: string): void {
  const tmp = `${paths.token}.${randomBytes(6).toString("hex")}`;
  writeFileSync(tmp, token, { mode: 0o600, flag: "wx" });
  renameSync(tmp, paths.token);
}

/** The token the keeper's token file holds now (undefined: none). */
function tokenOnDisk(paths: KeeperPaths): string | undefined {
  try {
    return readFileSync(paths.token, "utf8");
  } catch {
    return undefined;
  }
}

/** Runs the keeper until it ends; resolves with its exit code. */
export async function serveRunnerKeeper(
  socketPath: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (!socketPath?.endsWith(".sock")) return 2;
  const paths = keeperPathsOf(socketPath);
  process.chdir("/");
  process.on("SIGUSR1", () => undefined); // keep the inspector closed (node-process.ts)
  const spec = readSpec(paths.spec);
  const plan = runnerSpawnPlan(spec.indexURL);
  // The cache's snapshot file, copied once into this keeper's private folder for all its runners.
  const [[script, launch], sha, boot] = await Promise.all([
    plan.ready,
    runnerScriptSha256(),
    privateSnapshotBoot(plan.snapshotFiles, spec.boot),
  ]);
  const claimed = await claim(paths.socket);
  if (!claimed) return 0; // another keeper serves this socket
  const token = randomBytes(32).toString("hex");
  writeToken(paths, token);
  const idleMs = Number(env.EDGE_RUNNER_KEEPER_IDLE_MS) > 0 ? Number(env.EDGE_RUNNER_KEEPER_IDLE_MS) : DEFAULT_IDLE_MS;
  const keeper = new Keeper(
    claimed.server,
    claimed.own,
    paths,
    token,
    keeperKey(spec, sha),
    idleMs,
    () => new Spare(plan, script, launch, boot, (s, booted) => keeper.ended(s, booted)),
  );
  return keeper.done;
}

/** The keeper's runners, from its socket's claim to its end. */
class Keeper {
  readonly done: Promise<number>;
  private finish!: (code: number) => void;
  /** Runners not yet given to a command; `live` also holds the ones that were. */
  private readonly spares: Spare[] = [];
  private readonly live = new Set<Spare>();
  private closed = false;
  private clients = 0;
  private served = 0;
  private failedInRow = 0;
  private bootsFailed = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly watch: NodeJS.Timeout;

  constructor(
    private readonly server: Server,
    /** The inode of the socket file this keeper made. */
    private readonly own: number | undefined,
    private readonly paths: KeeperPaths,
    private readonly token: string,
    private readonly key: string,
    private readonly idleMs: number,
    private readonly spawnSpare: () => Spare,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
    server.on("connection", (socket) => this.connected(socket));
    // Its socket file removed or replaced: it ends. Its socket still its own but the token file
    // another's (two keepers started at once for one socket; the other has ended): its token is
    // written again, or no command could use it. Checked now, then every WATCH_MS.
    const check = (): void => {
      if (inode(paths.socket) !== this.own) this.end();
      else if (tokenOnDisk(paths) !== token) {
        try {
          writeToken(paths, token);
        } catch {
          this.end();
        }
      }
    };
    this.watch = setInterval(check, WATCH_MS);
    setImmediate(check);
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(signal, () => this.end());
    process.once("exit", () => {
      for (const s of this.live) s.kill();
    });
    this.idle();
    this.refill();
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    clearInterval(this.watch);
    this.server.close();
    this.spares.length = 0;
    for (const s of this.live) s.kill();
    if (inode(this.paths.socket) === this.own) rmSync(this.paths.socket, { force: true });
    if (tokenOnDisk(this.paths) === this.token) rmSync(this.paths.token, { force: true });
    this.finish(0);
  }

  private idle(): void {
    clearTimeout(this.idleTimer);
    if (this.clients === 0) this.idleTimer = setTimeout(() => this.end(), this.idleMs);
  }

  /** Boots one runner at a time (two boots at once would share two cores with the command), and
   *  none while a command is connected: a boot next to a job roughly doubles its time on two cores,
   *  and a command the keeper runs shares its event loop. The last one to close calls this again. */
  private refill(): void {
    if (
      this.closed ||
      this.clients > 0 ||
      this.spares.some((s) => s.state === "booting") ||
      this.spares.length >= SPARES
    )
      return;
    const spare = this.spawnSpare();
    this.spares.push(spare);
    this.live.add(spare);
    void spare.ready.then((ok) => {
      if (ok) this.failedInRow = 0;
      this.refill();
    });
  }

  /** A runner's end: a boot that failed counts towards MAX_FAILED_BOOTS. */
  ended(spare: Spare, booted: boolean): void {
    this.live.delete(spare);
    const i = this.spares.indexOf(spare);
    if (i >= 0) this.spares.splice(i, 1);
    if (!booted) {
      this.bootsFailed++;
      if (++this.failedInRow >= MAX_FAILED_BOOTS) return this.end();
    }
    setImmediate(() => this.refill());
  }

  private connected(socket: Socket): void {
    this.clients++;
    clearTimeout(this.idleTimer);
    socket.on("close", () => {
      this.clients--;
      this.idle();
      setTimeout(() => this.refill(), 0);
    });
    socket.on("error", () => undefined);
    const reader = new RecordReader(SERVER_LIMIT);
    const helloTimer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      let hello: KeeperHello;
      try {
        const [first] = reader.push(chunk);
        if (!first) return;
        if (first.type !== RECORD.HELLO) throw new Error("not a hello");
        hello = JSON.parse(recordText(first.payload)) as KeeperHello;
      } catch {
        return void socket.destroy();
      }
      clearTimeout(helloTimer);
      socket.off("data", onData);
      void this.serve(socket, reader, hello);
    };
    socket.on("data", onData);
  }

  private async serve(socket: Socket, reader: RecordReader, hello: KeeperHello): Promise<void> {
    const answer = (a: KeeperAnswer): void => void socket.end(Buffer.concat(jsonRecord(RECORD.HELLO, a)));
    if (!sameToken(hello.token, this.token)) return answer({ ok: false, reason: "token" });
    if (hello.status) {
      const sparesReady = this.spares.filter((s) => s.state === "ready").length;
      return answer({
        ok: true,
        status: { pid: process.pid, served: this.served, sparesReady, bootsFailed: this.bootsFailed },
      });
    }
    if (hello.key !== this.key) {
      answer({ ok: false, reason: "stale" });
      return this.end(); // the command starts a keeper for its own runners when it closes
    }
    const spare = this.spares.find((s) => s.state === "ready") ?? this.spares.find((s) => s.state === "booting");
    if (!spare) return answer({ ok: false, reason: "busy" });
    this.spares.splice(this.spares.indexOf(spare), 1);
    spare.hurry();
    if (!(await spare.ready) || socket.destroyed) {
      spare.kill();
      return answer({ ok: false, reason: "failed" });
    }
    this.served++;
    const { network, parentDeath, reason } = spare.launch;
    spare.take(socket, reader, jsonRecord(RECORD.HELLO, { ok: true, launch: { network, parentDeath, reason } }));
  }
}

function inode(path: string): number | undefined {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
}

function sameToken(given: unknown, token: string): boolean {
  if (typeof given !== "string" || given.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(token));
}

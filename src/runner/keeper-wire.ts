// What the runner keeper (keeper.ts) and a command that takes one of its runners (keeper-client.ts)
// say on the keeper's Unix socket, and where that socket is. Records both ways: a 1-byte type, a
// 4-byte length, the payload. The command's first record is its hello (the keeper's token and the
// boot it wants), the keeper's first is its answer; then the runner's fd 3 travels as PROTOCOL
// records both ways (the frames inside are the runner protocol's, read and bounded by the command
// as from a runner of its own), its fd 1/2 as OUTPUT, and its end as EXIT (docs/cli.md).
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { canonicalJson } from "../contract/hash.ts";
import type { BootMessage } from "../../workers/protocol.ts";
import { processLaunchTools, type RunnerLaunch } from "./runner-launch.ts";

export const RECORD = { HELLO: 0, PROTOCOL: 1, OUTPUT: 2, EXIT: 3 } as const;
const HEAD = 5;
/** A PROTOCOL or OUTPUT record's payload is at most this; longer writes are split. */
export const RECORD_CHUNK = 1024 * 1024;

export interface WireRecord {
  type: number;
  payload: Uint8Array;
}

/** One record (header + payload, two chunks: the payload is not copied). */
function encodeRecord(type: number, payload: Uint8Array): Uint8Array[] {
  const head = new Uint8Array(HEAD);
  head[0] = type;
  new DataView(head.buffer).setUint32(1, payload.byteLength);
  return [head, payload];
}

/** `bytes` as PROTOCOL or OUTPUT records of at most RECORD_CHUNK bytes each. */
export function encodeChunked(type: number, bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += RECORD_CHUNK)
    out.push(...encodeRecord(type, bytes.subarray(at, at + RECORD_CHUNK)));
  return out;
}

/** Splits a byte stream into records; a record longer than its type's limit throws (the caller
 *  closes the connection): nothing unbounded is buffered. */
export class RecordReader {
  private chunks: Uint8Array[] = [];
  private size = 0;

  constructor(private readonly limit: (type: number) => number) {}

  push(chunk: Uint8Array): WireRecord[] {
    this.chunks.push(chunk);
    this.size += chunk.byteLength;
    const out: WireRecord[] = [];
    while (this.size >= HEAD) {
      const head = this.take(HEAD, false);
      const type = head[0]!;
      const length = new DataView(head.buffer, head.byteOffset, HEAD).getUint32(1);
      if (length > this.limit(type))
        throw new Error(`a keeper record of type ${type} and ${length} bytes is over its limit`);
      if (this.size < HEAD + length) break;
      out.push({ type, payload: this.take(HEAD + length, true).subarray(HEAD) });
    }
    return out;
  }

  /** The first n buffered bytes (copied only when they span chunks), removed when `consume`. */
  private take(n: number, consume: boolean): Uint8Array {
    const first = this.chunks[0]!;
    let bytes: Uint8Array;
    if (first.byteLength >= n) bytes = first.subarray(0, n);
    else {
      bytes = new Uint8Array(n);
      let at = 0;
      for (const c of this.chunks) {
        const part = c.subarray(0, n - at);
        bytes.set(part, at);
        at += part.byteLength;
        if (at === n) break;
      }
    }
    if (consume) {
      let left = n;
      while (left > 0) {
        const c = this.chunks[0]!;
        if (c.byteLength <= left) {
          this.chunks.shift();
          left -= c.byteLength;
        } else {
          this.chunks[0] = c.subarray(left);
          left = 0;
        }
      }
      this.size -= n;
    }
    return bytes;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const jsonRecord = (type: number, value: unknown): Uint8Array[] =>
  encodeRecord(type, encoder.encode(JSON.stringify(value)));
export const recordText = (payload: Uint8Array): string => decoder.decode(payload);

/** What a keeper's runners are: the boot they were sent (its `warmUp` aside) and how they are
 *  started. Two specs with one key start and boot identical runners. */
export interface KeeperSpec {
  boot: Omit<BootMessage, "warmUp">;
  indexURL: string;
  cacheFiles?: string;
}

/** The spec's key, with the runner script, the node that runs it, the launch tools it is started
 *  through (runner-launch.ts) and the network namespace it starts in: a keeper serves a command
 *  only a runner that command would have started itself, never one with a weaker boundary because
 *  another PATH, or a shell with network where the command has none, started the keeper. */
export function keeperKey(spec: KeeperSpec, scriptSha256: string): string {
  const launch = processLaunchTools();
  return createHash("sha256")
    .update(
      canonicalJson({
        format: "edge-runner-keeper.v3",
        node: process.version,
        execPath: process.execPath,
        script: scriptSha256,
        launch,
        netns: networkNamespace(),
        spec,
      }),
    )
    .digest("hex");
}

/** This process's network namespace ("net:[4026531840]"), or null where there is none to read. */
function networkNamespace(): string | null {
  try {
    return readlinkSync("/proc/self/ns/net");
  } catch {
    return null;
  }
}

/** The command's hello. `status` asks for the keeper's numbers instead of a runner. */
export interface KeeperHello {
  token: string;
  /** keeperKey of the runners the command wants (a keeper holds runners of one key). */
  key: string;
  status?: boolean;
}

export type KeeperAnswer =
  /** A runner: `launch` says how it was started (the command announces a weaker boundary). */
  | { ok: true; status?: undefined; launch?: Pick<RunnerLaunch, "network" | "parentDeath" | "reason"> }
  | { ok: false; reason: "token" | "stale" | "busy" | "failed" }
  | { ok: true; status: KeeperStatus };

export interface KeeperStatus {
  pid: number;
  served: number;
  sparesReady: number;
  bootsFailed: number;
}

/** Where one keeper's files are: `<dir>/keeper-<id>.sock`, `.token` (0600: who may take a
 *  runner) and `.spec` (the spec it starts with, removed once read). */
export interface KeeperPaths {
  socket: string;
  token: string;
  spec: string;
}

/** Edge's private runtime folder: $XDG_RUNTIME_DIR/edge-web, else <tmp>/edge-web-<uid>; made 0700
 *  and used only if it is a real folder of this user that nobody else may enter. Undefined where
 *  that does not hold (or on Windows): commands then start their runners themselves. */
export function keeperDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform === "win32" || typeof process.getuid !== "function") return undefined;
  const runtime = env.XDG_RUNTIME_DIR;
  const dir =
    runtime && isAbsolute(runtime) ? join(runtime, "edge-web") : join(tmpdir(), `edge-web-${process.getuid()}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== process.getuid() || (st.mode & 0o077) !== 0) return undefined;
  } catch {
    return undefined;
  }
  return dir;
}

/** The files of the keeper for runners started from this package, this node and this snapshot
 *  cache (one keeper per data folder and installation). A socket path must fit in 107 bytes. */
export function keeperPaths(dir: string, scope: { packageRoot: string; cacheFiles?: string }): KeeperPaths | undefined {
  const id = fnv1a64(
    canonicalJson({ root: scope.packageRoot, cache: scope.cacheFiles ?? null, node: process.execPath }),
  );
  const socket = join(dir, `keeper-${id}.sock`);
  return Buffer.byteLength(socket) > 100 ? undefined : keeperPathsOf(socket);
}

/** 64-bit FNV-1a of the text's UTF-16 units, 16 hex digits: a name, not a secret (a keeper's token
 *  and key decide who gets what). */
function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) h = ((h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, "0");
}

/** A keeper's files from its socket's path. */
export function keeperPathsOf(socket: string): KeeperPaths {
  const base = socket.replace(/\.sock$/, "");
  return { socket, token: `${base}.token`, spec: `${base}.spec` };
}

/** Whether commands may use (and start) a keeper: on unless EDGE_RUNNER_KEEPER is 0, off or false. */
export function keeperEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !switchedOff(env.EDGE_RUNNER_KEEPER);
}

/** A switch set to 0, off, false or no (any case). */
export function switchedOff(value: string | undefined): boolean {
  return /^(0|off|false|no)$/i.test(value ?? "");
}

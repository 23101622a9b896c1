// The `edge` launcher's first step for `edge tools call|validate|inspect`: ask the runner keeper to
// run the whole command (src/cli/served.ts, docs/cli.md "Commands the keeper runs"), before loading
// any of the CLI. Loaded by bin/edge.cjs, so it loads nothing but Node built-ins (and is CommonJS,
// as that file is: no ES module loader starts for a command the keeper runs).
//
// It finds the keeper the command itself would take its runners from (src/runner/node.ts
// defaultKeeperPaths: the same folder and socket name; a test keeps the two equal), sends the
// command's words, working folder and environment — only into a folder of this user's that nobody
// else may enter, with the keeper's token — and prints what the keeper sends back, in order. It
// resolves with the command's exit code, or with undefined when there is no keeper, the keeper
// declines, or it does not answer in time: the launcher then runs the command itself, and nothing
// of it has run.
"use strict";
const { lstatSync, readFileSync } = require("node:fs");
const { connect } = require("node:net");
const { tmpdir } = require("node:os");
const { isAbsolute, join } = require("node:path");

/** The package's folder as src/runner/node.ts names it (with its trailing separator). */
const PACKAGE_ROOT = join(__dirname, "..", "/");
/** The commands the keeper may run (src/cli/served.ts KEPT). */
const KEPT = new Set(["tools call", "tools validate", "tools inspect"]);
const RECORD = { HELLO: 0, EXIT: 3, GO: 4, STDOUT: 5, STDERR: 6 };
const HEAD = 5;
/** A STDOUT or STDERR record is at most 1 MiB (keeper-wire.ts RECORD_CHUNK), an answer 64 KiB. */
const LIMIT = (type) => (type === RECORD.HELLO ? 64 * 1024 : 1024 * 1024);
/** How long the launcher waits for the keeper's answer before it runs the command itself. */
const ANSWER_TIMEOUT_MS = 5_000;
const OFF = /^(0|off|false|no)$/i;

const LOST = "command_server_lost";
/** ERRORS.command_server_lost (src/contract/errors.ts; a test keeps them equal). */
const COMMAND_SERVER_LOST =
  "The background edge process that was running this command ended before the command finished; run the command again (set EDGE_KEEPER_COMMANDS=0 to run every command in its own process).";

/** The keeper's socket and token for a command run with `env`, or undefined (keeper-wire.ts
 *  keeperDir, keeperPaths, switchedOff; node.ts defaultKeeperPaths). Never creates the folder: no
 *  folder, no keeper. */
function keeperFiles(env = process.env) {
  if (process.platform === "win32" || typeof process.getuid !== "function") return undefined;
  if (OFF.test(env.EDGE_RUNNER_KEEPER ?? "") || OFF.test(env.EDGE_KEEPER_COMMANDS ?? "")) return undefined;
  const runtime = env.XDG_RUNTIME_DIR;
  const dir = runtime && isAbsolute(runtime) ? join(runtime, "edge-web") : join(tmpdir(), `edge-web-${process.getuid()}`);
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== process.getuid() || (st.mode & 0o077) !== 0) return undefined;
  } catch {
    return undefined;
  }
  const cache = join(env.EDGE_DATA_DIR ? join(env.EDGE_DATA_DIR, "cache") : join(PACKAGE_ROOT, "node_modules", ".cache", "edge-web"), "runner-*");
  // canonicalJson of { root, cache, node }: its keys in order, JSON strings.
  const id = fnv1a64(JSON.stringify({ cache, node: process.execPath, root: PACKAGE_ROOT }));
  const socket = join(dir, `keeper-${id}.sock`);
  return Buffer.byteLength(socket) > 100 ? undefined : { socket, token: join(dir, `keeper-${id}.token`) };
}

/** keeper-wire.ts fnv1a64. */
function fnv1a64(text) {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) h = ((h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, "0");
}

function record(type, payload) {
  const head = Buffer.alloc(HEAD);
  head[0] = type;
  head.writeUInt32BE(payload.byteLength, 1);
  return Buffer.concat([head, payload]);
}

/** Records out of a byte stream; a record over its limit throws. */
function recordReader() {
  let buffered = Buffer.alloc(0);
  return (chunk) => {
    buffered = buffered.byteLength ? Buffer.concat([buffered, chunk]) : chunk;
    const out = [];
    while (buffered.byteLength >= HEAD) {
      const type = buffered[0];
      const length = buffered.readUInt32BE(1);
      if (length > LIMIT(type)) throw new Error("a record over its limit");
      if (buffered.byteLength < HEAD + length) break;
      out.push({ type, payload: buffered.subarray(HEAD, HEAD + length) });
      buffered = buffered.subarray(HEAD + length);
    }
    return out;
  };
}

function accepted(payload) {
  try {
    return JSON.parse(payload.toString("utf8")).ok === true;
  } catch {
    return false;
  }
}

/** A reader that stopped reading (`edge … | head -1`) ends the command quietly, as src/cli/main.ts
 *  does for a command that runs in this process. */
function quietOnClosedPipe() {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err) => {
      if (err.code !== "EPIPE") throw err;
      process.exit(process.exitCode ?? 0);
    });
  }
}

/** The command's exit code once the keeper ran it, or undefined when the launcher must run it. */
function runKept(argv) {
  const env = process.env;
  const words = argv[0] === "demo" ? argv.slice(1) : argv;
  const files = KEPT.has(`${words[0]} ${words[1]}`) ? keeperFiles(env) : undefined;
  let token;
  try {
    token = files && readFileSync(files.token, "utf8").trim();
  } catch {
    token = undefined;
  }
  if (!token) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const socket = connect(files.socket);
    const read = recordReader();
    let state = "asking";
    const settle = (code) => {
      clearTimeout(timer);
      state = "settled";
      socket.destroy();
      resolve(code);
    };
    const timer = setTimeout(() => settle(undefined), ANSWER_TIMEOUT_MS);
    socket.on("error", () => undefined);
    socket.on("close", () => {
      if (state === "asking") settle(undefined);
      else if (state === "running") {
        process.stderr.write(`edge: ${LOST}: ${COMMAND_SERVER_LOST}\n`);
        settle(1);
      }
    });
    socket.once("connect", () => {
      const command = { argv, cwd: process.cwd(), env: { ...env }, node: process.version, execPath: process.execPath };
      socket.write(record(RECORD.HELLO, Buffer.from(JSON.stringify({ token, key: "", command }))));
    });
    socket.on("data", (chunk) => {
      let records;
      try {
        records = read(chunk);
      } catch {
        return socket.destroy();
      }
      for (const { type, payload } of records) {
        if (state === "asking") {
          if (type !== RECORD.HELLO || !accepted(payload)) return settle(undefined);
          clearTimeout(timer);
          state = "running";
          quietOnClosedPipe();
          socket.write(record(RECORD.GO, Buffer.alloc(0)));
        } else if (state !== "running") return;
        else if (type === RECORD.STDOUT) process.stdout.write(payload);
        else if (type === RECORD.STDERR) process.stderr.write(payload);
        else if (type === RECORD.EXIT) return settle(Number(payload.toString("utf8")));
      }
    });
  });
}

module.exports = { COMMAND_SERVER_LOST, keeperFiles, runKept };

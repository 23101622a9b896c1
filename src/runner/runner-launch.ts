// How a runner process is started on this machine: the commands its `node` is started through, and
// the operating-system boundaries they add. Each command execs the next, so the runner keeps its
// pid (the host's SIGKILL reaches it) and nothing stays behind.
//
// * `unshare --user --net` (util-linux, Linux): the runner gets its own user namespace, in which it
//   owns nothing of the host (no capability over the host, not even for root; its user is
//   `nobody`), and its own network namespace with only a loopback interface that is down — no TCP,
//   UDP or abstract Unix socket reaches anything, whatever JavaScript the runner finds. Needs no
//   privilege where unprivileged user namespaces are allowed (most distributions; not where
//   kernel.unprivileged_userns_clone=0, or where AppArmor restricts them as Ubuntu 24.04 does for
//   unconfined programs, nor in containers whose seccomp profile refuses unshare). Unix sockets
//   that are files stay reachable: a network namespace does not cover the file system.
// * `setpriv --pdeathsig KILL` (util-linux, Linux): the kernel SIGKILLs the runner when the
//   process that started it dies, however it dies (even SIGKILL, where no handler runs).
//
// Each is probed once per process (a few milliseconds) and used only if it works; otherwise runners
// start without it, `network` / `parentDeath` say so (docs/security.md lists what remains) and the
// command says so on stderr (launchNotice).
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export interface RunnerLaunch {
  /** Commands before `node` (empty: node is started directly). */
  prefix: string[];
  /** "namespace": the runner's own empty network namespace; "host": the machine's network, which
   *  Node's permission model does not restrict below Node 25. */
  network: "namespace" | "host";
  /** The kernel ends the runner when its parent process dies (parent-death signal). */
  parentDeath: boolean;
  /** What is missing and why, for people (empty when both boundaries hold). */
  reason: string;
}

let launch: Promise<RunnerLaunch> | undefined;

/** This machine's runner launch (probed once per process, with the tools launchTools found). */
export function runnerLaunch(): Promise<RunnerLaunch> {
  launch ??= probe();
  return launch;
}

/** The launch commands a PATH offers, before any is tried: what decides a probe's outcome on one
 *  machine. null: none there (and on every platform but Linux). */
export interface LaunchTools {
  unshare: string | null;
  setpriv: string | null;
}

/** The tools of `env`'s PATH (a few access() calls, nothing started). */
function launchToolsOf(env: NodeJS.ProcessEnv): LaunchTools {
  if (process.platform !== "linux") return { unshare: null, setpriv: null };
  return { unshare: onPath("unshare", env) ?? null, setpriv: onPath("setpriv", env) ?? null };
}

let tools: LaunchTools | undefined;

/** This process's launch tools, found once (from its PATH then) and used by its probe. They are
 *  part of a runner keeper's key (keeper-wire.ts): a keeper started from a PATH without util-linux
 *  starts runners without its boundaries, and must never serve a command whose PATH has them. */
export function processLaunchTools(): LaunchTools {
  tools ??= launchToolsOf(process.env);
  return tools;
}

/** The line a command prints when its runners start without a boundary Linux could give them (on
 *  other platforms they never exist: docs/security.md says so once, not every command). */
export function launchNotice(launch: Pick<RunnerLaunch, "network" | "parentDeath" | "reason">): string | undefined {
  if (process.platform !== "linux" || (launch.network === "namespace" && launch.parentDeath)) return undefined;
  const missing = [
    launch.network === "namespace" ? "" : "their own network namespace (tool code can reach the network)",
    launch.parentDeath ? "" : "the parent-death signal",
  ]
    .filter(Boolean)
    .join(" or ");
  return `edge: runners start without ${missing}: ${launch.reason.replace(/[\u0000-\u001f\u007f]/g, " ")}. Put util-linux (unshare, setpriv) on PATH, or see docs/security.md.\n`;
}

/** An executable named `name` on `env`'s PATH. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The prefix starts a program and that program exits 0 (it is asked for its own version). */
function works(prefix: string[], program: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(prefix[0]!, [...prefix.slice(1), program, "--version"], { stdio: "ignore", env: {} });
    child.on("error", () => resolve(false));
    child.on("close", (code) => resolve(code === 0));
  });
}

async function probe(): Promise<RunnerLaunch> {
  if (process.platform !== "linux") {
    return {
      prefix: [],
      network: "host",
      parentDeath: false,
      reason: `no unprivileged network namespace or parent-death signal on ${process.platform}`,
    };
  }
  const { unshare, setpriv } = processLaunchTools();
  const namespace = unshare ? [unshare, "--user", "--net"] : [];
  const parentDeath = setpriv ? [setpriv, "--pdeathsig", "KILL"] : [];
  const [nsWorks, pdWorks] = await Promise.all([
    unshare ? works(namespace, unshare) : false,
    setpriv ? works(parentDeath, setpriv) : false,
  ]);
  const missing: string[] = [];
  if (!nsWorks)
    missing.push(
      unshare
        ? "`unshare --user --net` is refused here (unprivileged user namespaces disabled or restricted)"
        : "no `unshare` (util-linux) on PATH",
    );
  if (!pdWorks) missing.push(setpriv ? "`setpriv --pdeathsig` failed" : "no `setpriv` (util-linux) on PATH");
  return {
    prefix: [...(pdWorks ? parentDeath : []), ...(nsWorks ? namespace : [])],
    network: nsWorks ? "namespace" : "host",
    parentDeath: pdWorks,
    reason: missing.join("; "),
  };
}

// Descriptors a process would pass to every child it starts. libuv (Node's child_process) does
// not close a parent's descriptors in the child; Node opens its own with close-on-exec, but what
// the process itself inherited without it (`edge … 97<secret.txt 99>>out.txt` from a shell) goes on
// to every child, and Node's permission model does not check reads or writes on descriptors.
// Linux tells the flag per descriptor (/proc/self/fdinfo); macOS's libuv starts children with
// POSIX_SPAWN_CLOEXEC_DEFAULT (only the stdio given is inherited), Windows passes only the handles
// it is given; elsewhere this finds nothing.
import { closeSync, readdirSync, readFileSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/** This process's descriptors from 3 up that a child started now would inherit. */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
    } catch {
      // gone meanwhile (the listing's own descriptor)
    }
  }
  return out;
}

/** Close every descriptor this process inherited (from 3 up), but Node's IPC channel if it has
 *  one: for a command line program, which uses none of them. */
export function closeInheritedDescriptors(): void {
  const ipc = Number(process.env.NODE_CHANNEL_FD);
  for (const fd of inheritableDescriptors()) {
    if (fd === ipc) continue;
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
}

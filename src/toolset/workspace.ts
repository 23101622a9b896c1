// What a read_local tool reads: a snapshot of the person's workspace, taken when the call starts,
// sent to its fresh runner inside the job and mounted read-only at /workspace (workers/runner-mounts.ts).
// Environment-neutral: the playground takes it from the IndexedDB VFS, the CLI from --workspace DIR,
// the widget from the files the visitor dropped. Bounded (size and file count) before anything is
// copied, and hashed so a receipt ties a result to the exact data it read.
import { EdgeError } from "../contract/errors.ts";
import { sha256Bytes, sha256Json, type Sha256 } from "../contract/hash.ts";
import type { WorkspaceMount } from "../../workers/protocol.ts";

export type { WorkspaceMount } from "../../workers/protocol.ts";

/** The permission a tool declares to get the workspace (docs/contract.md §1). */
export const READ_LOCAL = "read_local";

export interface WorkspaceMountLimits {
  /** Sum of the mounted files' sizes. */
  maxBytes: number;
  maxFiles: number;
}

/** 16 MiB and 2,000 files: copied into every read_local call's runner (memory and time per call). */
export const DEFAULT_WORKSPACE_MOUNT_LIMITS: WorkspaceMountLimits = { maxBytes: 16 * 1024 * 1024, maxFiles: 2000 };

/** Where the current workspace comes from; `snapshot` is called once per read_local call. */
export interface WorkspaceSource {
  snapshot(limits: WorkspaceMountLimits): Promise<WorkspaceMount>;
}

/** The workspace_too_large error for a snapshot over its limits. */
export function workspaceTooLarge(what: { bytes?: number; files?: number }, limits: WorkspaceMountLimits): EdgeError {
  const over =
    what.files !== undefined && what.files > limits.maxFiles
      ? `${what.files} files (the limit is ${limits.maxFiles})`
      : `${what.bytes} bytes (the limit is ${limits.maxBytes})`;
  return new EdgeError(
    "workspace_too_large",
    { ...what, limits },
    `The workspace holds ${over}, more than a read_local tool may have mounted; remove files from the workspace. Nothing ran.`,
  );
}

/** Re-check a snapshot's limits (a source should stop early; this is the host's own check). */
export function checkMount(mount: WorkspaceMount, limits: WorkspaceMountLimits): void {
  const files = Object.values(mount.files);
  const bytes = files.reduce((n, f) => n + f.byteLength, 0);
  if (files.length > limits.maxFiles || bytes > limits.maxBytes)
    throw workspaceTooLarge({ bytes, files: files.length }, limits);
}

/**
 * `workspace_sha256`: sha256 over the canonical JSON (RFC 8785) of an object mapping every mounted
 * path (relative to /workspace) to the sha256 of the file's bytes, or to "directory" for a folder.
 */
export async function workspaceSha256(mount: WorkspaceMount): Promise<Sha256> {
  const index: Record<string, string> = {};
  for (const dir of mount.dirs) index[dir] = "directory";
  for (const [path, data] of Object.entries(mount.files)) index[path] = await fileSha256(data);
  return sha256Json(index);
}

// Per-file hashes by array identity: workspace stores replace a file's array on every write and
// never edit one in place, so an unchanged file is not hashed again on the next call.
const fileHashes = new WeakMap<Uint8Array, Sha256>();
async function fileSha256(data: Uint8Array): Promise<Sha256> {
  let sha = fileHashes.get(data);
  if (!sha) fileHashes.set(data, (sha = await sha256Bytes(data)));
  return sha;
}

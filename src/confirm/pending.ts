// Creating pending actions: the binding over everything that decides what will run, and the
// single-use token (32 random bytes, base64url) of which only the sha256 is stored. Pure core:
// WebCrypto and btoa/atob only, the same in Node 20 and the browser.
import { EdgeError } from "../contract/errors.ts";
import {
  hmacSha256Hex,
  isSha256,
  randomHex,
  sha256Json,
  sha256Text,
  timingSafeEqual,
  type Sha256,
} from "../contract/hash.ts";
import type { ExecutionLevel, JsonObject, Selection } from "../contract/types.ts";
import {
  BINDING_VERSION,
  DEFAULT_PENDING_TTL_MS,
  PENDING_RECORD_VERSION,
  type BoundSelection,
  type PendingAction,
  type PendingTicketInfo,
  type PendingView,
} from "./types.ts";

const TOKEN_BYTES = 32;
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
const ID_RE = /^pa_[0-9a-f]{32}$/;

export function isPendingId(value: unknown): value is string {
  return typeof value === "string" && ID_RE.test(value);
}

function newPendingId(): string {
  return `pa_${randomHex(16)}`;
}

function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array | null {
  if (!TOKEN_RE.test(text)) return null;
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=");
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.length === TOKEN_BYTES ? out : null;
}

function hexOf(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/**
 * 32 random bytes, base64url. Drawn again when the text would start with "-", so that
 * `--token TOKEN` on a command line is never read as an option (costs < 0.03 bits of entropy).
 */
export function newToken(): string {
  const bytes = new Uint8Array(TOKEN_BYTES);
  for (;;) {
    crypto.getRandomValues(bytes);
    const token = toBase64Url(bytes);
    if (!token.startsWith("-")) return token;
  }
}

function tokenSha256(token: string): Promise<Sha256> {
  return sha256Text(token);
}

/** Constant-time check of a presented token against the stored hash (false for any malformed token). */
export async function tokenMatches(token: unknown, stored: Sha256): Promise<boolean> {
  const presented = typeof token === "string" && token.length <= 256 ? await tokenSha256(token) : await tokenSha256("");
  return timingSafeEqual(presented, stored) && typeof token === "string" && TOKEN_RE.test(token);
}

/** The fields the binding covers, in the record's own names. */
type BoundFields = Pick<
  PendingAction,
  | "id"
  | "created_at"
  | "expires_at"
  | "tool_name"
  | "execution_level"
  | "arguments"
  | "tools_file"
  | "selection"
  | "tools_file_sha256"
  | "tools_root"
  | "tools_bundle_sha256"
  | "active_set_sha256"
  | "tool_schema_sha256"
  | "args_sha256"
  | "token_sha256"
  | "run_id"
  | "call_id"
>;

export function bindingSha256(r: BoundFields): Promise<Sha256> {
  return sha256Json({
    binding_version: BINDING_VERSION,
    id: r.id,
    created_at: r.created_at,
    expires_at: r.expires_at,
    tool_name: r.tool_name,
    execution_level: r.execution_level,
    arguments: r.arguments,
    tools_file: r.tools_file,
    selection: r.selection,
    tools_file_sha256: r.tools_file_sha256,
    // Bound when present; a record from before tools projects hashes exactly as it did.
    ...(r.tools_root !== undefined ? { tools_root: r.tools_root } : {}),
    ...(r.tools_bundle_sha256 !== undefined ? { tools_bundle_sha256: r.tools_bundle_sha256 } : {}),
    active_set_sha256: r.active_set_sha256,
    tool_schema_sha256: r.tool_schema_sha256,
    args_sha256: r.args_sha256,
    token_sha256: r.token_sha256,
    run_id: r.run_id,
    call_id: r.call_id,
  });
}

/** HMAC keyed with the token's 32 bytes: only the token holder can produce it. */
export async function bindingMac(token: string, binding: Sha256): Promise<string> {
  const key = fromBase64Url(token);
  if (!key) throw new EdgeError("confirmation_token_invalid");
  return hmacSha256Hex(hexOf(key), binding);
}

export interface NewPendingAction {
  tool_name: string;
  arguments: JsonObject;
  execution_level: ExecutionLevel;
  tools_file: string;
  selection?: Selection;
  tools_file_sha256: Sha256 | null;
  tools_root?: string;
  tools_bundle?: { sha256: Sha256; files: Record<string, string> };
  active_set_sha256: Sha256 | null;
  tool_schema_sha256: Sha256 | null;
  run_id?: string | null;
  call_id?: string | null;
}

export interface CreatePendingOptions {
  /** Lifetime (default 10 minutes). */
  ttlMs?: number;
  /** Injectable clock (ms since the epoch). */
  now?: () => number;
}

function boundSelection(selection: Selection | undefined): BoundSelection {
  return { tool: [...(selection?.tool ?? [])].sort(), tool_tag: [...(selection?.toolTag ?? [])].sort() };
}

export function selectionOf(bound: BoundSelection): Selection {
  return {
    ...(bound.tool.length ? { tool: bound.tool } : {}),
    ...(bound.tool_tag.length ? { toolTag: bound.tool_tag } : {}),
  };
}

/** Build a pending record and its token. Nothing is stored here. */
export async function buildPendingAction(
  input: NewPendingAction,
  options: CreatePendingOptions = {},
): Promise<{ record: PendingAction; token: string }> {
  const ttl = options.ttlMs ?? DEFAULT_PENDING_TTL_MS;
  if (!Number.isFinite(ttl) || ttl <= 0)
    throw new EdgeError(
      "invalid_option",
      {},
      "The pending action lifetime must be a positive number of milliseconds. Pass a lifetime above 0.",
    );
  for (const key of ["tools_file_sha256", "active_set_sha256", "tool_schema_sha256"] as const) {
    if (!isSha256(input[key])) {
      throw new EdgeError(
        "invalid_option",
        { field: key },
        `A pending action needs ${key}: confirmation is only available for tools from a tools file. Use a tool from a tools file to ask for confirmation.`,
      );
    }
  }
  const now = (options.now ?? Date.now)();
  const token = newToken();
  const base = {
    id: newPendingId(),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + ttl).toISOString(),
    tool_name: input.tool_name,
    execution_level: input.execution_level,
    arguments: input.arguments,
    tools_file: input.tools_file,
    selection: boundSelection(input.selection),
    tools_file_sha256: input.tools_file_sha256 as Sha256,
    ...(input.tools_root !== undefined ? { tools_root: input.tools_root } : {}),
    ...(input.tools_bundle ? { tools_bundle_sha256: input.tools_bundle.sha256 } : {}),
    active_set_sha256: input.active_set_sha256 as Sha256,
    tool_schema_sha256: input.tool_schema_sha256 as Sha256,
    args_sha256: await sha256Json(input.arguments),
    token_sha256: await tokenSha256(token),
    run_id: input.run_id ?? null,
    call_id: input.call_id ?? null,
  };
  const binding = await bindingSha256(base);
  const record: PendingAction = {
    record_version: PENDING_RECORD_VERSION,
    ...base,
    status: "pending",
    arguments_wiped: false,
    binding_sha256: binding,
    binding_mac: await bindingMac(token, binding),
    ...(input.tools_bundle ? { tools_files: input.tools_bundle.files } : {}),
  };
  return { record, token };
}

export function ticketOf(record: PendingAction, token: string): PendingTicketInfo {
  return { id: record.id, expires_at: record.expires_at, confirmation_token: token };
}

/** The record as a person should see it (no token hash, no MAC). */
export function viewOf(record: PendingAction): PendingView {
  const { token_sha256: _t, binding_mac: _m, ...view } = record;
  return view;
}

export function isExpired(record: Pick<PendingAction, "expires_at">, nowMs: number): boolean {
  const t = Date.parse(record.expires_at);
  return !Number.isFinite(t) || nowMs >= t;
}

// A failed model load as a person needs it: one line — what failed, why in a few words, which engine
// the chat uses now — and one action (open a file instead, or try again); the full message, with
// its code and remedy, behind "Details". It used to be an eight-line paragraph beside a banner
// that said the same.
import type { ErrorJson } from "../contract/errors.ts";
import { errorText, h, replace } from "./dom.ts";

export interface LoadAction {
  label: string;
  run: () => void;
}

/** The file a URL or path names, for a line that must stay short. */
function shortName(label: string): string {
  const m = /^https?:\/\/[^?#]*\/([^/?#]+)/i.exec(label);
  return m ? decodeURIComponent(m[1]!) : label;
}

/** True when the download failed before any answer (no CORS header, or the server is down). */
export function isCorsOrNetwork(e: ErrorJson): boolean {
  return (
    e.code === "model_fetch_failed" &&
    /Access-Control-Allow-Origin|Failed to fetch|NetworkError|Load failed/i.test(e.message)
  );
}

/** Why, in a few words: the server's answer, CORS, stopped, else the message's first clause, with
 *  the model's name (already on the line) as "it". */
function shortReason(e: ErrorJson, name = ""): string {
  const http = /\bHTTP (\d{3})\b/.exec(e.message);
  if (e.code === "model_fetch_failed" && http) return `the server answered HTTP ${http[1]}`;
  if (isCorsOrNetwork(e)) return "the server is unreachable or does not let this page read the file (CORS)";
  if (e.code === "aborted") return "stopped";
  let first = (/^.*?[.!?;](?=\s|$)/.exec(e.message)?.[0] ?? e.message).replace(/[.!?;]$/, "");
  if (name && first.startsWith(`${name} `)) first = `it ${first.slice(name.length + 1)}`;
  return first.length > 140 ? `${first.slice(0, 139)}…` : first;
}

/** Show a failed load in the status line: one line, one action, the whole message on a click. */
export function showLoadError(
  status: HTMLElement,
  what: string,
  e: ErrorJson,
  inUse: string,
  action?: LoadAction,
): void {
  const name = shortName(what);
  const line = h(
    "span",
    { class: "failed-line" },
    `Could not load ${name}: ${shortReason(e, name)} (${e.code}). The chat uses ${inUse}.`,
  );
  const button = action
    ? h("button", { type: "button", class: "small", id: "load-error-action", onclick: action.run }, action.label)
    : null;
  const details = h(
    "details",
    { class: "failed-details" },
    h("summary", {}, "Details"),
    h("p", {}, `${what} — ${errorText(e)}`),
  );
  replace(status, line, " ", button, details);
  status.dataset.state = "error";
}

// The console errors of a browser whose driver cannot read its console (WebKitWebDriver: no log
// endpoint, no BiDi; and WebKit prints console messages — its `enable-write-console-messages-to-
// stdout` setting — only outside an ephemeral session, which an automation session always is).
// The test servers put this script first in every HTML page they serve, so it runs before the
// app; the WebKit driver collects what it recorded before every navigation and at the end.
//
// What it sees, in the page's own realm: uncaught errors and unhandled rejections, console.error,
// Content-Security-Policy violations of the page, and errors a dedicated worker started by the
// page did not handle (the event the page's Worker gets, unless the page prevented its default,
// as Edge's llama.cpp link does for a worker it reports itself). What it cannot see: console.error
// inside a worker, and anything in the runner's opaque-origin sandbox frame (another realm by
// design) — those are covered by Firefox's and Chromium's console checks.

/** Where the script keeps what it saw (read by the driver). */
export const CAPTURE_KEY = "__edgeConsoleErrors";

function capture(key: string): void {
  const seen: string[] = [];
  Object.defineProperty(window, key, { value: seen, enumerable: false });
  const text = (v: unknown): string =>
    v instanceof Error
      ? `${v.name}: ${v.message}`
      : typeof v === "string"
        ? v
        : (() => {
            try {
              return JSON.stringify(v);
            } catch {
              return String(v);
            }
          })();
  const original = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    seen.push(`console: ${args.map(text).join(" ")}`);
    original(...args);
  };
  addEventListener("error", (e) => {
    if (e instanceof ErrorEvent) seen.push(`uncaught: ${e.message} (${e.filename}:${e.lineno})`);
  });
  addEventListener("unhandledrejection", (e) => seen.push(`unhandled rejection: ${text(e.reason)}`));
  document.addEventListener("securitypolicyviolation", (e) =>
    seen.push(`CSP: ${e.violatedDirective} refused ${e.blockedURI || "inline code"} (${e.sourceFile}:${e.lineNumber})`),
  );
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      const where = `${options?.name ?? ""} ${String(url)}`.trim();
      // After the page's own listeners: only an error nobody handled reaches the console.
      this.addEventListener("error", (e) =>
        setTimeout(() => e.defaultPrevented || seen.push(`worker ${where}: ${e.message || "error"}`)),
      );
    }
  };
}

/** The script's source, for a `<script>` element at the top of `<head>`. */
export const PAGE_CAPTURE_SCRIPT = `(() => { const __name = (f) => f; (${capture.toString()})(${JSON.stringify(CAPTURE_KEY)}); })();`;

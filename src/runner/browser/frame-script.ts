// The sandbox frame's only script, and the srcdoc that carries it.
//
// The frame is `<iframe sandbox="allow-scripts">` without allow-same-origin, so its origin is
// opaque: it has no access to the app's IndexedDB, localStorage, Cache Storage or cookies. Its
// meta CSP allows exactly this script (by hash) and wasm compilation, workers from blob: or data:
// URLs, no other script from anywhere (no blob: or data: in script-src), no connections at all,
// and requires Trusted Types for script URLs (src/runner/browser/trusted-types.ts). Workers
// started from blob: or data: URLs inherit that policy.
//
// blob: where the browser starts it, else data:. In a cross-origin-isolated page (COEP
// require-corp, as the app is served) WebKit refuses a worker from a blob: URL made in an
// opaque-origin document (a bare error event, no message); a data: worker starts there. blob:
// stays first because Chromium makes a data: worker a secure context (Cache Storage, storage and
// locks APIs appear, refusing or empty for its opaque origin) and a blob:null one not: less for
// tool code to reach. `init` asks the browser with a one-line probe worker (docs/decisions.md).
//
// What the script does, and nothing else:
//  * accepts ONE control MessagePort from its parent window (first message whose source is the
//    parent; everything else is ignored);
//  * `init`: keeps Pyodide's stdlib bytes, compiles the wasm once, makes a blob: (else data:) URL of the
//    runner worker bundle (one classic script with Pyodide's JavaScript inside) and the one
//    Trusted Types policy that lets exactly that URL start a worker;
//  * `spawn`: starts one classic worker for one job and wires it to the job's own MessagePort;
//    host → worker envelopes are unpacked (the host is trusted), worker → host messages are
//    relayed as they are — never read, parsed or evaluated here, because they may be tool output;
//  * `terminate`: ends one worker; `ping`: answers `pong` (the host's heartbeat, heartbeat.ts).
// It is plain ES2020 in a string (not a bundled module) so its sha256 is stable and can be
// pinned in the CSP.
import { RUNNER_POLICY_NAME } from "./trusted-types.ts";
import { EdgeError } from "../../contract/errors.ts";

const FRAME_SCRIPT = `"use strict";
(() => {
  let control = null;
  let workerUrl = null;
  let workerScript = null;
  let wasmModule = null;
  let pyodideFiles = null;
  let lockFileContents = null;
  const snapshots = new Map();
  const jobs = new Map();
  const send = (message) => control.postMessage(message);
  const describe = (err) => String((err && err.message) || err);
  // The only way to a TrustedScriptURL in this frame; it accepts the runner bundle's URL only.
  const policy = self.trustedTypes
    ? trustedTypes.createPolicy(${JSON.stringify(RUNNER_POLICY_NAME)}, {
        createScriptURL: (url) => {
          if (url !== workerUrl) throw new TypeError("not the runner worker");
          return url;
        },
      })
    : null;

  // The script as a base64 data: URL of its UTF-8 bytes (in chunks: apply() has an argument limit).
  const dataUrl = (code) => {
    const bytes = new TextEncoder().encode(code);
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return "data:text/javascript;base64," + btoa(binary);
  };

  // Whether a worker starts from this script URL (it posts once, then ends).
  const starts = (script) =>
    new Promise((resolve) => {
      let probe;
      try {
        probe = new Worker(script);
      } catch (err) {
        resolve(false);
        return;
      }
      const done = (ok) => {
        probe.terminate();
        resolve(ok);
      };
      probe.onmessage = () => done(true);
      probe.onerror = (e) => {
        e.preventDefault();
        done(false);
      };
    });

  addEventListener("message", (event) => {
    if (control !== null || event.source !== parent) return;
    const data = event.data;
    if (!data || data.type !== "edge-sandbox-connect" || event.ports.length !== 1) return;
    control = event.ports[0];
    control.onmessage = (e) => {
      onControl(e.data).catch((err) => send({ type: "frame-error", message: describe(err) }));
    };
    send({ type: "connected" });
  });

  async function onControl(msg) {
    if (!msg || typeof msg.type !== "string") return;
    if (msg.type === "ping") {
      send({ type: "pong", seq: msg.seq });
    } else if (msg.type === "init") {
      const t0 = performance.now();
      try {
        pyodideFiles = msg.files;
        lockFileContents = msg.lockFileContents;
        // The probe goes through the same policy, as the only URL it accepts meanwhile.
        workerUrl = URL.createObjectURL(new Blob(["postMessage(0)"], { type: "text/javascript" }));
        const blobStarts = await starts(policy ? policy.createScriptURL(workerUrl) : workerUrl);
        URL.revokeObjectURL(workerUrl);
        workerUrl = blobStarts ? URL.createObjectURL(new Blob([msg.workerCode], { type: "text/javascript" })) : dataUrl(msg.workerCode);
        workerScript = policy ? policy.createScriptURL(workerUrl) : workerUrl;
        wasmModule = await WebAssembly.compile(msg.wasm);
        send({ type: "inited", compileMs: performance.now() - t0, workerScheme: blobStarts ? "blob" : "data" });
      } catch (err) {
        send({ type: "init-failed", message: describe(err) });
      }
    } else if (msg.type === "spawn") {
      spawn(msg.jobId, msg.port);
    } else if (msg.type === "terminate") {
      const job = jobs.get(msg.jobId);
      if (!job) return;
      jobs.delete(msg.jobId);
      job.worker.terminate();
      job.port.close();
    }
  }

  function spawn(jobId, port) {
    let worker = null;
    try {
      if (typeof jobId !== "string" || jobs.has(jobId) || !port || workerScript === null) throw new Error("not initialised");
      worker = new Worker(workerScript, { name: "edge-runner" });
    } catch (err) {
      send({ type: "worker-error", jobId, message: "sandbox frame cannot start this job: " + describe(err) });
      return;
    }
    jobs.set(jobId, { worker, port });
    let spoke = false;
    // Relay only. The data is never inspected here.
    worker.onmessage = (e) => {
      spoke = true;
      port.postMessage(e.data);
    };
    // Browsers give a refused worker script a bare error event (no message): said as what it is.
    worker.onerror = (e) => {
      e.preventDefault();
      const why = e.message
        ? String(e.message)
        : spoke
          ? "the runner worker failed and the browser gave no reason"
          : "the browser refused to start the runner worker and gave no reason (a worker its Content-Security-Policy or cross-origin isolation does not allow)";
      send({ type: "worker-error", jobId, message: why });
    };
    worker.onmessageerror = () => send({ type: "worker-error", jobId, message: "runner worker sent an unreadable message" });
    // The compiled module goes first; the worker entry takes it before the runner core starts.
    worker.postMessage({ type: "edge-sandbox-wasm", module: wasmModule });
    port.onmessage = (e) => {
      const env = e.data;
      if (!env) return;
      if (env.kind === "boot") {
        let snapshot;
        if (env.snapshot) {
          if (env.snapshot.bytes) snapshots.set(env.snapshot.id, env.snapshot.bytes);
          snapshot = snapshots.get(env.snapshot.id);
          if (!snapshot) {
            send({ type: "worker-error", jobId, message: "sandbox frame lost the memory snapshot" });
            return;
          }
        }
        const boot = Object.assign({}, env.boot, {
          pyodide: { kind: "bytes", files: pyodideFiles, lockFileContents: lockFileContents },
        });
        if (snapshot) boot.snapshot = snapshot;
        worker.postMessage(boot);
      } else if (env.kind === "relay") {
        worker.postMessage(env.message);
      }
    };
  }
})();
`;

async function cspHashOf(script: string): Promise<string> {
  if (!globalThis.crypto?.subtle) {
    throw new EdgeError(
      "runner_boot_failed",
      { reason: "no_webcrypto" },
      "The runner sandbox needs WebCrypto (a secure context: https:// or http://localhost). Open this page over https:// (or from localhost), then reload it.",
    );
  }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(script));
  let binary = "";
  for (const b of new Uint8Array(digest)) binary += String.fromCharCode(b);
  return `sha256-${btoa(binary)}`;
}

/** The frame's Content-Security-Policy: its own script by hash and wasm, workers from blob:/data: URLs
 *  made by a Trusted Types policy, no other script, no connections. */
function frameCsp(scriptHash: string): string {
  return [
    "default-src 'none'",
    `script-src '${scriptHash}' 'wasm-unsafe-eval'`,
    "worker-src blob: data:",
    "connect-src 'none'",
    "img-src 'none'",
    "style-src 'none'",
    "font-src 'none'",
    "media-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "child-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
    `trusted-types ${RUNNER_POLICY_NAME}`,
  ].join("; ");
}

function escapeAttr(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export async function frameSrcdoc(): Promise<string> {
  const csp = frameCsp(await cspHashOf(FRAME_SCRIPT));
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}"><script>${FRAME_SCRIPT}</script></head><body></body></html>`;
}

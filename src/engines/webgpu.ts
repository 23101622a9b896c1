// WebGPU detection, done by us before web-llm is involved: web-llm fetches the model's config
// and library before it checks the GPU, so without this a machine with no GPU would first see a
// download (or a "Failed to fetch"), not the real reason. Used on the page (model picker) and in
// the llm worker (where web-llm actually runs; its adapter is the one that counts).
import { EdgeError } from "../contract/errors.ts";
import { browserFamily, type BrowserFamily } from "./browser-family.ts";

/** The part of a GPUDevice we read: the promise that settles when the device is lost. */
export interface GpuDeviceLike {
  readonly lost: Promise<{ reason?: string; message?: string }>;
}

/** The part of a GPUAdapter we read (TypeScript's DOM lib has no WebGPU types). */
export interface GpuAdapterLike {
  readonly features: { has(feature: string): boolean; forEach?(cb: (value: string) => void): void };
  /** `info.isFallbackAdapter` is where current browsers report a software adapter. */
  readonly info?: {
    vendor?: string;
    architecture?: string;
    device?: string;
    description?: string;
    isFallbackAdapter?: boolean;
  };
  /** The older place of the same flag (removed from the spec; kept as a fallback). */
  readonly isFallbackAdapter?: boolean;
  requestDevice?(descriptor?: unknown): Promise<GpuDeviceLike>;
}

export interface GpuLike {
  requestAdapter(options?: { powerPreference?: "low-power" | "high-performance" }): Promise<GpuAdapterLike | null>;
}

export interface WebGPUAdapterSummary {
  vendor: string;
  architecture: string;
  description: string;
  /** A software (CPU) adapter, e.g. SwiftShader: `adapter.info.isFallbackAdapter`, or the older
   *  `adapter.isFallbackAdapter` where a browser still has only that. */
  isFallbackAdapter: boolean;
}

export type WebGPUProbe =
  | { available: true; shaderF16: boolean; features: string[]; adapter: WebGPUAdapterSummary }
  | { available: false; reason: "no_webgpu_api" | "no_adapter" | "request_failed"; message: string };

/** The global `navigator.gpu` when the platform has one (page or worker). */
export function platformGpu(): GpuLike | undefined {
  const nav = (globalThis as { navigator?: { gpu?: GpuLike } }).navigator;
  return nav?.gpu ?? undefined;
}

/** What a person can do when there is no WebGPU API, per browser (a Chrome address only in Chromium). */
const NO_API_ADVICE: Record<BrowserFamily, string> = {
  chromium:
    "Use Chrome or Edge 113 or later over https or localhost (on Linux WebGPU may need chrome://flags/#enable-unsafe-webgpu), or pick the scripted demo engine.",
  firefox:
    "Firefox turns WebGPU on by default only on some systems (Windows first); elsewhere it is an experimental setting (dom.webgpu.enabled in about:config). Or pick the scripted demo engine.",
  safari:
    "Safari has WebGPU from Safari 26 (macOS 26, iOS 26); on Safari 18 turn it on under Develop › Feature Flags › WebGPU. Or pick the scripted demo engine.",
  webkit: "This WebKit browser has no WebGPU (Safari on macOS and iOS 26 has). Or pick the scripted demo engine.",
  other:
    "Use a browser with WebGPU (Chrome or Edge 113 or later, Safari 26) over https or localhost, or pick the scripted demo engine.",
};

/** What a person can do when WebGPU gives no adapter, per browser. */
const NO_ADAPTER_ADVICE: Record<BrowserFamily, string> = {
  chromium:
    "Turn on hardware acceleration (chrome://settings/system) or try chrome://flags/#enable-unsafe-webgpu, use a machine with a GPU, or pick the scripted demo engine.",
  firefox:
    "about:support (Graphics) says why Firefox turned WebGPU off; use a machine with a GPU, or pick the scripted demo engine.",
  safari:
    "Check that WebGPU is on (Develop › Feature Flags), use a machine with a GPU, or pick the scripted demo engine.",
  webkit: "Use a machine with a GPU, or pick the scripted demo engine.",
  other:
    "Turn on hardware acceleration in the browser settings, use a machine with a GPU, or pick the scripted demo engine.",
};

/** Ask for an adapter; never throws. The result is plain data (it crosses postMessage). */
export async function probeWebGPU(gpu: GpuLike | undefined = platformGpu()): Promise<WebGPUProbe> {
  if (!gpu || typeof gpu.requestAdapter !== "function") {
    return {
      available: false,
      reason: "no_webgpu_api",
      message: `This browser has no WebGPU API (navigator.gpu is missing). ${NO_API_ADVICE[browserFamily()]}`,
    };
  }
  let adapter: GpuAdapterLike | null;
  try {
    // The same power preference web-llm asks for, so we see the adapter it will get.
    adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
  } catch (e) {
    return {
      available: false,
      reason: "request_failed",
      message: `Asking the browser for a WebGPU adapter failed (${String(e)}). Enable hardware acceleration in the browser settings, or pick the scripted demo engine.`,
    };
  }
  if (!adapter) {
    return {
      available: false,
      reason: "no_adapter",
      message: `WebGPU is present but the browser gave no GPU adapter (no usable GPU, a blocklisted driver, or hardware acceleration turned off). ${NO_ADAPTER_ADVICE[browserFamily()]}`,
    };
  }
  const features: string[] = [];
  adapter.features.forEach?.((f) => features.push(f));
  features.sort();
  return {
    available: true,
    shaderF16: adapter.features.has("shader-f16"),
    features,
    adapter: {
      vendor: adapter.info?.vendor ?? "",
      architecture: adapter.info?.architecture ?? "",
      description: adapter.info?.description ?? "",
      isFallbackAdapter: adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false,
    },
  };
}

/** Whether a probe found a GPU worth running a model on: an adapter that is not a software
 *  (CPU) fallback. `engine: auto` prefers another engine when this is false; web-llm itself can
 *  still be picked explicitly on a fallback adapter (slowly). */
export function isUsableWebGPU(
  probe: WebGPUProbe | null | undefined,
): probe is Extract<WebGPUProbe, { available: true }> {
  return probe?.available === true && !probe.adapter.isFallbackAdapter;
}

/** The error a failed probe becomes (the table's code, the probe's specific sentence). */
export function webgpuUnavailableError(
  probe: Extract<WebGPUProbe, { available: false }>,
  where: "page" | "worker",
): EdgeError {
  return new EdgeError("webgpu_unavailable", { reason: probe.reason, where }, probe.message);
}

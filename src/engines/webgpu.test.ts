// The WebGPU probe's software-adapter flag and the device-loss watch, with GPU objects shaped like
// the browser's (no GPU exists here; Chromium's real flag is checked in e2e/engine.spec.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { watchDeviceLoss } from "./device-loss.ts";
import { isUsableWebGPU, probeWebGPU, type GpuAdapterLike, type GpuLike } from "./webgpu.ts";

const features = { has: () => false, forEach: () => undefined };
const gpuWith = (adapter: GpuAdapterLike): GpuLike => ({ requestAdapter: async () => adapter });

describe("software adapters", () => {
  it("reads adapter.info.isFallbackAdapter, with the old adapter.isFallbackAdapter as a fallback", async () => {
    const current = await probeWebGPU(gpuWith({ features, info: { vendor: "google", isFallbackAdapter: true } }));
    const legacy = await probeWebGPU(gpuWith({ features, isFallbackAdapter: true }));
    const hardware = await probeWebGPU(gpuWith({ features, info: { vendor: "nvidia", isFallbackAdapter: false } }));
    expect(current).toMatchObject({ available: true, adapter: { isFallbackAdapter: true } });
    expect(legacy).toMatchObject({ available: true, adapter: { isFallbackAdapter: true } });
    expect([current, legacy, hardware].map(isUsableWebGPU)).toEqual([false, false, true]);
    expect(isUsableWebGPU(await probeWebGPU(undefined))).toBe(false);
  });
});

describe("advice per browser", () => {
  afterEach(() => vi.unstubAllGlobals());
  const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0";
  const SAFARI =
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Safari/605.1.15";
  const WEBKITGTK =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/60.5 Safari/605.1.15";
  const CHROME =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";
  const noAdapter: GpuLike = { requestAdapter: async () => null };
  async function messages(ua: string): Promise<string[]> {
    vi.stubGlobal("navigator", { userAgent: ua });
    return [await probeWebGPU(undefined), await probeWebGPU(noAdapter)].map((p) => (p.available ? "" : p.message));
  }

  it("names a Chrome address only in Chromium, and each browser's own way to WebGPU", async () => {
    for (const ua of [FIREFOX, SAFARI, WEBKITGTK]) {
      for (const m of await messages(ua)) expect(m).not.toMatch(/chrome:\/\/|113 or later/);
    }
    expect((await messages(FIREFOX))[0]).toContain("about:config");
    expect((await messages(FIREFOX))[1]).toContain("about:support");
    expect((await messages(SAFARI))[0]).toContain("Feature Flags");
    expect((await messages(WEBKITGTK))[0]).toContain("This WebKit browser has no WebGPU");
    expect((await messages(CHROME)).join(" ")).toMatch(/113 or later[\s\S]*chrome:\/\/settings\/system/);
  });
});

describe("watchDeviceLoss", () => {
  it("reports a device lost for any reason but a deliberate destroy()", async () => {
    const losses: [string, string][] = [];
    let lose!: (info: { reason?: string; message?: string }) => void;
    const devices = [
      { lost: new Promise<{ reason?: string; message?: string }>((r) => (lose = r)) },
      { lost: Promise.resolve({ reason: "destroyed", message: "unload" }) },
    ];
    const adapter: GpuAdapterLike = { features, requestDevice: async () => devices.shift()! };
    const gpu = gpuWith(adapter);
    watchDeviceLoss(gpu, (reason, message) => losses.push([reason, message]));
    const a = await gpu.requestAdapter();
    await a!.requestDevice!();
    await (await gpu.requestAdapter())!.requestDevice!();
    await new Promise((r) => setTimeout(r, 0));
    expect(losses).toEqual([]);
    lose({ reason: "unknown", message: "GPU connection lost" });
    await new Promise((r) => setTimeout(r, 0));
    expect(losses).toEqual([["unknown", "GPU connection lost"]]);
  });
});

// The WebGPU probe's software-adapter flag and the device-loss watch, with GPU objects shaped like
// the browser's (no GPU exists here; Chromium's real flag is checked in e2e/engine.spec.ts).
import { describe, expect, it } from "vitest";
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

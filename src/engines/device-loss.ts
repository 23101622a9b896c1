// Noticing a lost GPU device. web-llm asks navigator.gpu for an adapter and a device itself and
// handles a loss only by logging and unloading inside its worker; a generation in flight then never
// finishes. The llm worker therefore wraps the GPU object's requestAdapter before web-llm is
// imported, so every device web-llm gets is watched, and a loss that is not a deliberate destroy()
// (web-llm's own unload) is reported to the page, which fails the generation with `engine_lost`.
import type { GpuAdapterLike, GpuDeviceLike, GpuLike } from "./webgpu.ts";

export function watchDeviceLoss(gpu: GpuLike | undefined, onLost: (reason: string, message: string) => void): void {
  if (!gpu || typeof gpu.requestAdapter !== "function") return;
  const requestAdapter = gpu.requestAdapter.bind(gpu);
  gpu.requestAdapter = async (options) => {
    const adapter = await requestAdapter(options);
    if (adapter) watchAdapter(adapter, onLost);
    return adapter;
  };
}

const watched = new WeakSet<GpuAdapterLike>();

function watchAdapter(adapter: GpuAdapterLike, onLost: (reason: string, message: string) => void): void {
  const requestDevice = adapter.requestDevice?.bind(adapter);
  if (!requestDevice || watched.has(adapter)) return;
  watched.add(adapter);
  (adapter as { requestDevice: (d?: unknown) => Promise<GpuDeviceLike> }).requestDevice = async (descriptor) => {
    const device = await requestDevice(descriptor);
    void device.lost.then((info) => {
      // "destroyed" is web-llm's own unload (pipeline.dispose() destroys the device).
      if (info?.reason !== "destroyed") onLost(info?.reason ?? "unknown", info?.message ?? "The GPU device was lost.");
    });
    return device;
  };
}

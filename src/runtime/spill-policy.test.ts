import { describe, expect, it, vi } from "vitest";
import { defineTool } from "./define.ts";
import { createToolRuntime } from "./runtime.ts";
import { spillPolicy, type SpilledResult } from "./spill-policy.ts";

const params = { type: "object" };

function runtimeWith(output: unknown, meta: Record<string, unknown> = {}) {
  const files = new Map<string, string>();
  const write = vi.fn(async (path: string, text: string) => void files.set(path, text));
  const rt = createToolRuntime();
  rt.register(defineTool({ name: "cat", description: "", parameters: params, execute: () => output, meta }));
  return { rt, files, write };
}

describe("spillPolicy", () => {
  it("writes a large string result in full and replaces it with a head/tail preview", async () => {
    const text = "A".repeat(50) + "M".repeat(100) + "Z".repeat(50);
    const { rt, files, write } = runtimeWith(text);
    rt.onPostExecute(spillPolicy({ inlineLimitBytes: 100, write, previewChars: 10 }));
    const exec = await rt.execute({ id: "call/1", name: "cat", args: {} });
    expect(exec.status).toBe("ok");
    const spilled = exec.result as SpilledResult;
    expect(spilled).toEqual({
      spilled: true,
      path: "/.edge/spill/cat-call_1.txt",
      bytes: 200,
      head: "A".repeat(10),
      tail: "Z".repeat(10),
    });
    expect(exec.content).toEqual(spilled);
    expect(files.get(spilled.path)).toBe(text);
  });

  it("serializes non-string results as JSON and measures UTF-8 bytes, not characters", async () => {
    const { rt, files, write } = runtimeWith({ text: "é".repeat(10) });
    rt.onPostExecute(spillPolicy({ inlineLimitBytes: 25, write, pathFor: (call) => `/spill/${call.id}.json` }));
    const exec = await rt.execute({ id: "x", name: "cat", args: {} });
    // {"text":"éééééééééé"} is 21 characters but 31 bytes.
    expect(exec.result).toMatchObject({ spilled: true, path: "/spill/x.json", bytes: 31 });
    expect(JSON.parse(files.get("/spill/x.json")!)).toEqual({ text: "é".repeat(10) });
  });

  it("leaves results at or under the limit alone", async () => {
    const { rt, write } = runtimeWith("x".repeat(100));
    rt.onPostExecute(spillPolicy({ inlineLimitBytes: 100, write }));
    expect((await rt.execute({ id: "1", name: "cat", args: {} })).result).toBe("x".repeat(100));
    expect(write).not.toHaveBeenCalled();
  });

  it("never spills Python tools, even if appliesTo says yes", async () => {
    const big = { rows: "y".repeat(500) };
    const { rt, write } = runtimeWith(big, { kind: "python" });
    rt.onPostExecute(spillPolicy({ inlineLimitBytes: 10, write, appliesTo: () => true }));
    expect((await rt.execute({ id: "1", name: "cat", args: {} })).result).toEqual(big);
    expect(write).not.toHaveBeenCalled();
  });

  it("skips tools appliesTo rejects", async () => {
    const { rt, write } = runtimeWith("z".repeat(500));
    const appliesTo = vi.fn(() => false);
    rt.onPostExecute(spillPolicy({ inlineLimitBytes: 10, write, appliesTo }));
    expect((await rt.execute({ id: "1", name: "cat", args: {} })).result).toBe("z".repeat(500));
    expect(appliesTo).toHaveBeenCalledWith(rt.get("cat"));
    expect(write).not.toHaveBeenCalled();
  });

  it("fails closed when the write fails (no preview pointing at nothing)", async () => {
    const rt = createToolRuntime();
    rt.register(defineTool({ name: "cat", description: "", parameters: params, execute: () => "q".repeat(500) }));
    rt.onPostExecute(spillPolicy({ inlineLimitBytes: 10, write: async () => Promise.reject(new Error("disk full")) }));
    const exec = await rt.execute({ id: "1", name: "cat", args: {} });
    expect(exec.status).toBe("failed");
    expect(exec.error?.code).toBe("tool_hook_failed");
    expect(exec.result).toBeUndefined();
  });

  it("does not cut a surrogate pair in head or tail", async () => {
    const { rt, write } = runtimeWith("😀".repeat(40));
    rt.onPostExecute(spillPolicy({ inlineLimitBytes: 10, write, previewChars: 3 }));
    const result = (await rt.execute({ id: "1", name: "cat", args: {} })).result as SpilledResult;
    expect(result.head).toBe("😀");
    expect(result.tail).toBe("😀");
  });

  it("composes as a stage: a block before it prevents the write; finalizeContent sees the preview", async () => {
    const write = vi.fn(async () => undefined);
    const rt = createToolRuntime();
    rt.register(
      defineTool({
        name: "cat",
        description: "",
        parameters: params,
        execute: () => "w".repeat(500),
        // eslint-disable-next-line no-restricted-syntax -- the spill policy replaced the tool's string with its SpilledResult before finalizeContent runs
        finalizeContent: (r) => `preview of ${(r as unknown as SpilledResult).path}`,
      }),
    );
    const block = rt.onPostExecute(() => ({ action: "block", reason: "redacted" }));
    rt.onPostExecute(spillPolicy({ inlineLimitBytes: 10, write }));
    expect((await rt.execute({ id: "1", name: "cat", args: {} })).status).toBe("blocked");
    expect(write).not.toHaveBeenCalled();
    block();
    expect((await rt.execute({ id: "2", name: "cat", args: {} })).content).toBe("preview of /.edge/spill/cat-2.txt");
  });
});

// --model values: GGUF paths and URLs resolve; Edge Studio's MLX ids and web-llm ids are refused
// with unknown_model, naming what this build can run.
import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { resolveModelArg } from "./model-arg.ts";

function refusal(value: string, catalog?: string[]): EdgeError {
  try {
    resolveModelArg(value, catalog ? { catalog } : {});
  } catch (err) {
    if (err instanceof EdgeError) return err;
    throw err;
  }
  throw new Error(`${value} was accepted`);
}

describe("resolveModelArg", () => {
  it("accepts GGUF files, GGUF URLs and catalog names", () => {
    expect(resolveModelArg("./models/tiny.gguf")).toEqual({ kind: "gguf_file", path: "./models/tiny.gguf" });
    expect(resolveModelArg("/abs/Qwen2.5-1.5B-Instruct-Q4_K_M.GGUF")).toEqual({
      kind: "gguf_file",
      path: "/abs/Qwen2.5-1.5B-Instruct-Q4_K_M.GGUF",
    });
    expect(resolveModelArg("https://example.org/m/model.gguf?download=true")).toEqual({
      kind: "gguf_url",
      url: "https://example.org/m/model.gguf?download=true",
    });
    expect(resolveModelArg("tiny-test", { catalog: ["tiny-test"] })).toEqual({ kind: "catalog", id: "tiny-test" });
  });

  it("refuses Edge Studio's MLX ids with unknown_model and what can run instead", () => {
    for (const id of ["qwen3.5-9b-4bit", "qwen3.5-4b-8bit", "mlx-community/Qwen3-4B-4bit", "llama-3.2-1b-bf16"]) {
      const e = refusal(id);
      expect(e.code, id).toBe("unknown_model");
      expect(e.message).toContain("Edge Studio model id");
      expect(e.message).toContain(".gguf");
      expect(e.details["runnable"]).toEqual(["*.gguf (file path)", "http(s)://…/*.gguf"]);
    }
  });

  it("refuses web-llm ids (browser only), other names and non-GGUF URLs", () => {
    expect(refusal("Qwen2.5-1.5B-Instruct-q4f16_1-MLC").message).toContain("runs in the browser");
    expect(refusal("gpt-4").code).toBe("unknown_model");
    expect(refusal("https://example.org/model.safetensors").code).toBe("unknown_model");
    expect(refusal("ftp://example.org/model.gguf").code).toBe("unknown_model");
    expect(refusal("").code).toBe("unknown_model");
    const listed = refusal("qwen3.5-9b-4bit", ["tiny-test"]);
    expect(listed.message).toContain("tiny-test");
    expect(listed.details["runnable"]).toEqual(["tiny-test", "*.gguf (file path)", "http(s)://…/*.gguf"]);
  });
});

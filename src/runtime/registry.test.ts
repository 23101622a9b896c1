import { describe, expect, it } from "vitest";
import { EdgeError } from "../contract/errors.ts";
import { defineTool } from "./define.ts";
import { createToolRuntime } from "./runtime.ts";

const params = { type: "object", properties: {}, additionalProperties: false };
const tool = (name: string, extra: Partial<Parameters<typeof defineTool>[0]> = {}) =>
  defineTool({ name, description: `about ${name}`, parameters: params, execute: () => name, ...extra });

describe("registry", () => {
  it("registers, gets, lists in registration order, and the disposer really unregisters", async () => {
    const rt = createToolRuntime();
    const disposeB = rt.register(tool("b"));
    rt.register(tool("a"));
    expect(rt.list().map((d) => d.name)).toEqual(["b", "a"]);
    disposeB();
    expect(rt.get("b")).toBeUndefined();
    expect(rt.list().map((d) => d.name)).toEqual(["a"]);
    const exec = await rt.execute({ id: "1", name: "b", args: {} });
    expect(exec.status).toBe("failed");
    expect(exec.error?.code).toBe("unknown_tool");
  });

  it("refuses a duplicate name with a coded error, and an old disposer cannot remove a newer tool", () => {
    const rt = createToolRuntime();
    const first = rt.register(tool("a"));
    expect(() => rt.register(tool("a"))).toThrowError(EdgeError);
    try {
      rt.register(tool("a"));
    } catch (err) {
      expect((err as EdgeError).code).toBe("duplicate_tool_name");
    }
    first();
    const second = tool("a");
    rt.register(second);
    first(); // stale disposer
    expect(rt.get("a")).toBe(second);
  });

  it("refuses objects not made by defineTool", () => {
    const rt = createToolRuntime();
    expect(() => rt.register({ ...tool("a") })).toThrowError(/defineTool/);
  });

  it("projects docs/contract.md §1 schemas in registration order with allow and limit", () => {
    const rt = createToolRuntime();
    const out = { type: "object", properties: { n: { type: "integer" } }, additionalProperties: false };
    rt.register(
      tool("zeta", { executionLevel: "prepare", returnDirect: true, outputSchema: out, meta: { kind: "python" } }),
    );
    rt.register(tool("alpha"));
    rt.register(tool("mid"));
    expect(rt.schemas()).toEqual([
      {
        name: "zeta",
        description: "about zeta",
        parameters: params,
        execution_level: "prepare",
        return_direct: true,
        output_schema: out,
      },
      {
        name: "alpha",
        description: "about alpha",
        parameters: params,
        execution_level: "read",
        return_direct: false,
        output_schema: null,
      },
      {
        name: "mid",
        description: "about mid",
        parameters: params,
        execution_level: "read",
        return_direct: false,
        output_schema: null,
      },
    ]);
    expect(rt.schemas({ allow: ["mid", "zeta", "ghost"] }).map((s) => s.name)).toEqual(["zeta", "mid"]);
    expect(rt.schemas({ limit: 2 }).map((s) => s.name)).toEqual(["zeta", "alpha"]);
    expect(rt.schemas({ allow: ["mid", "alpha"], limit: 1 }).map((s) => s.name)).toEqual(["alpha"]);
    expect(rt.schemas({ limit: 0 })).toEqual([]);
    expect(() => rt.schemas({ limit: -1 })).toThrowError(EdgeError);
    // Exactly the six schema keys; metadata (meta) is not model-visible.
    expect(Object.keys(rt.schemas()[0]!).sort()).toEqual([
      "description",
      "execution_level",
      "name",
      "output_schema",
      "parameters",
      "return_direct",
    ]);
  });

  it("hands out schema copies that cannot reach the definition", () => {
    const rt = createToolRuntime();
    rt.register(tool("a"));
    const schema = rt.schemas()[0]!;
    (schema.parameters as Record<string, unknown>)["type"] = "string";
    expect(rt.schemas()[0]!.parameters["type"]).toBe("object");
  });
});

import { describe, expect, it } from "vitest";
import { ERRORS } from "./error-table.ts";
import { EdgeError, errorJson, isErrorCode, toErrorJson } from "./errors.ts";
import {
  activeSetSha256,
  canonicalJson,
  canonicalSize,
  hmacSha256Hex,
  isSha256,
  schemaSha256,
  sha256Bytes,
  sha256Json,
  sha256Text,
  timingSafeEqual,
} from "./hash.ts";
import { selectActiveSet } from "./selection.ts";
import type { DiscoveredTool, ToolSchema } from "./types.ts";

const hello: ToolSchema = {
  name: "hello_world",
  description: "",
  parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
  execution_level: "read",
  return_direct: false,
  output_schema: null,
};
const add: ToolSchema = {
  name: "add",
  description: "Add.",
  parameters: { type: "object", properties: { a: { type: "integer" } }, required: ["a"], additionalProperties: false },
  execution_level: "read",
  return_direct: false,
  output_schema: null,
};

describe("hashes (vectors computed independently with Python's hashlib + json)", () => {
  it("sha256 of bytes and text uses the sha256: prefix and lowercase hex", async () => {
    expect(await sha256Bytes(new Uint8Array())).toBe(
      "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(await sha256Text("abc")).toBe("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(isSha256(await sha256Text("x"))).toBe(true);
    expect(isSha256("sha256:ABC")).toBe(false);
  });

  it("text hashes are unambiguous: a lone surrogate never hashes like U+FFFD (Python: encode('utf-8', 'surrogatepass'))", async () => {
    const lone = await sha256Text("\ud800");
    expect(lone).toBe("sha256:91a681b998555fb475479817b126c94e57e52011fa1842c5d188795a4a05226b");
    expect(await sha256Text("\ufffd")).toBe("sha256:83d544ccc223c057d2bf80d3f2a32982c32c3c0db8e2674820da5064783fb097");
    expect(lone).not.toBe(await sha256Text("\ufffd"));
    expect(await sha256Text("a\udc00b\ud83d")).toBe(
      "sha256:7aa86581ec8f52d9565c5702da321acf236ed27cb3275b06214d6678bd263d98",
    );
    // Well-formed text (a surrogate pair included) hashes as its plain UTF-8, as before.
    expect(await sha256Text("x\ud83d\ude00y")).toBe(
      "sha256:d506f8eb09b320da26e02670fb6ce1685d67541cb373a98c00adbffadef794f4",
    );
  });

  it("schema_sha256 is sha256(JCS(schema))", async () => {
    expect(await schemaSha256(hello)).toBe("sha256:b00b90c770a7acbe7996e123bd6c691557e6dab0c007be64e7f2bbaa85f48346");
    expect(await schemaSha256(add)).toBe("sha256:20d353259c05b2ba082d2a4f86168df109323c65a6f8d92e1bbd3f267d3f0ab5");
  });

  it("active_set_sha256 sorts schemas by name, whatever the input order", async () => {
    const expected = "sha256:5b73f756fb7de5c088e4a36d9b589fa91b1e759fe4dc8c530c7cad00e6f6d3b7";
    expect(await activeSetSha256([hello, add])).toBe(expected);
    expect(await activeSetSha256([add, hello])).toBe(expected);
  });

  it("JCS orders keys by UTF-16 code units, normalizes numbers, refuses what JSON cannot carry", async () => {
    expect(canonicalJson({ b: 1, a: [1.0, "x", { d: null, c: true }] })).toBe(
      '{"a":[1,"x",{"c":true,"d":null}],"b":1}',
    );
    expect(canonicalJson({ "\u00e9": 1, "\ud83d\ude00": 2, z: 3 })).toBe('{"z":3,"é":1,"😀":2}');
    expect(canonicalJson([1e21, 1e-7, -0, 0.1])).toBe("[1e+21,1e-7,0,0.1]");
    expect(await sha256Json({ a: 1 })).toBe("sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
    expect(canonicalSize({ a: "é" })).toBe(10);
    for (const bad of [NaN, Infinity, "\ud800", { x: "\udc00" }]) {
      expect(() => canonicalJson(bad)).toThrowError(EdgeError);
    }
  });

  it("HMAC-SHA256 matches RFC 4231 test case 2 shape and compares in constant time", async () => {
    // RFC 4231 case 2: key "Jefe", data "what do ya want for nothing?"
    const key = Buffer.from("Jefe").toString("hex");
    expect(await hmacSha256Hex(key, "what do ya want for nothing?")).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
    expect(timingSafeEqual("abc", "abc")).toBe(true);
    expect(timingSafeEqual("abc", "abd")).toBe(false);
    expect(timingSafeEqual("abc", "abcd")).toBe(false);
  });
});

function tool(name: string, tags: string[] = []): DiscoveredTool {
  return { schema: { ...hello, name }, intent_tags: tags, permissions: [] };
}

describe("active-set selection", () => {
  const tools = [tool("a", ["billing"]), tool("b", ["billing", "quote"]), tool("c"), tool("d", ["ops"])];

  it("all tools are active without filters, in file order", () => {
    expect(selectActiveSet(tools).active.map((t) => t.schema.name)).toEqual(["a", "b", "c", "d"]);
  });

  it("--tool and --tool-tag select the union, in file order", () => {
    const r = selectActiveSet(tools, { tool: ["d"], toolTag: ["quote"] });
    expect(r.errors).toEqual([]);
    expect(r.active.map((t) => t.schema.name)).toEqual(["b", "d"]);
    expect(selectActiveSet(tools, { toolTag: ["billing"] }).active.map((t) => t.schema.name)).toEqual(["a", "b"]);
  });

  it("an unknown name is unknown_tool; an unmatched tag is unknown_tool_tag", () => {
    expect(selectActiveSet(tools, { tool: ["nope"] }).errors.map((e) => [e.code, e.tool])).toEqual([
      ["unknown_tool", "nope"],
    ]);
    expect(selectActiveSet(tools, { toolTag: ["zzz"] }).errors.map((e) => e.code)).toEqual(["unknown_tool_tag"]);
    expect(selectActiveSet(tools, { tool: ["nope"] }).active).toEqual([]);
  });

  it("more than 8 active tools is refused unless narrowed", () => {
    const many = Array.from({ length: 9 }, (_, i) => tool(`t${i}`, i < 3 ? ["small"] : []));
    const r = selectActiveSet(many);
    expect(r.errors.map((e) => e.code)).toEqual(["active_tool_limit_exceeded"]);
    expect(r.active).toEqual([]);
    expect(selectActiveSet(many.slice(0, 8)).active).toHaveLength(8);
    expect(selectActiveSet(many, { toolTag: ["small"] }).active).toHaveLength(3);
  });
});

describe("the error table", () => {
  it("every code has an actionable sentence and EdgeError carries it", () => {
    for (const [code, message] of Object.entries(ERRORS)) {
      expect(isErrorCode(code)).toBe(true);
      expect(message.length).toBeGreaterThan(20);
    }
    const e = new EdgeError("unknown_tool", { tool: "x", secret: "not printed" });
    expect(e.message).toBe(ERRORS.unknown_tool);
    expect(e.toJSON()).toEqual({ code: "unknown_tool", message: ERRORS.unknown_tool, tool: "x" });
    expect(toErrorJson(new Error("boom"))).toEqual({ code: "internal_error", message: "boom" });
    expect(errorJson("tool_raised", { line: 3 })).toEqual({
      code: "tool_raised",
      message: ERRORS.tool_raised,
      line: 3,
    });
    expect(isErrorCode("nope")).toBe(false);
  });
});

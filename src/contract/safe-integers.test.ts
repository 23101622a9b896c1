// Integers at integer positions of tool arguments: only ±(2^53−1) passes, wherever the position
// is (nested arrays and objects, Optional, unions, $ref), while the schema itself is unchanged.
import { describe, expect, it } from "vitest";
import { argsProblem } from "./ajv.ts";
import { canonicalJson } from "./hash.ts";

const obj = (properties: Record<string, object>) => ({ type: "object", properties, additionalProperties: false });
/** Arguments as a model writes them: JSON text, so 9007199254740993 arrives as 2^53. */
const args = (json: string): unknown => JSON.parse(json);

describe("integers JSON carries exactly", () => {
  const int = obj({ n: { type: "integer" } });

  it("an int parameter refuses 1e300 and 9007199254740993, naming the parameter and the range", () => {
    for (const text of [
      '{"n": 1e300}',
      '{"n": 9007199254740993}',
      '{"n": 9007199254740992}',
      '{"n": -9007199254740992}',
      '{"n": -1e300}',
    ]) {
      const bad = argsProblem(int, args(text));
      expect(bad, text).not.toBeNull();
      expect(bad!.detail).toBe(
        'parameter "n" must be an integer within ±(2^53−1), from -9007199254740991 to 9007199254740991: JSON does not carry larger integers exactly',
      );
    }
  });

  it("accepts the largest and smallest safe integers, and leaves the schema as it was", () => {
    const before = canonicalJson(int);
    for (const text of ['{"n": 9007199254740991}', '{"n": -9007199254740991}', '{"n": 0}', '{"n": 1.0}'])
      expect(argsProblem(int, args(text)), text).toBeNull();
    expect(canonicalJson(int)).toBe(before);
  });

  it("checks nested positions: lists, lists of lists, Optional, Optional lists, objects, $ref", () => {
    const schema = {
      ...obj({
        xs: { type: "array", items: { type: "integer" } },
        grid: { type: "array", items: { type: "array", items: { type: "integer" } } },
        maybe: { type: ["integer", "null"] },
        maybe_list: { type: ["array", "null"], items: { type: ["integer", "null"] } },
        point: obj({ x: { $ref: "#/$defs/coord" } }),
      }),
      $defs: { coord: { type: "integer" } },
    };
    expect(
      argsProblem(
        schema,
        args('{"xs": [1, 2], "grid": [[3]], "maybe": null, "maybe_list": [null, 4], "point": {"x": 9007199254740991}}'),
      ),
    ).toBeNull();
    const cases: [string, string][] = [
      ['{"xs": [1, 1e300]}', 'parameter "xs" (at /xs/1)'],
      ['{"grid": [[1], [2, 9007199254740993]]}', 'parameter "grid" (at /grid/1/1)'],
      ['{"maybe": 1e300}', 'parameter "maybe" must'],
      ['{"maybe_list": [null, -1e300]}', 'parameter "maybe_list" (at /maybe_list/1)'],
      ['{"point": {"x": 9007199254740993}}', 'parameter "point" (at /point/x)'],
    ];
    for (const [text, where] of cases) expect(argsProblem(schema, args(text))?.detail, text).toContain(where);
  });

  it("a union decides by its members: integer-or-string refuses 1e300, integer-or-number takes it as a number", () => {
    expect(
      argsProblem(obj({ v: { anyOf: [{ type: "integer" }, { type: "string" }] } }), args('{"v": 1e300}'))?.detail,
    ).toContain('parameter "v"');
    expect(
      argsProblem(obj({ v: { anyOf: [{ type: "integer" }, { type: "number" }] } }), args('{"v": 1e300}')),
    ).toBeNull();
    expect(argsProblem(obj({ v: { type: ["integer", "number"] } }), args('{"v": 1e300}'))).toBeNull();
    expect(argsProblem(obj({ f: { type: "number" } }), args('{"f": 1e300}'))).toBeNull();
  });

  it("a schema's own bounds still speak for themselves", () => {
    const small = obj({ n: { type: "integer", maximum: 10 } });
    expect(argsProblem(small, args('{"n": 11}'))?.detail).toBe("/n must be <= 10");
    expect(argsProblem(obj({ n: { type: "integer", minimum: 0 } }), args('{"n": 1e300}'))?.detail).toContain(
      "±(2^53−1)",
    );
  });
});

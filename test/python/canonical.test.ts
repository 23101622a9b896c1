// canonical_json (RFC 8785) must be byte-identical to the host's npm `canonicalize`: the host
// recomputes the result hash, so any difference fails every call closed. (The reply's HMAC is
// computed in JavaScript, outside Python: workers/hmac-sha256.test.ts.)
import { describe, expect, it } from "vitest";
import canonicalize from "canonicalize";
import { HAS_PYTHON, SKIP_REASON, runJobs, type Reply } from "./pyrun.ts";

// Python expressions, so values JSON text cannot carry (-0.0, exact floats) are built in Python.
const BATTERY = [
  "1e21",
  "1e20",
  "-1e21",
  "1e-7",
  "1e-6",
  "1.5e-7",
  "0.000001",
  "0.1",
  "0.2 + 0.1",
  "-0.0",
  "0.0",
  "5e-324",
  "1.7976931348623157e308",
  "-1.7976931348623157e308",
  "2.2250738585072014e-308",
  "123456789012345680000.0",
  "1234567890123456789012.0",
  "100.0",
  "1.0",
  "-1.25",
  "2**53 - 1",
  "-(2**53 - 1)",
  "0",
  "7",
  "1/3",
  "2/3",
  "9007199254740993.0",
  "123e-20",
  "4.35",
  "0.5e-6",
  "True",
  "False",
  "None",
  "''",
  "'\\x00\\x01\\x1f\\x7f'",
  "'\\b\\f\\n\\r\\t\"\\\\/'",
  "'\\u2028\\u2029'",
  "'é ü 中文 😀 \\U0010ffff'",
  "{}",
  "[]",
  "[[], {}, [[]]]",
  "{'b': 1, 'a': 2, 'A': 3, '': 4, 'é': 5, '\\ue000': 6, '😀': 7, '\\uffff': 8, '😀b': 9, 'aa': 10}",
  "{'z': {'y': [3, {'b': None, 'a': True}], 'x': -0.0}, 'a': [1e21, 1e-7, 'x']}",
  // RFC 8785 §3.2.2 example input
  "{'numbers': [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], 'string': '\\u20ac$\\u000F\\u000aA\\'\\u0042\\u0022\\u005c\\\\\"/', 'literals': [None, True, False]}",
];

describe.skipIf(!HAS_PYTHON)(`canonical_json vs npm canonicalize (CPython)${SKIP_REASON}`, () => {
  it("is byte-identical on a battery of edge values", () => {
    const replies = runJobs(BATTERY.map((expr) => ({ op: "canonical", expr })));
    replies.forEach((r: Reply, i: number) => {
      expect(r.raised, BATTERY[i]).toBeUndefined();
      expect(r.canonical, BATTERY[i]).toBe(canonicalize(JSON.parse(r.json)));
    });
    // Spot checks against the ECMAScript spellings.
    const byExpr = (e: string) => replies[BATTERY.indexOf(e)].canonical;
    expect(byExpr("1e21")).toBe("1e+21");
    expect(byExpr("1e-7")).toBe("1e-7");
    expect(byExpr("-0.0")).toBe("0");
    expect(byExpr("5e-324")).toBe("5e-324");
    expect(byExpr("100.0")).toBe("100");
    expect(byExpr("'\\x00\\x01\\x1f\\x7f'")).toBe('"\\u0000\\u0001\\u001f\u007f"');
    expect(byExpr(BATTERY[BATTERY.length - 1] as string)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("is byte-identical on 3,000 random doubles and random strings/keys", () => {
    let state = 0x9e3779b97f4a7c15n;
    const next = () => {
      state ^= state << 13n;
      state &= 0xffffffffffffffffn;
      state ^= state >> 7n;
      state ^= state << 17n;
      state &= 0xffffffffffffffffn;
      return state;
    };
    const view = new DataView(new ArrayBuffer(8));
    const numbers: number[] = [];
    while (numbers.length < 3000) {
      view.setBigUint64(0, next());
      const x = view.getFloat64(0);
      if (Number.isFinite(x)) numbers.push(x);
      const scale = Number(next() % 60n) - 30;
      numbers.push(Number(next() % 1000000n) * 10 ** scale);
    }
    const pick = () => {
      const r = Number(next() % 10n);
      if (r < 2) return Number(next() % 0x20n);
      if (r < 4) return 0x20 + Number(next() % 0x60n);
      if (r < 7) return Number(next() % 0xd800n);
      if (r < 8) return 0xe000 + Number(next() % 0x2000n);
      return 0x10000 + Number(next() % 0xfffffn);
    };
    const str = () => String.fromCodePoint(...Array.from({ length: Number(next() % 12n) }, pick));
    const objects = Array.from({ length: 200 }, () =>
      Object.fromEntries(Array.from({ length: 6 }, () => [str(), str()])),
    );
    const value = { numbers, objects };
    const [r] = runJobs([{ op: "canonical_json_text", text: JSON.stringify(value) }]);
    expect(r.raised).toBeUndefined();
    expect(r.canonical === canonicalize(value)).toBe(true);
  });

  it("refuses what canonicalize refuses, and what JSON cannot carry", () => {
    const refused = [
      "float('nan')",
      "float('inf')",
      "'\\ud800'",
      "{'\\udfff': 1}",
      "{1: 2}",
      "{1, 2}",
      "b'x'",
      "object()",
      "10**400",
    ];
    const replies = runJobs(refused.map((expr) => ({ op: "canonical", expr })));
    replies.forEach((r: Reply, i: number) => expect(r.raised, refused[i]).toMatch(/Error/));
    expect(() => canonicalize(NaN)).toThrow();
    expect(() => canonicalize("\ud800")).toThrow();
  });
});

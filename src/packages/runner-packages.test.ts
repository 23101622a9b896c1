// The runner's own side of Python packages, through a real Node runner process:
// wheels sent in the job are hashed again before any Python runs (bytes that are not the lock's are
// refused with python_package_hash_mismatch, and nothing is imported), and installed with
// Pyodide's installer so the tools file imports them, for discover and for call.
import { afterAll, describe, expect, it } from "vitest";
import { sha256Bytes } from "../contract/hash.ts";
import { createNodeRunnerHost } from "../runner/node.ts";
import { buildWheel } from "../../test/wheels.ts";
import type { PackageWheel } from "../../workers/protocol.ts";

// The default snapshot cache, shared with the other runner tests.
const host = createNodeRunnerHost({ spares: 0 });
afterAll(() => host.close());

const wheel = buildWheel({
  name: "edgepkg-gamma",
  version: "2.0.0",
  imports: ["edgegamma"],
  files: { "edgegamma.py": "MARK = 'from the wheel'\n" },
});
const given = (bytes: Uint8Array, sha256 = `sha256:${wheel.sha256}`): PackageWheel[] => [
  { name: "edgepkg-gamma", file_name: wheel.file_name, install_dir: "site", sha256, bytes },
];
const TOOLS = new TextEncoder().encode(`from edgestudio.tools import edge_tool
import edgegamma

@edge_tool
def mark() -> dict:
    return {"mark": edgegamma.MARK}
`);

describe("packages in a runner job", () => {
  it("installs the wheel before the tools file is imported; refuses bytes that are not the lock's", {
    timeout: 180_000,
  }, async () => {
    const expectedSha256 = await sha256Bytes(TOOLS);
    const job = { bytes: TOOLS, expectedSha256, filename: "tools.py" };
    const ok = await host.discover({ ...job, packages: given(wheel.bytes) });
    expect(ok.errors).toEqual([]);
    expect(ok.tools.map((t) => t.schema.name)).toEqual(["mark"]);

    const called = await host.call({
      ...job,
      toolName: "mark",
      args: {},
      outputSchema: null,
      packages: given(wheel.bytes),
    });
    expect(called.ok, JSON.stringify(called.error)).toBe(true);
    expect(called.result).toEqual({ mark: "from the wheel" });

    const tampered = new Uint8Array(wheel.bytes);
    tampered[20] = tampered[20]! ^ 1;
    const refused = await host.call({
      ...job,
      toolName: "mark",
      args: {},
      outputSchema: null,
      packages: given(tampered),
    });
    expect(refused.ok).toBe(false);
    expect(refused.error?.code).toBe("python_package_hash_mismatch");
    expect(refused.tools_file_sha256_verified).toBe(false); // refused before the tools file was looked at
    const noPackage = await host.discover(job);
    expect(noPackage.errors[0]).toMatchObject({ code: "tools_file_import_failed", module: "edgegamma" });
  });
});

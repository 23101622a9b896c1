// Discoveries kept between one-shot commands (discovery-cache.ts, node-discovery-cache.ts), through
// the real CLI as a person runs it, each command with runners of its own (no keeper): `tools
// validate` keeps what it discovered, `tools call` uses it, a kept entry is believed only with the
// host key's signature, and whatever the entry says, the call's runner derives the tool's schema
// again and does not call a tool whose schema is not the frozen one.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { edgeCliWithEnv, writeTestFile } from "../../test/cli.ts";
import { macOf } from "./node-snapshot.ts";

const tmp = mkdtempSync(join(tmpdir(), "edge-discoveries-"));
const CONFIG = join(tmp, "config");
const ENV = { ...process.env, EDGE_DATA_DIR: join(tmp, "data"), XDG_CONFIG_HOME: CONFIG, EDGE_RUNNER_KEEPER: "0" };
const KEPT = join(tmp, "data", "cache.discoveries");
/** The tools files' folder (their project): apart from the data folder. */
const TOOLS_DIR = join(tmp, "project");

/** A tools file in TOOLS_DIR. */
function toolsFile(name: string, body: string): string {
  mkdirSync(TOOLS_DIR, { recursive: true });
  return writeTestFile(TOOLS_DIR, name, body);
}

const TOOLS = toolsFile(
  "tools.py",
  `from edgestudio.tools import edge_tool


@edge_tool(description="Greets someone.")
def greet(name: str) -> dict:
    print("greeting", name)
    return {"greeting": f"hello {name}"}
`,
);
const GREET = ["tools", "call", TOOLS, "greet", "--args", '{"name": "Ada"}', "--json"];

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The one kept entry: its file and what it holds. */
function keptEntry(): { file: string; entry: { format: string; key: string; reply: string; mac: string } } {
  const names = readdirSync(KEPT).filter((n) => n.endsWith(".json"));
  expect(names).toHaveLength(1);
  const file = join(KEPT, names[0]!);
  return { file, entry: JSON.parse(readFileSync(file, "utf8")) };
}

describe("a discovery kept between commands", () => {
  it("validate keeps it, call uses it; an entry that says another schema is refused by the call's runner and forgotten", async () => {
    const validated = await edgeCliWithEnv(ENV, "tools", "validate", TOOLS);
    expect(validated.code).toBe(0);
    const { file, entry } = keptEntry();
    expect(entry.key).toMatch(/^[0-9a-f]{64}$/);

    // An entry as the host would sign it, but describing greet otherwise: the call believes it,
    // checks the arguments against it, and its runner refuses to call a tool of another schema.
    const reply = JSON.parse(entry.reply);
    reply.tools[0].schema.description = "Greets someone (forged).";
    const forged = { format: entry.format, key: entry.key, reply: JSON.stringify(reply) };
    const hostKey = readFileSync(join(CONFIG, "edge-web", "runner-snapshot.key"), "utf8").trim();
    writeFileSync(file, JSON.stringify({ ...forged, mac: macOf(hostKey, forged) }));
    const refused = await edgeCliWithEnv(ENV, ...GREET);
    expect(refused.code).toBe(1);
    expect(refused.json.error.code).toBe("tool_schema_changed");
    expect(refused.json.error.message).toContain("it was not called");
    expect(refused.json.stderr ?? "").not.toContain("greeting"); // greet never ran
    expect(readdirSync(KEPT).filter((n) => n.endsWith(".json"))).toEqual([]); // forgotten

    // The next call discovers again, keeps that, and runs.
    const called = await edgeCliWithEnv(ENV, ...GREET);
    expect(called.code).toBe(0);
    expect(called.json).toMatchObject({ ok: true, result: { greeting: "hello Ada" }, runner_secret_verified: true });
    expect(JSON.parse(keptEntry().entry.reply).tools[0].schema.description).toBe("Greets someone.");
  }, 300_000);

  it("an entry without the host key's signature is not believed: the call discovers and runs", async () => {
    const { file, entry } = keptEntry();
    const reply = JSON.parse(entry.reply);
    reply.tools[0].schema.description = "Greets someone (unsigned).";
    writeFileSync(file, JSON.stringify({ ...entry, reply: JSON.stringify(reply) }));
    const called = await edgeCliWithEnv(ENV, ...GREET);
    expect(called.code).toBe(0);
    expect(called.json.result).toEqual({ greeting: "hello Ada" });
  }, 300_000);

  it("a tools file whose schema changes at every import is refused at the call, with a receipt that says why", async () => {
    const drifting = toolsFile(
      "drifting.py",
      `import random
from edgestudio.tools import edge_tool


@edge_tool(description=f"Draws {random.random()}.")
def draw(n: int) -> dict:
    return {"n": n}
`,
    );
    const r = await edgeCliWithEnv(ENV, "tools", "call", drifting, "draw", "--args", '{"n": 1}', "--json");
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe("tool_schema_changed");
    const receipts = await edgeCliWithEnv(ENV, "receipts", "list", "--json");
    const last = receipts.json.receipts?.at?.(-1) ?? receipts.json.at?.(-1);
    expect(JSON.stringify(last)).toContain("tool_schema_changed");
  }, 300_000);
});

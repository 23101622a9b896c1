// Every command and group answers --help / -h with its own usage and exit 0, also in Edge Studio's
// `edge demo …` form; `edge --version` prints package.json's version; usage errors exit 2 and name
// the --help to read. The walk is over the command table, so a new command cannot ship without help.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cli } from "../../test/cli.ts";
import { COMMANDS, commandName, groupsOf } from "./commands.ts";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

describe("edge --help on every command of the table", () => {
  it("has a summary and a usage that starts with the command itself", () => {
    expect(COMMANDS.length).toBeGreaterThan(25);
    for (const c of COMMANDS) {
      expect(c.summary.length, commandName(c.path)).toBeGreaterThan(10);
      expect(c.usage.startsWith(commandName(c.path)), commandName(c.path)).toBe(true);
    }
    const names = COMMANDS.map((c) => c.path.join(" "));
    expect(new Set(names).size).toBe(names.length);
  });

  it("prints each command's own usage, exit 0, for --help and -h, with and without `demo`", async () => {
    for (const c of COMMANDS) {
      for (const argv of [
        [...c.path, "--help"],
        ["demo", ...c.path, "-h"],
        [...c.path, "SOMETHING", "--json", "--help"],
      ]) {
        const r = await cli(...argv);
        expect(r.code, argv.join(" ")).toBe(0);
        expect(r.out, argv.join(" ")).toContain(c.usage.split("\n")[0]!);
        expect(r.err).toBe("");
      }
    }
  });

  it("answers a group's --help with its subcommands", async () => {
    for (const g of groupsOf()) {
      const r = await cli(...g, "--help");
      expect(r.code, g.join(" ")).toBe(0);
      for (const c of COMMANDS.filter((c) => g.every((w, i) => c.path[i] === w)))
        expect(r.out).toContain(commandName(c.path));
    }
    const top = await cli("--help");
    expect(top.code).toBe(0);
    for (const c of COMMANDS) expect(top.out).toContain(commandName(c.path));
    expect((await cli("help", "facts", "list")).out).toContain("edge facts list --store STORE");
  });

  it("--version prints package.json's version", async () => {
    for (const argv of [["--version"], ["demo", "--version"]]) {
      const r = await cli(...argv);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`edge ${pkg.version}\n`);
    }
    expect((await cli("--version", "--json")).json).toEqual({ ok: true, version: pkg.version });
  });

  it("usage errors exit 2 and say which command's --help to read", async () => {
    const call = await cli("tools", "call", "only-a-file.py");
    expect(call.code).toBe(2);
    expect(call.err).toContain("Run `edge tools call --help` for usage.");
    const flag = await cli("demo", "facts", "list", "--bogus", "--json");
    expect(flag.code).toBe(2);
    expect(flag.json.error).toMatchObject({ code: "usage_error" });
    expect(flag.json.error.message).toContain("`edge facts list --help`");
    const sub = await cli("tools", "frobnicate");
    expect(sub.code).toBe(2);
    expect(sub.err).toContain("`edge tools --help`");
    const unknown = await cli("nothing");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("`edge --help`");
    // No words at all: the overview, as a usage error.
    const none = await cli();
    expect(none.code).toBe(2);
    expect(none.out).toContain("edge tools validate");
  });
});

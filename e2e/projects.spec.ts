// A tools project in the playground: a folder (<input webkitdirectory>) or a zip becomes
// the source; the editor lists its files; a tool imports its sibling module and reads its data file
// in the sandboxed runner; an edit of the sibling after the freeze fails closed naming it; the
// receipt carries the same tools_bundle_sha256 the Node side computes for the same files.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "./fixtures.ts";
import { zipSync } from "fflate";
import { freezeProject } from "../src/toolset/project.ts";
import { storedReceipts, tryTool } from "./playground-helpers.ts";

const TOOLS = `import json, os
from edgestudio.tools import edge_tool
from helpers import RATE

with open("rates.json") as fh:
    RATES = json.load(fh)

@edge_tool(description="A quote from the sibling module's rate and the data file.")
def quote() -> dict:
    return {"total": 10 * RATE * RATES["basic"], "cwd": os.getcwd(), "seen": sorted(os.listdir("."))}
`;

function files(rate: number): Record<string, string> {
  return {
    "tools.py": TOOLS,
    "helpers.py": `RATE = ${rate}\n`,
    "rates.json": '{"basic": 1.5}',
    ".git/config": "[core]\n",
    "__pycache__/helpers.pyc": "x",
  };
}

test("a folder, then a zip, as a tools project: sibling module, data file, edited sibling refused, bundle hash as in Node", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const tmp = mkdtempSync(join(tmpdir(), "edge-e2e-project-"));
  try {
    const dir = join(tmp, "shop");
    for (const [rel, text] of Object.entries(files(2))) {
      mkdirSync(join(dir, rel, ".."), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    await page.goto("/");
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 90_000 });

    await page.locator("#folder-input").setInputFiles(dir);
    await expect(page.locator("#tools-status")).toContainText("Inspected shop/tools.py: 1 tool(s)", {
      timeout: 60_000,
    });
    await expect(page.locator("#tools-status")).toContainText("3 project files");
    await expect(page.locator("#session-info")).toContainText("1 active tool(s) of shop/tools.py");
    const listed = page.locator("#project-files .project-file");
    await expect(listed).toHaveText(["helpers.py", "rates.json", "tools.py"]);
    await expect(page.locator("#project-skipped")).toHaveText("Not mounted: .git (hidden), __pycache__ (pycache).");

    const first = await tryTool(page, "quote");
    expect(first.state, first.text).toBe("ok");
    expect(JSON.parse((await page.locator("#try-result").textContent())!)).toEqual({
      total: 30,
      cwd: "/tools",
      seen: ["helpers.py", "rates.json", "tools.py"],
    });

    // The editor shows the sibling; an edit there after the freeze is refused by the runner, by name.
    await listed.filter({ hasText: "helpers.py" }).click();
    await expect(page.locator("#file-name")).toHaveText("shop/helpers.py");
    await expect(page.locator("#editor .cm-content")).toContainText("RATE = 2");
    await page.locator("#editor .cm-content").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("RATE = 7\n");
    const edited = await tryTool(page, "quote");
    expect(edited.state).toBe("error");
    expect(edited.text).toContain("tools_file_changed");
    expect(edited.text).toContain("helpers.py changed after this session froze the tools project");

    // A zip of such a folder (one top folder inside), another rate: a new session with it.
    const enc = new TextEncoder();
    const zipFiles = files(4);
    const zip = zipSync(Object.fromEntries(Object.entries(zipFiles).map(([p, t]) => [`kiosk/${p}`, enc.encode(t)])));
    await page
      .locator("#zip-input")
      .setInputFiles({ name: "kiosk.zip", mimeType: "application/zip", buffer: Buffer.from(zip) });
    await expect(page.locator("#session-info")).toContainText("1 active tool(s) of kiosk/tools.py", {
      timeout: 60_000,
    });
    await expect(page.locator("#file-name")).toHaveText("kiosk/tools.py");
    await expect(listed).toHaveText(["helpers.py", "rates.json", "tools.py"]);
    const zipped = await tryTool(page, "quote");
    expect(zipped.state, zipped.text).toBe("ok");
    expect(JSON.parse((await page.locator("#try-result").textContent())!).total).toBe(60);

    // The receipt's tools_bundle_sha256 is the one Node computes for the same mounted files.
    const mounted = Object.fromEntries(
      ["tools.py", "helpers.py", "rates.json"].map((p) => [p, enc.encode(zipFiles[p]!)]),
    );
    const node = await freezeProject({ root: null, entry: "tools.py", files: mounted, skipped: [] });
    const last = (await storedReceipts(page)).at(-1)!;
    expect(last.tools_bundle_sha256).toBe(node.tools_bundle_sha256);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

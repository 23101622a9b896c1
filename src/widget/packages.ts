// Python packages in the <edge-chat> widget. The widget resolves nothing: a tools project served as
// a zip brings its pylock.toml beside the tools file (written by `edge packages lock` or the
// playground), and on first use the widget fetches the wheels the lock pins that this page does not
// hold yet — from the URLs the lock records, each checked against the lock's sha256 before it is
// stored (in the host page's Cache Storage, or in memory where the page has none). From then on the
// wheels come from storage, so the index need not be reachable. A project that declares
// dependencies without a lock is refused by the freeze (python_lock_missing) with the sentence below.
import { browserPackages, type BrowserPackages } from "../packages/browser.ts";
import { createMemoryPackageStore } from "../packages/store-memory.ts";
import type { ToolSource } from "../runner/host.ts";
import type { BrowserRunnerHost } from "../runner/browser/index.ts";
import { readSnapshot } from "../toolset/freeze.ts";

export function widgetPackages(host: () => Promise<BrowserRunnerHost>): BrowserPackages {
  // Cache Storage exists in secure contexts only (https, localhost).
  const memory =
    typeof caches === "undefined" ? { store: createMemoryPackageStore(), pypiStore: createMemoryPackageStore() } : {};
  return browserPackages({
    ownLock: async () => (await host()).sandbox.lockFileContents,
    ...memory,
    pyodidePins: "lock-url",
    steps: {
      lockStep: () => ({
        advice:
          "The widget does not resolve dependencies: lock them once with `edge packages lock` on the tools file (or “Lock dependencies” in the playground) and serve the tools project as a zip with that pylock.toml beside the tools file; the widget then fetches the wheels the lock pins from the URLs it records, each checked against its sha256.",
      }),
      addStep: (names) => ({
        advice: `The widget installs only packages a pylock.toml pins: declare ${names.join(", ")} in the tools file (a "# /// script" block) or a requirements.txt, lock it with \`edge packages lock\`, and serve the tools project as a zip with its pylock.toml.`,
      }),
    },
  });
}

/** Before the session freezes the project: fetch the wheels its pylock.toml pins that this page
 *  lacks. Nothing to do for a single tools file (no lock beside it) or a project without a lock; a
 *  missing, stale or damaged lock is left to the freeze, which says so. */
export async function fetchPinnedWheels(
  source: ToolSource,
  packages: BrowserPackages,
  onStatus?: (text: string) => void,
): Promise<void> {
  if (!source.readProject) return;
  const snapshot = await readSnapshot(source);
  const plan = await packages.pinned(snapshot).catch(() => undefined);
  if (!plan?.missing.length) return;
  const size = plan.bytes !== undefined ? `, ${Math.max(1, Math.round(plan.bytes / 1e3))} KB` : "";
  onStatus?.(`Fetching ${plan.missing.length} Python package wheel(s) pinned by ${plan.path}${size}…`);
  await packages.addPinned(plan);
}

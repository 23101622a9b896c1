// The tools panel's Python packages. A project that declares dependencies without a usable
// pylock.toml gets "Lock dependencies" (packages-lock.ts). A project whose lock (or whose imports of
// Pyodide's packages) needs wheels this browser does not hold says which, with sizes and sources,
// and downloads them only when the person chooses Download — each wheel checked against its
// sha256 before it is stored (src/packages/browser.ts). Below, what this browser holds, with
// Remove. The sandbox itself never gets network.
import { toErrorJson, type ErrorJson } from "../contract/errors.ts";
import type { DownloadPlan, PinnedPlan, StoredWheelRow } from "../packages/browser.ts";
import { readSnapshot, type ToolsetReport } from "../toolset/freeze.ts";
import type { App } from "./app.ts";
import { bytes, errorText, h, replace, setStatus } from "./dom.ts";
import { LOCK_CODES, mountLockSection } from "./packages-lock.ts";

const WHEEL_CODES = new Set(["python_package_missing", "python_package_hash_mismatch"]);

/** Pyodide package names an error asks for (python_package_missing's `packages`, a mismatch's
 *  `package`); a pinned wheel's "name version" entries are the lock's, not names. */
function pyodideNames(e: ErrorJson): string[] {
  const list = Array.isArray(e.packages) ? e.packages : typeof e.package === "string" ? [e.package] : [];
  return list.filter((n): n is string => typeof n === "string" && !/\s/.test(n));
}

function planText(count: number, size: number | undefined, unknown = "size not given by the source"): string {
  return `${count} wheel(s), ${size !== undefined ? bytes(size) : unknown}`;
}

export interface PackagesBox {
  /** Show what the report needs (and refresh the stored list). */
  render(report: ToolsetReport | null): void;
}

/** What the ask's Download does, and what follows it (inspect again). */
interface AskContext {
  app: App;
  ask: HTMLElement;
  inspect: () => Promise<void>;
}

export function mountPackagesBox(app: App, root: HTMLElement, inspect: () => Promise<void>): PackagesBox {
  const lockBox = h("div", { id: "packages-lock", class: "notice", hidden: true });
  const ask = h("div", { id: "packages-ask", class: "notice", hidden: true });
  const lockFile = h("div", { id: "packages-lockfile", class: "notice", hidden: true });
  const stored = h("details", { id: "packages-stored", hidden: true });
  replace(root, lockBox, lockFile, ask, stored);
  const lock = mountLockSection(app, lockBox, lockFile, inspect);
  const ctx: AskContext = { app, ask, inspect };
  let askToken = 0;
  let listToken = 0;

  async function renderAsk(error: ErrorJson | undefined, mine: number): Promise<void> {
    if (!error) return hide(ask);
    const status = statusLine();
    ask.hidden = false;
    replace(
      ask,
      h(
        "p",
        {},
        "This tools project needs Python packages that are not in this browser yet. Working out what to download…",
      ),
      status,
    );
    try {
      // The project's lock first (a freeze checks its pins first too), then Pyodide's packages.
      const pinned = await app.packages.pinned(await readSnapshot(app.toolSource())).catch(() => undefined);
      if (mine !== askToken) return;
      if (pinned?.missing.length) return showPinned(ctx, pinned);
      const names = pyodideNames(error);
      if (!names.length) return hide(ask);
      const plan = await app.packages.plan(names);
      if (mine === askToken) showPyodide(ctx, names, plan);
    } catch (err) {
      if (mine === askToken) setStatus(status, errorText(toErrorJson(err)), "error");
    }
  }

  const renderStored = (): Promise<void> => renderStoredList(app, stored, ++listToken, () => listToken, renderStored);

  return {
    render(report) {
      const errors = report?.errors ?? [];
      lock.render(errors.find((e) => LOCK_CODES.has(e.code)));
      void renderAsk(
        errors.find((e) => WHEEL_CODES.has(e.code)),
        ++askToken,
      );
      void renderStored();
    },
  };
}

function hide(node: HTMLElement): void {
  node.hidden = true;
  replace(node);
}

function statusLine(): HTMLElement {
  return h("p", { id: "packages-status", class: "status", role: "status", "aria-live": "polite" });
}

/** Download: fetch (each wheel checked before it is stored), then inspect again; an error keeps the button. */
async function downloadWith(
  ctx: AskContext,
  run: () => Promise<number>,
  button: HTMLButtonElement,
  status: HTMLElement,
): Promise<void> {
  button.disabled = true;
  setStatus(status, "Downloading and checking each wheel against its sha256…", "busy");
  try {
    const n = await run();
    setStatus(status, `Stored ${n} wheel(s); inspecting again…`, "ok");
    await ctx.inspect();
  } catch (err) {
    setStatus(status, `Download failed: ${errorText(toErrorJson(err))}`, "error");
    button.disabled = false;
  }
}

/** The wheels a project's pylock.toml pins that this browser lacks: name, version, size, source. */
function showPinned(ctx: AskContext, plan: PinnedPlan): void {
  const { app, ask } = ctx;
  const status = statusLine();
  const button = h(
    "button",
    { type: "button", id: "packages-download", class: "primary" },
    `Download ${planText(plan.missing.length, plan.bytes)}`,
  );
  button.addEventListener(
    "click",
    () => void downloadWith(ctx, async () => (await app.packages.addPinned(plan)).length, button, status),
  );
  const fromPyodide = plan.missing.some((p) => p.source === "pyodide-lock");
  replace(
    ask,
    h("p", {}, `The tools project's ${plan.path} pins wheels that are not in this browser yet:`),
    h(
      "ul",
      { id: "packages-plan" },
      ...plan.missing.map((p) =>
        h(
          "li",
          { "data-package": p.name, "data-source": p.source },
          `${p.name} ${p.version}`,
          h("span", { class: "muted" }, ` · ${p.bytes !== undefined ? bytes(p.bytes) : "size unknown"} · ${p.source}`),
        ),
      ),
    ),
    h(
      "p",
      { class: "muted" },
      `From the URLs in ${plan.path}${fromPyodide ? ` (Pyodide's own wheels from ${app.packages.source.location})` : ""}. Each wheel is checked against the sha256 the lock pins before it is stored in this browser; the tools then run with it in the sandbox, which has no network.`,
    ),
    button,
    status,
  );
}

/** Pyodide's own packages the project imports (its lock, dependencies included). */
function showPyodide(ctx: AskContext, names: string[], plan: DownloadPlan): void {
  const { app, ask } = ctx;
  const status = statusLine();
  const fetched = plan.packages.filter((p) => !p.stored);
  const button = h(
    "button",
    { type: "button", id: "packages-download", class: "primary" },
    `Download ${planText(fetched.length, plan.bytes)}`,
  );
  button.addEventListener(
    "click",
    () =>
      void downloadWith(
        ctx,
        async () => (await app.packages.add(names)).filter((p) => p.status === "added").length,
        button,
        status,
      ),
  );
  replace(
    ask,
    h("p", {}, "This tools project needs Python packages that are not in this browser yet:"),
    h(
      "ul",
      { id: "packages-plan" },
      ...plan.packages.map((p) =>
        h(
          "li",
          { "data-package": p.name },
          `${p.name} ${p.version}`,
          h(
            "span",
            { class: "muted" },
            p.stored
              ? " · already stored"
              : ` · ${p.bytes !== undefined ? bytes(p.bytes) : "size unknown"}${names.includes(p.name) ? "" : " · a dependency"}`,
          ),
        ),
      ),
    ),
    h(
      "p",
      { class: "muted" },
      `From ${plan.source}. Each wheel is checked against ${app.packages.provider.lockName} before it is stored in this browser; the tools then run with it in the sandbox, which has no network.`,
    ),
    button,
    status,
  );
}

/** "Python packages in this browser": every stored wheel (Pyodide's and pinned ones), with Remove.
 *  `mine`/`latest`: a slower, older listing is not shown over a newer one. */
async function renderStoredList(
  app: App,
  stored: HTMLElement,
  mine: number,
  latest: () => number,
  again: () => Promise<void>,
): Promise<void> {
  let rows: StoredWheelRow[];
  try {
    rows = await app.packages.stored();
  } catch {
    return; // storage unavailable: inspect shows why when it matters
  }
  if (mine !== latest()) return;
  stored.hidden = rows.length === 0;
  if (!rows.length) return replace(stored);
  const total = rows.reduce((n, p) => n + p.bytes, 0);
  replace(
    stored,
    h("summary", {}, `Python packages in this browser: ${rows.length} (${bytes(total)})`),
    h(
      "ul",
      { class: "packages-list" },
      ...rows.map((p) => {
        const remove = h(
          "button",
          { type: "button", class: "link", "aria-label": `Remove ${p.name} ${p.version} (${p.source})` },
          "Remove",
        );
        remove.addEventListener("click", () => {
          remove.disabled = true;
          void app.packages.removeStored(p).then(again, () => (remove.disabled = false));
        });
        return h(
          "li",
          { "data-package": p.name, "data-source": p.source },
          `${p.name} ${p.version} · ${bytes(p.bytes)} · ${p.source} `,
          remove,
        );
      }),
    ),
  );
}

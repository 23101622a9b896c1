// The tools panel's Python packages: when an inspect finds that the project imports packages of
// the lock that this browser does not hold yet (python_package_missing), it says which, with their
// sizes and where they would come from, and downloads them only when the person chooses Download
// (each wheel checked against the lock's sha256 before it is stored; src/packages/browser.ts).
// Below it, what this browser holds, with Remove. The sandbox itself never gets network.
import { toErrorJson } from "../contract/errors.ts";
import type { DownloadPlan } from "../packages/browser.ts";
import type { ToolsetReport } from "../toolset/freeze.ts";
import type { App } from "./app.ts";
import { bytes, errorText, h, replace, setStatus } from "./dom.ts";

/** The package names a report asks for (python_package_missing's `packages`), or none. */
function missingPackages(report: ToolsetReport | null): string[] {
  const e = report?.errors.find((x) => x.code === "python_package_missing");
  return Array.isArray(e?.packages) ? e.packages.filter((n): n is string => typeof n === "string") : [];
}

function planText(plan: DownloadPlan): string {
  const fetched = plan.packages.filter((p) => !p.stored);
  const size = plan.bytes !== undefined ? bytes(plan.bytes) : "size not given by the source";
  return `${fetched.length} wheel(s), ${size}`;
}

export interface PackagesBox {
  /** Show what the report needs (and refresh the stored list). */
  render(report: ToolsetReport | null): void;
}

export function mountPackagesBox(app: App, root: HTMLElement, inspect: () => Promise<void>): PackagesBox {
  const ask = h("div", { id: "packages-ask", class: "notice", hidden: true });
  const stored = h("details", { id: "packages-stored", hidden: true });
  replace(root, ask, stored);
  let askToken = 0;
  let listToken = 0;

  async function download(names: string[], button: HTMLButtonElement, status: HTMLElement): Promise<void> {
    button.disabled = true;
    setStatus(status, "Downloading and checking each wheel against the lock…", "busy");
    try {
      const added = await app.packages.add(names);
      setStatus(status, `Stored ${added.filter((p) => p.status === "added").length} wheel(s); inspecting again…`, "ok");
      await inspect();
    } catch (err) {
      setStatus(status, `Download failed: ${errorText(toErrorJson(err))}`, "error");
      button.disabled = false;
    }
  }

  async function renderAsk(names: string[], mine: number): Promise<void> {
    if (!names.length) {
      ask.hidden = true;
      replace(ask);
      return;
    }
    const status = h("p", { id: "packages-status", class: "status", role: "status", "aria-live": "polite" });
    ask.hidden = false;
    replace(ask, h("p", {}, `This tools project imports Python packages that are not in this browser yet: ${names.join(", ")}. Working out what to download…`), status);
    let plan: DownloadPlan;
    try {
      plan = await app.packages.plan(names);
    } catch (err) {
      if (mine === askToken) setStatus(status, errorText(toErrorJson(err)), "error");
      return;
    }
    if (mine !== askToken) return;
    const button = h("button", { type: "button", id: "packages-download", class: "primary" }, `Download ${planText(plan)}`);
    button.addEventListener("click", () => void download(names, button, status));
    replace(
      ask,
      h("p", {}, "This tools project needs Python packages that are not in this browser yet:"),
      h(
        "ul",
        { id: "packages-plan" },
        ...plan.packages.map((p) =>
          h("li", { "data-package": p.name }, `${p.name} ${p.version}`, h("span", { class: "muted" }, p.stored ? " · already stored" : ` · ${p.bytes !== undefined ? bytes(p.bytes) : "size unknown"}${names.includes(p.name) ? "" : " · a dependency"}`)),
        ),
      ),
      h("p", { class: "muted" }, `From ${plan.source}. Each wheel is checked against ${app.packages.provider.lockName} before it is stored in this browser; the tools then run with it in the sandbox, which has no network.`),
      button,
      status,
    );
  }

  async function renderStored(mine: number): Promise<void> {
    let listing;
    try {
      listing = await app.packages.list();
    } catch {
      return; // no lock (yet): nothing to list; inspect shows why
    }
    if (mine !== listToken) return;
    const rows = listing.packages;
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
          const remove = h("button", { type: "button", class: "link", "aria-label": `Remove ${p.name}` }, "Remove");
          remove.addEventListener("click", () => {
            remove.disabled = true;
            void app.packages.remove([p.name]).then(() => renderStored(++listToken), () => (remove.disabled = false));
          });
          return h("li", { "data-package": p.name }, `${p.name} ${p.version} · ${bytes(p.bytes)} `, remove);
        }),
      ),
    );
  }

  return {
    render(report) {
      void renderAsk(missingPackages(report), ++askToken);
      void renderStored(++listToken);
    },
  };
}

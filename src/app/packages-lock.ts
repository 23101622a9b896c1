// The packages box's lock section: a project that declares dependencies (PEP 723, requirements.txt)
// without a usable pylock.toml (python_lock_missing, _stale, _invalid) gets "Lock dependencies":
// resolved in this page against the package index (PyPI, or ?package-index=) with the CLI's own
// code, the lock put into the project held in this page (the next inspect and freeze use it) and
// offered as a file to save beside the tools file. The wheels it pins are the Download's
// (packages-box.ts): locking downloads nothing beyond what resolving needs.
import { toErrorJson, type ErrorJson } from "../contract/errors.ts";
import { readSnapshot } from "../toolset/freeze.ts";
import type { App } from "./app.ts";
import { download, errorText, h, replace, setStatus } from "./dom.ts";

export const LOCK_CODES: ReadonlySet<string> = new Set([
  "python_lock_missing",
  "python_lock_stale",
  "python_lock_invalid",
]);

/** A lock this page wrote, while the project still holds it. */
interface Written {
  path: string;
  text: string;
  summary: string;
}

export interface LockSection {
  /** The report's lock problem (or none), and the lock this page wrote while the project holds it. */
  render(error: ErrorJson | undefined): void;
}

export function mountLockSection(
  app: App,
  lockBox: HTMLElement,
  lockFile: HTMLElement,
  inspect: () => Promise<void>,
): LockSection {
  let written: Written | null = null;
  const hide = (node: HTMLElement): void => {
    node.hidden = true;
    replace(node);
  };

  /** "Lock dependencies": resolve, put pylock.toml into the project, offer it to save, inspect again. */
  async function lockDependencies(button: HTMLButtonElement, status: HTMLElement): Promise<void> {
    button.disabled = true;
    setStatus(status, `Resolving the declared dependencies against ${app.packages.indexUrl}…`, "busy");
    try {
      const snapshot = await readSnapshot(app.toolSource());
      const outcome = await app.packages.lockProject(snapshot);
      const text = outcome.text ?? new TextDecoder().decode(snapshot.files[outcome.path]);
      await app.putProjectFile(outcome.path, new TextEncoder().encode(text));
      const failed = outcome.packages.filter((p) => p.error);
      const names = outcome.packages.map((p) => `${p.name} ${p.version}`).join(", ");
      written = {
        path: outcome.path,
        text,
        summary: `Locked ${outcome.packages.length} package(s) for ${outcome.declared.sources.join(" and ")} against ${app.packages.indexUrl}: ${names}.${failed.length ? ` ${failed.map((p) => errorText(p.error)).join(" ")}` : ""}`,
      };
      setStatus(status, "Locked; inspecting again…", "ok");
      await inspect();
    } catch (err) {
      setStatus(status, `Lock failed: ${errorText(toErrorJson(err))}`, "error");
      button.disabled = false;
    }
  }

  function renderLock(error: ErrorJson | undefined): void {
    if (!error) return hide(lockBox);
    const why =
      error.code === "python_lock_missing"
        ? "This tools project declares dependencies, but no pylock.toml pins them yet."
        : error.code === "python_lock_stale"
          ? "The declared dependencies changed since pylock.toml was written."
          : "The project's pylock.toml cannot be used (see above).";
    const status = h("p", { id: "packages-lock-status", class: "status", role: "status", "aria-live": "polite" });
    const button = h("button", { type: "button", id: "packages-lock-button", class: "primary" }, "Lock dependencies");
    button.addEventListener("click", () => void lockDependencies(button, status));
    lockBox.hidden = false;
    replace(
      lockBox,
      h("p", {}, why),
      h(
        "p",
        { class: "muted" },
        `Lock dependencies resolves them (and what they depend on) against ${app.packages.indexUrl} into a pylock.toml that pins each wheel by its sha256, and puts it into the project in this page. The wheels themselves are downloaded only when you choose Download.`,
      ),
      button,
      status,
    );
  }

  /** The lock this page wrote, to save beside the tools file (while the project holds it). */
  function renderLockFile(): void {
    const m = app.sourceMode;
    const held = written && m.kind === "project" && m.project.files[written.path];
    if (!written || !held || new TextDecoder().decode(held) !== written.text) return hide(lockFile);
    const { path, text, summary } = written;
    const save = h("button", { type: "button", id: "packages-save" }, `Save ${path.split("/").at(-1)}`);
    save.addEventListener("click", () => download(path.split("/").at(-1)!, text, "application/toml"));
    const entry = m.kind === "project" ? m.project.entry.split("/").at(-1) : "the tools file";
    lockFile.hidden = false;
    replace(
      lockFile,
      h("p", {}, summary),
      h(
        "p",
        {},
        `${path} is now part of the tools project in this page. Save it and keep it beside ${entry}: the next time you open the project, the CLI and the widget then use exactly these wheels (nothing is resolved again).`,
      ),
      save,
    );
  }

  return {
    render(error) {
      renderLock(error);
      renderLockFile();
    },
  };
}

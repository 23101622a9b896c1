// The Workspace tab's goals of the current session: the goals file the goal built-ins keep in the
// workspace VFS (create_goal, update_goal), read back and shown as cards. All output is text.
import { goalsPath, type Goal } from "../builtins/goals.ts";
import type { EdgeVfs } from "../builtins/vfs/core.ts";
import { h, replace } from "./dom.ts";

/** The goals of session `sessionId` as cards (none without a session, or with an unreadable file). */
export function renderGoals(root: HTMLElement, vfs: EdgeVfs, sessionId: string | null): void {
  let goals: Goal[] = [];
  const data = sessionId ? vfs.readBytesIfFile(goalsPath(sessionId)) : null;
  if (data) {
    try {
      goals = (JSON.parse(new TextDecoder().decode(data)) as { goals?: Goal[] }).goals ?? [];
    } catch {
      goals = [];
    }
  }
  replace(
    root,
    h("h3", { id: "ws-goals-h" }, "Goals of this session"),
    goals.length
      ? h(
          "ul",
          { class: "card-list", id: "ws-goal-list" },
          ...goals.map((g) =>
            h(
              "li",
              { class: "card", "data-goal": g.goal_id },
              h("p", {}, h("span", { class: `badge goal-${g.status}` }, g.status), " ", g.objective),
              g.success_criteria ? h("p", { class: "small muted" }, `Done when: ${g.success_criteria}`) : null,
              g.notes.length ? h("p", { class: "small" }, `Last note: ${g.notes[g.notes.length - 1]}`) : null,
            ),
          ),
        )
      : h(
          "p",
          { class: "muted" },
          "No goals yet. With the goal built-ins on, the model records them here (create_goal, update_goal).",
        ),
  );
}

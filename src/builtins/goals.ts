// Goals (create_goal / get_goal / update_goal): the agent's own task notes, stored per session
// in the workspace at /.edge/goals/<session id>.json, so they survive a reload with the files.
// They change only this bookkeeping, never user files, so they are execution level "read"
// (no confirmation); they are not concurrency-safe (read-modify-write of one file).
import { EdgeError } from "../contract/errors.ts";
import { randomHex } from "../contract/hash.ts";
import { defineTool, type AnyToolDefinition } from "../runtime/index.ts";
import { BUILTIN_KIND, type BuiltinMeta } from "./shared.ts";
import type { EdgeVfs } from "./vfs/core.ts";

export const GOAL_STATUSES = ["active", "completed", "blocked", "abandoned"] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
const MAX_GOALS = 50;

export interface Goal {
  goal_id: string;
  objective: string;
  success_criteria: string;
  status: GoalStatus;
  notes: string[];
  created_at: string;
  updated_at: string;
}

const meta: BuiltinMeta = { kind: BUILTIN_KIND, writes: false };

export function goalsPath(sessionId: string): string {
  return `/.edge/goals/${sessionId.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`;
}

export function goalTools(vfs: EdgeVfs, sessionId: string): AnyToolDefinition[] {
  const file = goalsPath(sessionId);
  async function load(): Promise<Goal[]> {
    if (!(await vfs.exists(file))) return [];
    try {
      const v = JSON.parse(await vfs.readFile(file)) as { goals?: Goal[] };
      return Array.isArray(v.goals) ? v.goals : [];
    } catch {
      throw new EdgeError(
        "tool_raised",
        { path: file },
        `The goals file ${file} is not valid JSON (was it edited by hand?); fix or delete it.`,
      );
    }
  }
  const save = (goals: Goal[]) =>
    vfs.writeBytes(file, new TextEncoder().encode(JSON.stringify({ session_id: sessionId, goals }, null, 2)), {
      parents: true,
    });
  const find = (goals: Goal[], id: string): Goal => {
    const g = goals.find((x) => x.goal_id === id);
    if (!g)
      throw EdgeError.withTableFix(
        "goal_not_found",
        { goal_id: id },
        `No goal "${id}" in this session; the goals are: ${goals.map((x) => x.goal_id).join(", ") || "none"}.`,
      );
    return g;
  };

  const create = defineTool<{ objective: string; success_criteria?: string }>({
    name: "create_goal",
    description:
      "Record a goal for this session (what to achieve and how to know it is done). Returns the goal with its goal_id.",
    parameters: {
      type: "object",
      properties: {
        objective: { type: "string", minLength: 1, maxLength: 2000 },
        success_criteria: { type: "string", maxLength: 2000 },
      },
      required: ["objective"],
      additionalProperties: false,
    },
    meta,
    async execute({ objective, success_criteria }) {
      const goals = await load();
      if (goals.length >= MAX_GOALS)
        throw new EdgeError(
          "goal_limit_exceeded",
          { limit: MAX_GOALS },
          `This session already has ${MAX_GOALS} goals; change an existing one with update_goal instead.`,
        );
      const now = new Date().toISOString();
      const goal: Goal = {
        goal_id: `goal_${randomHex(6)}`,
        objective,
        success_criteria: success_criteria ?? "",
        status: "active",
        notes: [],
        created_at: now,
        updated_at: now,
      };
      await save([...goals, goal]);
      return { goal };
    },
  });

  const get = defineTool<{ goal_id?: string }>({
    name: "get_goal",
    description:
      "Get a goal by goal_id, or without goal_id the most recent active goal of this session (goal is null when there is none).",
    parameters: {
      type: "object",
      properties: { goal_id: { type: "string", minLength: 1, maxLength: 64 } },
      required: [],
      additionalProperties: false,
    },
    meta,
    async execute({ goal_id }) {
      const goals = await load();
      if (goal_id !== undefined) return { goal: find(goals, goal_id) };
      const active = goals.filter((g) => g.status === "active");
      return { goal: active[active.length - 1] ?? null, goals: goals.length };
    },
  });

  const update = defineTool<{ goal_id: string; status?: GoalStatus; note?: string }>({
    name: "update_goal",
    description: `Update a goal: set its status (${GOAL_STATUSES.join(", ")}) and/or add a progress note.`,
    parameters: {
      type: "object",
      properties: {
        goal_id: { type: "string", minLength: 1, maxLength: 64 },
        status: { type: "string", enum: [...GOAL_STATUSES] },
        note: { type: "string", minLength: 1, maxLength: 2000 },
      },
      required: ["goal_id"],
      additionalProperties: false,
    },
    meta,
    async execute({ goal_id, status, note }) {
      const goals = await load();
      const g = find(goals, goal_id);
      if (status === undefined && note === undefined)
        throw new EdgeError(
          "invalid_tool_args",
          { tool: "update_goal" },
          "update_goal needs a status, a note, or both; pass at least one of them.",
        );
      if (status) g.status = status;
      if (note) g.notes = [...g.notes, note].slice(-100);
      g.updated_at = new Date().toISOString();
      await save(goals);
      return { goal: g };
    },
  });
  return [create, get, update];
}

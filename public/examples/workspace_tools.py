"""Tools that read the person's workspace.

A tool that declares permissions=["read_local"] finds the workspace mounted read-only at
/workspace in its runner (a snapshot taken when the call starts); a tool without it finds no
/workspace at all. Writing there fails with PermissionError: results go back to the model as
the return value, never as files.
"""
import csv
import os

from edgestudio.tools import edge_tool

WORKSPACE = "/workspace"


@edge_tool(
    permissions=["read_local"],
    description="Summarize a CSV file of the workspace: its row count, columns and the sum of every numeric column.",
    intent_tags=["workspace"],
)
def summarize_csv(path: str = "data.csv") -> dict:
    with open(os.path.join(WORKSPACE, path), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    sums = {}
    for row in rows:
        for key, value in row.items():
            try:
                sums[key] = sums.get(key, 0) + float(value)
            except (TypeError, ValueError):
                pass
    return {"path": path, "rows": len(rows), "columns": list(rows[0].keys()) if rows else [], "sums": sums}


@edge_tool(permissions=["read_local"], description="List the workspace's files with their sizes.", intent_tags=["workspace"])
def list_workspace() -> dict:
    files = []
    for folder, _dirs, names in os.walk(WORKSPACE):
        for name in sorted(names):
            full = os.path.join(folder, name)
            files.append({"path": os.path.relpath(full, WORKSPACE), "bytes": os.path.getsize(full)})
    return {"files": files}


@edge_tool(permissions=["read_local"], description="Try to write a report next to the data (the workspace is read-only, so this fails).", intent_tags=["workspace"])
def write_report(text: str) -> dict:
    with open(os.path.join(WORKSPACE, "report.txt"), "w", encoding="utf-8") as f:
        f.write(text)
    return {"written": True}


@edge_tool(description="Whether this tool, which does not declare read_local, can see /workspace.")
def sees_workspace() -> dict:
    return {"exists": os.path.exists(WORKSPACE)}

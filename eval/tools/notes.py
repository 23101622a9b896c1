"""Eval tools: a small notes app with a commit tool that sends mail."""

from typing import Optional

from edgestudio.tools import edge_tool

NOTES = {"N-1": "Groceries: milk, eggs", "N-2": "Call the plumber on Monday"}


@edge_tool(description="Search the notes for a word or phrase.")
def search_notes(query: str) -> dict:
    return {"matches": [{"id": k, "text": v} for k, v in NOTES.items() if query.lower() in v.lower()]}


@edge_tool(description="Create a new note with a title, a body and optional tags.")
def create_note(title: str, body: str, tags: Optional[list[str]] = None) -> dict:
    return {"id": "N-3", "title": title, "tags": tags or []}


@edge_tool(
    description="Send an email. Needs explicit confirmation before it runs.",
    execution_level="commit",
    return_direct=True,
    output_schema={
        "type": "object",
        "properties": {"sent": {"type": "boolean"}, "to": {"type": "string"}},
        "required": ["sent", "to"],
        "additionalProperties": False,
    },
)
def send_email(to: str, subject: str, body: str) -> dict:
    return {"sent": True, "to": to}


@edge_tool(
    description="Delete a note by its id. Needs explicit confirmation before it runs.",
    execution_level="commit",
    return_direct=True,
    output_schema={
        "type": "object",
        "properties": {"deleted": {"type": "string"}},
        "required": ["deleted"],
        "additionalProperties": False,
    },
)
def delete_note(note_id: str) -> dict:
    return {"deleted": note_id}

"""Discovery: the @edge_tool functions of an imported tools file (isolation.py), in decoration
order, each checked (name, options, definition, output schema) and described as a tool whose
parameters schema.py generates from its type hints; duplicate names are errors."""

import inspect
import json
import re
import types

import edgestudio.tools as _edge_tools

from .canonical import canonical_json
from .isolation import MODULE_NAME
from .replies import _err
from .schema import _parameters_schema

_TOOL_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_EXECUTION_LEVELS = ("read", "prepare", "commit")
_PERMISSIONS = ("read_local",)


class _Tool:
    def __init__(self, func, name, line):
        self.func = func
        self.name = name
        self.line = line
        self.description = ""
        self.parameters = None
        self.execution_level = "read"
        self.return_direct = False
        self.output_schema = None
        self.intent_tags = []
        self.permissions = []

    def describe(self):
        return {
            "schema": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
                "execution_level": self.execution_level,
                "return_direct": self.return_direct,
                "output_schema": self.output_schema,
            },
            "intent_tags": self.intent_tags,
            "permissions": self.permissions,
            "line": self.line,
        }


def _discover_tools(job):
    """(valid tools, errors, number of decorated objects of the file)."""
    tools, errors = [], []
    candidates = [f for f in job.collected if getattr(f, "__module__", None) == MODULE_NAME]
    by_name = {}
    for func in candidates:
        tool, tool_errors = _build_tool(func, job)
        errors.extend(tool_errors)
        if tool is not None:
            by_name.setdefault(tool.name, []).append((tool, not tool_errors))
    # Duplicates: every later occurrence is an error, and no tool of a duplicated name is listed
    # (which of the two was meant is ambiguous).
    for name, entries in by_name.items():
        first = entries[0][0]
        for tool, _ in entries[1:]:
            errors.append(
                _err(
                    "duplicate_tool_name",
                    f"Tool name {name!r} (line {tool.line}) is already used by the tool defined on line {first.line}; "
                    "rename one of them (function name or name=).",
                    tool=name,
                    line=tool.line,
                )
            )
    for tool_list in by_name.values():
        if len(tool_list) == 1 and tool_list[0][1]:
            tools.append(tool_list[0][0])
    return tools, errors, len(candidates)


def _line_of(func, job):
    code = getattr(func, "__code__", None)
    if code is None:
        return job.def_lines.get(("class", getattr(func, "__name__", None)))
    return job.def_lines.get(code.co_firstlineno, code.co_firstlineno)


def _build_tool(func, job):
    """(tool or None, errors). A tool with a valid name is returned even when it has other
    errors so duplicate detection sees it; the caller lists only error-free tools."""
    meta = getattr(func, _edge_tools.TOOL_ATTRIBUTE, None)
    if not isinstance(meta, dict):
        return None, []
    line = _line_of(func, job)
    fname = getattr(func, "__name__", None) or type(func).__name__
    errors = []

    def fail(code, message, parameter=None):
        if not message.startswith("Tool "):
            message = f"Tool {label}: {message}"
        errors.append(_err(code, message, tool=label, parameter=parameter, line=line))

    # Name first: every other error names the tool.
    raw_name = meta.get("name")
    label = raw_name if isinstance(raw_name, str) else fname
    name = None
    if raw_name is not None and not isinstance(raw_name, str):
        fail("invalid_tool_metadata", f"@edge_tool name= must be a string, got {type(raw_name).__name__} ({raw_name!r}).")
    else:
        candidate = raw_name if raw_name is not None else fname
        if _TOOL_NAME_RE.fullmatch(candidate) and candidate.isascii():
            name = candidate
        else:
            fail(
                "invalid_tool_name",
                f"Tool name {candidate!r} does not match [A-Za-z_][A-Za-z0-9_]{{0,63}} (ASCII letters, digits, _; "
                "at most 64 characters, not starting with a digit); rename the function or pass name=.",
            )

    if meta.get("usage_error"):
        fail("invalid_tool_metadata", f"{meta['usage_error']}.")
    if meta.get("unknown_options"):
        known = ", ".join(_edge_tools.OPTION_DEFAULTS)
        fail(
            "invalid_tool_metadata",
            f"@edge_tool got unknown option(s) {', '.join(meta['unknown_options'])}; the options are {known}.",
        )

    definition_problem = _definition_problem(func)
    if definition_problem:
        fail("invalid_tool_definition", definition_problem)

    tool = _Tool(func, name, line)

    description = meta.get("description")
    if description is None:
        tool.description = _doc_first_line(func)
    elif isinstance(description, str):
        tool.description = description
    else:
        fail("invalid_tool_metadata", f"@edge_tool description= must be a string, got {type(description).__name__}.")

    tool.intent_tags = _string_list(meta.get("intent_tags"), "intent_tags", fail)
    permissions = _string_list(meta.get("permissions"), "permissions", fail)
    bad = [p for p in permissions if p not in _PERMISSIONS]
    if bad:
        fail("unsupported_permission", f"Permission(s) {', '.join(repr(p) for p in bad)} are not supported; only 'read_local' is.")
    tool.permissions = permissions

    level = meta.get("execution_level")
    if isinstance(level, str) and level in _EXECUTION_LEVELS:
        tool.execution_level = level
    else:
        fail("invalid_execution_level", f"execution_level={level!r} is not one of 'read', 'prepare', 'commit'.")
        level = None

    return_direct = meta.get("return_direct")
    if type(return_direct) is bool:
        tool.return_direct = return_direct
    else:
        fail("invalid_tool_metadata", f"@edge_tool return_direct= must be True or False, got {return_direct!r}.")
        return_direct = False

    output_schema = meta.get("output_schema")
    if level in ("prepare", "commit") and not return_direct:
        fail(
            "return_direct_output_schema_required",
            f"execution_level={level!r} requires return_direct=True and a closed output_schema.",
        )
    if output_schema is None:
        if return_direct or level in ("prepare", "commit"):
            why = "return_direct=True" if return_direct else f"execution_level={level!r}"
            fail(
                "return_direct_output_schema_required",
                f"{why} requires a closed output_schema "
                '({"type": "object", "properties": {...}, "additionalProperties": False}).',
            )
    else:
        problem = _output_schema_problem(output_schema)
        if problem:
            fail("invalid_output_schema", f"output_schema {problem}.")
        else:
            tool.output_schema = json.loads(canonical_json(output_schema))

    if not definition_problem:
        tool.parameters = _parameters_schema(func, label, line, errors)
    return (tool if name is not None else None), errors


def _definition_problem(func):
    if not isinstance(func, types.FunctionType):
        return f"@edge_tool must decorate a function, not a {type(func).__name__}."
    if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
        return "async functions cannot be tools; make it a plain def."
    if inspect.isgeneratorfunction(func):
        return "generator functions (yield) cannot be tools; return a dict or list instead."
    if func.__qualname__ != func.__name__:
        return "tools must be defined at the top level of the file (not in a class or another function)."
    return None


def _doc_first_line(func):
    doc = getattr(func, "__doc__", None)
    if isinstance(doc, str):
        for line in doc.splitlines():
            if line.strip():
                return line.strip()
    return ""


def _string_list(value, option, fail):
    if value is None:
        return []
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) and v for v in value):
        return list(value)
    fail("invalid_tool_metadata", f"@edge_tool {option}= must be a list of non-empty strings, got {value!r}.")
    return []


def _output_schema_problem(schema):
    if not isinstance(schema, dict):
        return f"must be a dict, got {type(schema).__name__}"
    try:
        canonical_json(schema)
    except (TypeError, ValueError) as exc:
        return f"is not plain JSON ({exc})"
    if schema.get("type") != "object":
        return 'must have "type": "object"'
    if not isinstance(schema.get("properties"), dict):
        return 'must have "properties": {...} (a dict, may be empty)'
    if schema.get("additionalProperties") is not False:
        return 'must be closed with "additionalProperties": False'
    return None

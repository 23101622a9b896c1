"""One tool call: the tools file verified and imported (isolation.py), the tool found
(discovery.py), its arguments checked against its parameters, the function run with output captured,
and its result made plain JSON with the sha256 of its canonical text (which the worker signs)."""

import json
import math
import traceback

from .isolation import _check_bytes, _format_tb, _sha256_json, _user_line
from .discovery import _discover_tools
from .replies import _err
from .schema import MAX_SAFE_INTEGER

MAX_RESULT_DEPTH = 256


def _call(job, source, expected_sha256, tool_name, args_json, expected_schema_sha256=None):
    data, error = _check_bytes(source, expected_sha256)
    error = job.check_project(expected_sha256) or error
    if error is not None:
        return {"error": error, "diagnostics": {}}
    error, tb_text = job.load(data)
    if error is not None:
        return {"error": error, "diagnostics": {"traceback": tb_text} if tb_text else {}}
    tools, errors, _ = _discover_tools(job)
    tool = next((t for t in tools if t.name == tool_name), None)
    if tool is None:
        own = [e["message"] for e in errors if e.get("tool") == tool_name]
        detail = f" It has errors: {' '.join(own)}" if own else ""
        return {"error": _err("unknown_tool", f"{job.filename} has no valid tool named {tool_name!r}.{detail}", tool=str(tool_name)), "diagnostics": {}}
    if expected_schema_sha256 is not None:
        schema_sha256 = _sha256_json(tool.describe()["schema"])
        if schema_sha256 != expected_schema_sha256:
            message = (
                f"Tool {tool.name} has the schema {schema_sha256} in this import of {job.filename}, not "
                f"{expected_schema_sha256} frozen for the session, so it was not called; make its signature and "
                "@edge_tool options fixed (not computed from the time or randomness), then start a new session."
            )
            return {
                "error": _err("tool_schema_changed", message, tool=tool.name),
                "diagnostics": {"expected_schema_sha256": str(expected_schema_sha256), "schema_sha256": schema_sha256},
            }
    try:
        args = json.loads(args_json)
    except (TypeError, ValueError) as exc:
        return {"error": _err("invalid_tool_args", f"The arguments are not JSON: {exc}", tool=tool.name), "diagnostics": {}}
    if not isinstance(args, dict):
        return {"error": _err("invalid_tool_args", "The arguments must be a JSON object.", tool=tool.name), "diagnostics": {}}
    properties = tool.parameters["properties"]
    unknown = [k for k in args if k not in properties]
    missing = [k for k in tool.parameters["required"] if k not in args]
    if unknown or missing:
        parts = []
        if unknown:
            parts.append(f"unknown: {', '.join(unknown)}")
        if missing:
            parts.append(f"missing: {', '.join(missing)}")
        return {"error": _err("invalid_tool_args", f"Arguments for {tool.name} do not match its parameters ({'; '.join(parts)}).", tool=tool.name), "diagnostics": {}}
    kwargs = {k: _coerce(v, properties[k]) for k, v in args.items()}
    try:
        value = job.run(tool.func, kwargs)
    except SystemExit as exc:
        return {
            "error": _err(
                "tool_raised",
                f"Tool {tool.name} called sys.exit({exc.code!r}) (SystemExit); tools must return a value or raise an exception.",
                tool=tool.name,
            ),
            "diagnostics": {"traceback": _format_tb(exc, job.filename)},
        }
    except BaseException as exc:
        summary = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        line = _user_line(exc, job.filename)
        return {
            "error": _err("tool_raised", f"Tool {tool.name} raised {summary}", tool=tool.name, line=line),
            "diagnostics": {"traceback": _format_tb(exc, job.filename)},
        }
    try:
        result = _normalize(value)
    except _BadResult as exc:
        return {
            "error": _err("unsupported_tool_result", f"Tool {tool.name} returned something that is not plain JSON: {exc}", tool=tool.name),
            "diagnostics": {},
        }
    digest = _sha256_json(result)
    return {"ok": True, "result": result, "result_sha256": digest}


def _coerce(value, schema):
    """JSON integers for float parameters become floats (the host's JSON cannot tell 1 from 1.0)."""
    types_ = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    if "number" in types_ and type(value) is int:
        return float(value)
    if "array" in types_ and isinstance(value, list):
        return [_coerce(v, schema["items"]) for v in value]
    return value


class _BadResult(Exception):
    pass


def _normalize(value):
    if isinstance(value, dict):
        return _plain(value, "result", 0, set())
    return {"result": _plain(value, "result", 0, set())}


def _plain(value, path, depth, active):
    """A copy of value made of plain JSON types, or _BadResult naming where it is not JSON."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        text = str.__str__(value)
        if any("\ud800" <= ch <= "\udfff" for ch in text):
            raise _BadResult(f"{path} is a string with a lone surrogate")
        return text
    if isinstance(value, int):
        number = int.__int__(value)
        if abs(number) > MAX_SAFE_INTEGER:
            raise _BadResult(f"{path} is the integer {number}, beyond +-(2**53-1) that JSON numbers carry exactly; return it as a string")
        return number
    if isinstance(value, float):
        number = float.__float__(value)
        if not math.isfinite(number):
            raise _BadResult(f"{path} is {number!r}; NaN and Infinity are not JSON")
        return number
    if isinstance(value, (dict, list, tuple)):
        if depth >= MAX_RESULT_DEPTH:
            raise _BadResult(f"{path} is nested deeper than {MAX_RESULT_DEPTH} levels")
        if id(value) in active:
            raise _BadResult(f"{path} refers to itself (a cycle)")
        active.add(id(value))
        try:
            if isinstance(value, dict):
                out = {}
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise _BadResult(f"{path} has the non-string key {key!r}; JSON object keys are strings")
                    key = str.__str__(key)
                    if any("\ud800" <= ch <= "\udfff" for ch in key):
                        raise _BadResult(f"{path} has a key with a lone surrogate")
                    out[key] = _plain(item, f"{path}[{key!r}]", depth + 1, active)
                return out
            return [_plain(item, f"{path}[{i}]", depth + 1, active) for i, item in enumerate(value)]
        finally:
            active.discard(id(value))
    raise _BadResult(f"{path} is a {type(value).__module__}.{type(value).__qualname__}" if type(value).__module__ != "builtins" else f"{path} is a {type(value).__name__}")

"""Edge runner: discovery, schema generation and one tool call for a tools.py (docs/contract.md §1–5).

This file is the public API (what the worker imports and calls); the package's other files are
one concept each: isolation.py (one job: bytes check, import, capture, cleanup), discovery.py (the
tools of a file and their checks), schema.py (type hints to JSON Schema), tool_call.py (the call
and its checks), canonical.py (RFC 8785) and replies.py (coded errors, the reply's JSON text).

The API is docs/runner-protocol.md. Every public function returns JSON text and never raises
for a user error; user errors become coded error objects `{"code", "message", "tool"?,
"parameter"?, "line"?}` whose codes are in src/contract/error-table.ts.

Plain Python (CPython >= 3.11 and Pyodide). One runner serves one job in production; still,
nothing here keeps state between two jobs in one interpreter: the tools module is registered
in sys.modules only while it is imported/called, stdout/stderr are restored, the linecache
entry that makes tracebacks show source lines is removed. What tool code itself does to the
interpreter (monkeypatching the standard library, importing modules) cannot be undone
in-process; that is why the host uses a fresh runner per job.

Decisions (documented here because the spec is silent):
* Tools are the objects decorated with @edge_tool while the file is imported, in decoration
  order, whose `__module__` is the tools module. A decorated function imported from another
  module is not a tool of this file; two functions that end up with the same name (also a
  redefined `def`) are `duplicate_tool_name`, not a silent override.
* A tool must be a plain, synchronous function defined at the top level of the file
  (`invalid_tool_definition`): methods, nested functions, classes, async and generator
  functions cannot be called as `tool(**arguments)` returning JSON.
* Positional-only parameters, `*args` and `**kwargs` are `unsupported_type_hint` (a call
  passes arguments by keyword only).
* A default must be JSON and valid for the parameter's own schema (`invalid_parameter_default`),
  e.g. `x: str = None` must be written `x: Optional[str] = None`. Tuple defaults/results are
  JSON arrays (as json.dumps treats them).
* Arguments for `float` parameters that arrive as JSON integers are passed as Python floats.
* A tool result may contain dict/list/tuple/str/int/float/bool/None (subclasses such as
  OrderedDict or IntEnum are converted to the plain type); anything else, non-str keys,
  NaN/Infinity, integers beyond +-(2**53-1), cycles or nesting deeper than 256 levels is
  `unsupported_tool_result`.
* Call failures carry `diagnostics` always; `diagnostics.traceback` only when Python raised.
"""

import json
import linecache
import sys

import edgestudio.tools as _edge_tools

from .canonical import canonical_json
from .discovery import _discover_tools
from .isolation import MODULE_NAME, _Capture, _check_bytes, _Job, _sha256_of
from .replies import _dumps, _err
from .schema import SCHEMA_GENERATOR_VERSION
from .tool_call import _call

# The limits stay names of edge_runner, as when it was one module.
from .isolation import MAX_SOURCE_BYTES, STDERR_LIMIT_BYTES  # noqa: F401
from .schema import MAX_SAFE_INTEGER  # noqa: F401
from .tool_call import MAX_RESULT_DEPTH  # noqa: F401

__all__ = ["SCHEMA_GENERATOR_VERSION", "discover", "call", "canonical_json", "preload"]


# ── public API ───────────────────────────────────────────────────────────────────────────


def discover(source, expected_sha256, filename, project=None):
    """Import the tools file and describe its tools (docs/runner-protocol.md).

    `project` (JSON text, or None): the tools project mounted read-only for this job,
    {"root", "manifest": {"bundle_version", "entry", "files": {path: sha256}}, "expected_sha256"};
    what is mounted is checked against the manifest before anything is imported.
    """
    reply = {
        "ok": False,
        "tools_file_sha256": "",
        "schema_generator_version": SCHEMA_GENERATOR_VERSION,
        "tools": [],
        "errors": [],
        "warnings": [],
        "stderr": "",
    }
    job = _Job(filename, project)
    try:
        data, error = _check_bytes(source, expected_sha256)
        reply["tools_file_sha256"] = _sha256_of(data) if data is not None else ""
        error = job.check_project(expected_sha256) or error
        if error is None:
            error, _ = job.load(data)
        if error is not None:
            reply["errors"].append(error)
        else:
            tools, errors, collected = _discover_tools(job)
            reply["tools"] = [t.describe() for t in tools]
            reply["errors"] = errors
            if not collected:
                reply["warnings"].append(
                    _err("no_tools_found", f"{filename} defines no @edge_tool functions, so no tool is available.")
                )
    finally:
        reply["stderr"] = job.close()
    reply["ok"] = not reply["errors"]
    return _dumps(reply)


def call(source, expected_sha256, filename, tool_name, args_json, call_id, project=None, expected_schema_sha256=None):
    """Verify and import the tools file, then run exactly one tool (docs/runner-protocol.md).

    `call_id` is bound to the result by the worker's HMAC (computed in JavaScript); it is accepted
    here so every job has one description, and is not otherwise needed to run the tool.
    `expected_schema_sha256` (or None): the tool's frozen schema_sha256; a tool whose schema in this
    import differs is not called (tool_schema_changed).
    """
    reply = {"ok": False, "stderr": "", "tools_file_sha256_verified": False}
    job = _Job(filename, project)
    try:
        body = _call(job, source, expected_sha256, tool_name, args_json, expected_schema_sha256)
    finally:
        reply["stderr"] = job.close()
    reply["tools_file_sha256_verified"] = job.verified
    reply.update(body)
    return _dumps(reply)


def preload():
    """Import everything a job needs and warm the code paths, leaving no user state.

    Called once before a memory snapshot is taken; a job started from the snapshot then
    imports nothing from the standard library on its own account.
    """
    import __future__  # noqa: F401  (tools files use `from __future__ import annotations`)
    import collections  # noqa: F401
    import dataclasses  # noqa: F401
    import enum  # noqa: F401
    import functools  # noqa: F401
    # A job with Python packages: Pyodide's installer unpacks wheels with tarfile/zipfile (cp437
    # names), and packages commonly read their own version through importlib.metadata at import
    # (which loads email and datetime): compiled here once, not in every job (docs/packages.md, Cost).
    import encodings.cp437  # noqa: F401
    import importlib.metadata  # noqa: F401
    import importlib.metadata._adapters  # noqa: F401  (what reading a distribution's METADATA loads)
    import tarfile  # noqa: F401
    import zipfile  # noqa: F401

    warm = (
        "from __future__ import annotations\n"
        "from typing import Literal, Optional, List\n"
        "from edgestudio.tools import edge_tool\n"
        "@edge_tool(intent_tags=['t'], permissions=['read_local'])\n"
        "def w(a: str, b: Optional[List[Literal['x']]] = None, c: int | None = 1, d: float = 0.5) -> dict:\n"
        "    '''warm'''\n"
        "    print('w')\n"
        "    return {'a': a, 'n': [1, 2.5, True, None]}\n"
        "@edge_tool\n"
        "def r() -> None:\n"
        "    raise ValueError('warm')\n"
    ).encode("utf-8")
    digest = _sha256_of(warm)
    json.loads(discover(warm, digest, "<preload>"))
    json.loads(call(warm, digest, "<preload>", "w", '{"a": "x"}', "preload"))
    json.loads(call(warm, digest, "<preload>", "r", "{}", "preload"))
    leftovers = [
        MODULE_NAME in sys.modules,
        _edge_tools._collector is not None,
        "<preload>" in linecache.cache,
        sys.stdout is not sys.__stdout__ and isinstance(sys.stdout, _Capture),
    ]
    if any(leftovers):  # a bug in this package, not a user error
        raise RuntimeError("edge_runner.preload left job state behind")

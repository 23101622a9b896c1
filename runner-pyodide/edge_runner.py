"""Edge runner: discovery, schema generation and one tool call for a tools.py (SPEC §1–5).

The API is docs/runner-protocol.md. Every public function returns JSON text and never raises
for a user error; user errors become coded error objects `{"code", "message", "tool"?,
"parameter"?, "line"?}` whose codes are in src/contract/errors.ts.

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

import ast
import hashlib
import hmac
import inspect
import io
import json
import linecache
import math
import os
import re
import sys
import traceback
import types
import typing

import edgestudio.tools as _edge_tools

__all__ = ["SCHEMA_GENERATOR_VERSION", "discover", "call", "canonical_json", "preload"]

SCHEMA_GENERATOR_VERSION = "edge.tools.schema_gen.v1"

MAX_SOURCE_BYTES = 1024 * 1024
STDERR_LIMIT_BYTES = 64 * 1024
MAX_RESULT_DEPTH = 256
MAX_SAFE_INTEGER = 2**53 - 1
MODULE_NAME = "__edge_tools__"  # private sys.modules name of the tools file while it is used

# Captured before any user code can run (the worker imports this module at boot). The reply's
# HMAC is not computed here: tool code can replace anything in this interpreter, so the worker
# signs in JavaScript with a secret Python never sees (workers/runner-core.ts).
_SHA256 = hashlib.sha256

_SHA256_RE = re.compile(r"sha256:[0-9a-f]{64}")
_TOOL_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_EXECUTION_LEVELS = ("read", "prepare", "commit")
_PERMISSIONS = ("read_local",)
_PRIMITIVES = {str: "string", int: "integer", float: "number", bool: "boolean"}
_UNION_TYPES = (typing.Union, types.UnionType)


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


def call(source, expected_sha256, filename, tool_name, args_json, call_id, project=None):
    """Verify and import the tools file, then run exactly one tool (docs/runner-protocol.md).

    `call_id` is bound to the result by the worker's HMAC (computed in JavaScript); it is accepted
    here so every job has one description, and is not otherwise needed to run the tool.
    """
    reply = {"ok": False, "stderr": "", "tools_file_sha256_verified": False}
    job = _Job(filename, project)
    try:
        body = _call(job, source, expected_sha256, tool_name, args_json)
    finally:
        reply["stderr"] = job.close()
    reply["tools_file_sha256_verified"] = job.verified
    reply.update(body)
    return _dumps(reply)


def canonical_json(value):
    """RFC 8785 (JCS) text of a JSON value, byte-identical to the npm `canonicalize` package.

    Accepts dict (str keys), list/tuple, str, int, float, bool, None. Raises ValueError/TypeError
    for anything else, NaN/Infinity, lone surrogates.
    """
    out = []
    _jcs(value, out, 0)
    return "".join(out)


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
    if any(leftovers):  # a bug in this file, not a user error
        raise RuntimeError("edge_runner.preload left job state behind")


# ── one job: bytes check, import, capture, cleanup ───────────────────────────────────────


def _sha256_of(data):
    return "sha256:" + _SHA256(data).hexdigest()


def _check_bytes(source, expected_sha256):
    """(bytes, None) when the source may be imported, else (bytes or None, error)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        return None, _err("invalid_argument", f"source must be bytes, got {type(source).__name__}")
    if not isinstance(expected_sha256, str) or not _SHA256_RE.fullmatch(expected_sha256):
        return data, _err("invalid_argument", f"expected_sha256 must be 'sha256:<64 lowercase hex>', got {expected_sha256!r}")
    actual = _sha256_of(data)
    if not hmac.compare_digest(actual, expected_sha256):
        return data, _err(
            "tools_file_changed",
            f"The tools file changed after this session froze it (frozen {expected_sha256}, now {actual}); "
            "start a new session to use the edited file. Nothing was imported.",
        )
    return data, None


class _Capture(io.TextIOBase):
    """stdout/stderr replacement: keeps the first STDERR_LIMIT_BYTES bytes, counts the rest."""

    def __init__(self):
        super().__init__()
        self._parts = []
        self._kept = 0
        self._dropped = 0
        self.buffer = _CaptureBytes(self)

    def writable(self):
        return True

    @property
    def encoding(self):
        return "utf-8"

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.write_bytes(text.encode("utf-8", "backslashreplace"))
        return len(text)

    def write_bytes(self, data):
        room = STDERR_LIMIT_BYTES - self._kept
        if room > 0:
            piece = data[:room]
            self._parts.append(piece)
            self._kept += len(piece)
            self._dropped += len(data) - len(piece)
        else:
            self._dropped += len(data)

    def text(self):
        out = b"".join(self._parts).decode("utf-8", "replace")  # a cut inside a character → U+FFFD
        if self._dropped:
            out += f"\u2026[truncated {self._dropped} bytes]"
        return out


class _CaptureBytes(io.RawIOBase):
    """`sys.stdout.buffer` of a _Capture."""

    def __init__(self, owner):
        super().__init__()
        self._owner = owner

    def writable(self):
        return True

    def write(self, data):
        data = bytes(data)
        self._owner.write_bytes(data)
        return len(data)


class _Job:
    """State of one discover/call: imported module, captured output, cleanup."""

    def __init__(self, filename, project=None):
        self.filename = filename if isinstance(filename, str) and filename else "tools.py"
        self.project = _Project(project) if isinstance(project, str) else None
        self.module = None
        self.collected = []
        self.def_lines = {}
        self.verified = False
        self._capture = _Capture()
        self._saved_streams = None
        self._linecache_key = None

    # Streams are redirected only around user code (import and the call itself).
    def _redirect(self):
        self._saved_streams = (sys.stdout, sys.stderr)
        sys.stdout = sys.stderr = self._capture

    def _restore(self):
        if self._saved_streams is not None:
            try:
                sys.stdout.flush()
            except BaseException:
                pass
            sys.stdout, sys.stderr = self._saved_streams
            self._saved_streams = None

    def check_project(self, expected_sha256):
        """None when the mounted project is exactly the frozen one (or there is none), else the error."""
        if self.project is None:
            return None
        return self.project.check(expected_sha256)

    def load(self, data):
        """Decode, compile and execute the tools file. Returns (error or None, traceback text)."""
        self.verified = True
        if len(data) > MAX_SOURCE_BYTES:
            return _err(
                "tools_file_too_large",
                f"{self.filename} is {len(data)} bytes, above the {MAX_SOURCE_BYTES} byte (1 MiB) limit; "
                "keep tools.py small and load data inside functions.",
            ), ""
        try:
            text = data.decode("utf-8-sig")  # strict; a UTF-8 BOM is tolerated as Python does
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            return _err(
                "tools_file_not_utf8",
                f"{self.filename} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}, line {line}); save it as UTF-8.",
                line=line,
            ), ""
        self._linecache_key = self.filename
        linecache.cache[self.filename] = (len(text), None, text.splitlines(True), self.filename)
        try:
            tree = compile(text, self.filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
            code = compile(tree, self.filename, "exec", dont_inherit=True)
        except BaseException as exc:  # SyntaxError, ValueError (null bytes), RecursionError, …
            return self._import_error(exc), _format_tb(exc, self.filename)
        self.def_lines = _def_lines(tree)
        module = types.ModuleType(MODULE_NAME)
        module.__file__ = self.filename
        if self.project is not None:
            module.__file__ = self.project.enter()
        self.module = module
        sys.modules[MODULE_NAME] = module
        collected = []
        _edge_tools._collector = collected
        self._redirect()
        try:
            exec(code, module.__dict__)
        except BaseException as exc:  # top-level code may raise anything, sys.exit included
            self._restore()
            return self._import_error(exc), _format_tb(exc, self.filename)
        finally:
            self._restore()
            _edge_tools._collector = None
        self.collected = collected
        return None, ""

    def _import_error(self, exc):
        line = _user_line(exc, self.filename)
        if isinstance(exc, SyntaxError):
            text = f"{type(exc).__name__}: {exc.msg}"
        elif isinstance(exc, SystemExit):
            text = f"SystemExit: the file called sys.exit({exc.code!r}) while being imported"
        else:
            text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        where = f" ({self.filename}, line {line})" if line is not None else f" ({self.filename})"
        out = _err("tools_file_import_failed", f"{self.filename} could not be imported: {text}{where}", line=line)
        if isinstance(exc, ModuleNotFoundError) and isinstance(exc.name, str) and exc.name:
            # The host tells a package of Pyodide's lock from a module outside it (src/packages/freeze.ts).
            out["module"] = exc.name.split(".")[0]
        return out

    def run(self, func, kwargs):
        self._redirect()
        try:
            return func(**kwargs)
        finally:
            self._restore()

    def close(self):
        """Undo everything the job changed; return the captured output."""
        self._restore()
        _edge_tools._collector = None
        if self.project is not None:
            self.project.leave()
        if sys.modules.get(MODULE_NAME) is self.module and self.module is not None:
            del sys.modules[MODULE_NAME]
        if self._linecache_key is not None:
            linecache.cache.pop(self._linecache_key, None)
        self.module = None
        self.collected = []
        return self._capture.text()


class _Project:
    """A tools project mounted read-only at `root`: checked against its frozen manifest before
    anything is imported, then the working directory and the first entries of sys.path while the
    tools file is imported and called (as `python tools.py` would have them)."""

    def __init__(self, spec):
        self.error = None
        self.root = self.entry = None
        self.files = {}
        self._saved = None
        try:
            parsed = json.loads(spec)
            root, manifest, expected = parsed["root"], parsed["manifest"], parsed["expected_sha256"]
            entry, files = manifest["entry"], manifest["files"]
            ok = (
                isinstance(root, str) and root.startswith("/") and isinstance(entry, str) and isinstance(files, dict)
                and all(isinstance(k, str) and isinstance(v, str) and _SHA256_RE.fullmatch(v) for k, v in files.items())
                and isinstance(expected, str) and hmac.compare_digest(_sha256_of(canonical_json(manifest).encode("utf-8")), expected)
            )
        except (TypeError, ValueError, KeyError):
            ok = False
        if not ok:
            self.error = _err("invalid_argument", "The tools project's manifest is malformed or does not match its tools_bundle_sha256; nothing was imported.")
            return
        self.root, self.entry, self.files = root, entry, files

    def _mounted(self):
        found = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames.sort()
            for name in filenames:
                path = os.path.join(dirpath, name)
                digest = _SHA256()
                with open(path, "rb") as fh:  # in slices: no second copy of a large data file
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
                found[os.path.relpath(path, self.root).replace(os.sep, "/")] = "sha256:" + digest.hexdigest()
        return found

    def check(self, expected_sha256):
        if self.error is not None:
            return self.error
        if self.files.get(self.entry) != expected_sha256:
            return _err("invalid_argument", "The tools project's manifest does not hold the tools file's frozen hash; nothing was imported.")
        found = self._mounted()
        differ = sorted(p for p in set(found) | set(self.files) if found.get(p) != self.files.get(p))
        if not differ:
            return None
        path = self.entry if self.entry in differ else differ[0]
        more = f" ({len(differ) - 1} more file(s) differ too)" if len(differ) > 1 else ""
        if path == self.entry and path in found:
            # The tools file itself: the message a single tools.py has always had.
            what = (
                f"The tools file changed after this session froze it (frozen {self.files[path]}, now {found[path]}){more}; "
                "start a new session to use the edited file."
            )
        elif path not in found:
            what = f"{path} was removed from the tools project after this session froze it{more}; restore it, or start a new session."
        elif path not in self.files:
            what = f"{path} was added to the tools project after this session froze it{more}; remove it, or start a new session to use it."
        else:
            what = (
                f"{path} changed after this session froze the tools project (frozen {self.files[path]}, now {found[path]}){more}; "
                "start a new session to use the edited file."
            )
        return _err("tools_file_changed", what + " Nothing was imported.", file=path)

    def enter(self):
        """cwd = the root; the tools file's folder (and the root) first on sys.path. Returns __file__."""
        self._saved = (os.getcwd(), list(sys.path), set(sys.modules))
        here = os.path.dirname(os.path.join(self.root, self.entry))
        for folder in dict.fromkeys([self.root, here]):
            sys.path.insert(0, folder)
        os.chdir(self.root)
        return os.path.join(self.root, self.entry)

    def leave(self):
        if self._saved is None:
            return
        cwd, path, modules = self._saved
        self._saved = None
        sys.path[:] = path
        try:
            os.chdir(cwd)
        except OSError:
            pass
        prefix = self.root.rstrip("/") + "/"
        for name in [m for m in sys.modules if m not in modules]:
            if str(getattr(sys.modules[name], "__file__", "") or "").startswith(prefix):
                del sys.modules[name]


def _def_lines(tree):
    """Map first line of a function's decorators → line of its `def` (co_firstlineno is the
    former); classes (which have no code object) are keyed by name."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.setdefault(first, node.lineno)
            if isinstance(node, ast.ClassDef):
                out.setdefault(("class", node.name), node.lineno)
    return out


def _user_line(exc, filename):
    if isinstance(exc, SyntaxError) and exc.filename == filename and exc.lineno:
        return exc.lineno
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _format_tb(exc, filename):
    """Traceback text starting at the first frame outside this runner."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def _err(code, message, tool=None, parameter=None, line=None, file=None):
    out = {"code": code, "message": message}
    if file is not None:
        out["file"] = file
    if tool is not None:
        out["tool"] = tool
    if parameter is not None:
        out["parameter"] = parameter
    if line is not None:
        out["line"] = line
    return out


def _dumps(reply):
    # ASCII output: lone surrogates in captured output or tracebacks survive as \udxxx escapes.
    return json.dumps(reply, ensure_ascii=True, allow_nan=False, separators=(",", ":"))


# ── discovery and schema generation ──────────────────────────────────────────────────────


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


def _annotation_text(annotation):
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type):
        module = getattr(annotation, "__module__", "")
        if module in ("builtins", MODULE_NAME):
            return annotation.__qualname__
        return f"{module}.{annotation.__qualname__}"
    return repr(annotation)


class _Unsupported(Exception):
    pass


def _parameters_schema(func, label, line, errors):
    def fail(code, message, parameter):
        errors.append(_err(code, message, tool=label, parameter=parameter, line=line))

    try:
        signature = inspect.signature(func)
    except Exception as exc:  # e.g. an annotation that cannot be evaluated (lazy annotations)
        fail("unsupported_type_hint", f"Tool {label}: the signature could not be read ({type(exc).__name__}: {exc}).", None)
        return None
    target = inspect.unwrap(func)
    globalns = getattr(target, "__globals__", {})
    properties, required = {}, []
    ok = True
    for pname, param in signature.parameters.items():
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            fail("unsupported_type_hint", f"Tool {label}: *{pname} is not supported; declare each argument as a named parameter.", pname)
            ok = False
            continue
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            fail("unsupported_type_hint", f"Tool {label}: **{pname} is not supported; declare each argument as a named parameter.", pname)
            ok = False
            continue
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            fail(
                "unsupported_type_hint",
                f"Tool {label}: parameter {pname!r} is positional-only (before '/'); tools are called with keyword arguments, remove the '/'.",
                pname,
            )
            ok = False
            continue
        if param.annotation is inspect.Parameter.empty:
            fail(
                "missing_parameter_type_hint",
                f"Tool {label}: parameter {pname!r} has no type annotation; add one (str, int, float, bool, Literal[...], Optional[T], list[T]).",
                pname,
            )
            ok = False
            continue
        text = _annotation_text(param.annotation)
        try:
            resolved = _resolve(param.annotation, pname, globalns)
            schema = _schema_for(resolved)
        except _Unsupported as exc:
            fail(
                "unsupported_type_hint",
                f"Tool {label}: parameter {pname!r} has the unsupported annotation {text} ({exc}); "
                "use str, int, float, bool, Literal[...] of one type, Optional[T] or list[T].",
                pname,
            )
            ok = False
            continue
        if param.default is inspect.Parameter.empty:
            required.append(pname)
        else:
            default = param.default
            if isinstance(default, tuple):
                default = list(default)
            try:
                canonical_json(default)
                valid = _valid_for(default, schema)
            except (TypeError, ValueError):
                valid = False
            if not valid:
                fail(
                    "invalid_parameter_default",
                    f"Tool {label}: the default {param.default!r} of parameter {pname!r} is not a JSON value of type {text}; "
                    "change the default or the annotation (e.g. Optional[T] for a None default).",
                    pname,
                )
                ok = False
                continue
            schema["default"] = json.loads(canonical_json(default))
        properties[pname] = schema
    if not ok:
        return None
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


class _AnnotationHolder:
    """Lets typing.get_type_hints resolve one annotation in the tool's module namespace."""

    def __init__(self, name, annotation):
        self.__annotations__ = {name: annotation}


def _resolve(annotation, pname, globalns):
    try:
        return typing.get_type_hints(_AnnotationHolder(pname, annotation), globalns=globalns)[pname]
    except Exception as exc:
        raise _Unsupported(f"it could not be resolved: {type(exc).__name__}: {exc}") from None


def _schema_for(tp):
    if isinstance(tp, type) and tp in _PRIMITIVES:
        return {"type": _PRIMITIVES[tp]}
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Literal:
        if not args:
            raise _Unsupported("an empty Literal")
        kinds = {type(v) for v in args}
        if len(kinds) != 1 or next(iter(kinds)) not in _PRIMITIVES:
            raise _Unsupported("Literal values must all be of one type: str, int, float or bool")
        if any(isinstance(v, float) and not math.isfinite(v) for v in args):
            raise _Unsupported("Literal values must be finite numbers")
        # A discovery error, not a schema change: JSON carries integers exactly only within
        # +-(2**53-1), so such a value could never be passed back faithfully.
        if any(isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_SAFE_INTEGER for v in args):
            raise _Unsupported("Literal integers must be within +-(2**53-1), the integers JSON carries exactly")
        return {"type": _PRIMITIVES[next(iter(kinds))], "enum": list(args)}
    if origin in _UNION_TYPES:
        others = [a for a in args if a is not type(None)]
        if len(others) != 1 or len(others) == len(args):
            raise _Unsupported("a union is only supported as Optional[T] (T | None)")
        inner = _schema_for(others[0])
        inner["type"] = [inner["type"], "null"]
        if "enum" in inner:
            inner["enum"] = inner["enum"] + [None]
        return inner
    if origin is list:
        if len(args) != 1:
            raise _Unsupported("list needs exactly one item type, e.g. list[str]")
        return {"type": "array", "items": _schema_for(args[0])}
    if tp is list:
        raise _Unsupported("a bare list needs an item type, e.g. list[str]")
    raise _Unsupported("not in the supported type table")


def _json_type_ok(value, json_type):
    if json_type == "null":
        return value is None
    if json_type == "boolean":
        return type(value) is bool
    if json_type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if json_type == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if json_type == "string":
        return isinstance(value, str)
    if json_type == "array":
        return isinstance(value, list)
    return False


def _valid_for(value, schema):
    types_ = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    if not any(_json_type_ok(value, t) for t in types_):
        return False
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        return False
    if "enum" in schema and not any(type(value) is type(e) and value == e for e in schema["enum"]):
        return False
    if isinstance(value, list):
        return all(_valid_for(v, schema["items"]) for v in value)
    return True


# ── call ─────────────────────────────────────────────────────────────────────────────────


def _call(job, source, expected_sha256, tool_name, args_json):
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
    digest = _sha256_of(canonical_json(result).encode("utf-8"))
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


# ── RFC 8785 canonical JSON ──────────────────────────────────────────────────────────────

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f]')
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_char(match):
    ch = match.group(0)
    return _ESCAPES.get(ch) or f"\\u{ord(ch):04x}"


def _jcs_string(text):
    if _SURROGATE.search(text):
        raise ValueError("Lone surrogate is not allowed")
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, text) + '"'


def _es_number(value):
    """ECMAScript Number::toString for a finite double (shortest round-trip digits via repr)."""
    if not math.isfinite(value):
        raise ValueError(f"{value!r} is not allowed in JSON")
    if value == 0:
        return "0"
    if value < 0:
        return "-" + _es_number(-value)
    text = float.__repr__(value)
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)  # value = 0.<digits> × 10^point
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{sign}{abs(e)}"


_MAX_CANONICAL_DEPTH = 512  # well inside Python's recursion limit (also under Pyodide)


def _utf16_key(key):
    return key.encode("utf-16-be")


def _jcs(value, out, depth):
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_jcs_string(value))
    elif isinstance(value, int):
        try:
            number = float(int.__int__(value))
        except OverflowError:
            raise ValueError(f"integer {value} is too large for a JSON number") from None
        out.append(_es_number(number))
    elif isinstance(value, float):
        out.append(_es_number(float.__float__(value)))
    elif isinstance(value, (list, tuple)):
        if depth > _MAX_CANONICAL_DEPTH:
            raise ValueError("value is nested too deeply")
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _jcs(item, out, depth + 1)
        out.append("]")
    elif isinstance(value, dict):
        if depth > _MAX_CANONICAL_DEPTH:
            raise ValueError("value is nested too deeply")
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"object key {key!r} is not a string")
            if _SURROGATE.search(key):
                raise ValueError("Lone surrogate is not allowed")
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16_key)):
            if i:
                out.append(",")
            out.append(_jcs_string(key))
            out.append(":")
            _jcs(value[key], out, depth + 1)
        out.append("}")
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value")

"""One job, isolated: the source's bytes checked against the frozen hash, the tools file compiled
and imported under a private module name, stdout/stderr captured (bounded) only around user code,
a tools project checked against its manifest and entered (cwd, sys.path), and everything undone
when the job closes. What tool code itself does to the interpreter cannot be undone in-process;
that is why the host uses a fresh runner per job."""

import ast
import collections
import hashlib
import hmac
import io
import json
import linecache
import os
import re
import sys
import traceback
import types

import edgestudio.tools as _edge_tools

from .canonical import canonical_json
from .replies import _err

MAX_SOURCE_BYTES = 1024 * 1024
STDERR_LIMIT_BYTES = 64 * 1024
MODULE_NAME = "__edge_tools__"  # private sys.modules name of the tools file while it is used

# Captured before any user code can run (the worker imports this package at boot). The reply's
# HMAC is not computed here: tool code can replace anything in this interpreter, so the worker
# signs in JavaScript with a secret Python never sees (workers/runner-jobs.ts).
_SHA256 = hashlib.sha256

_SHA256_RE = re.compile(r"sha256:[0-9a-f]{64}")
# This package's folder: a traceback starts at the first frame outside it (_format_tb).
_RUNNER_DIR = os.path.dirname(__file__) + os.sep


def _sha256_of(data):
    return "sha256:" + _SHA256(data).hexdigest()


def _sha256_json(value):
    """The sha256 of a value's canonical JSON (RFC 8785): the host's sha256Json."""
    return _sha256_of(canonical_json(value).encode("utf-8"))


def _check_bytes(source, expected_sha256):
    """(bytes, None) when the source may be imported, else (bytes or None, error)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        return None, _err("runner_job_invalid", f"source must be bytes, got {type(source).__name__}")
    if not isinstance(expected_sha256, str) or not _SHA256_RE.fullmatch(expected_sha256):
        return data, _err("runner_job_invalid", f"expected_sha256 must be 'sha256:<64 lowercase hex>', got {expected_sha256!r}")
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
        _reseed_random()
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
                and isinstance(expected, str) and hmac.compare_digest(_sha256_json(manifest), expected)
            )
        except (TypeError, ValueError, KeyError):
            ok = False
        if not ok:
            self.error = _err("tools_project_manifest_invalid", "The tools project's manifest is malformed or does not match its tools_bundle_sha256; nothing was imported. Freeze the project again (start a new session).")
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
            return _err("tools_project_manifest_invalid", "The tools project's manifest does not hold the tools file's frozen hash; nothing was imported. Freeze the project again (start a new session).")
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


def _reseed_random():
    """Seed `random` from the OS, as a new interpreter does. A runner booted from the memory
    snapshot starts as the snapshot's interpreter, random's state included, so without this every
    runner would draw the same numbers (found with a tool returning random.random())."""
    module = sys.modules.get("random")
    if module is not None:
        module.seed()


def _def_lines(tree):
    """Map first line of a function's decorators → line of its `def` (co_firstlineno is the
    former); classes (which have no code object) are keyed by name.

    The walk is ast.walk's (breadth first, children in field order, so the first of two equal keys
    wins as before) over statements only: a def or class is always a statement whose ancestors are
    statements, except handlers and match cases, and every expression it skips (most of a file's
    nodes) cannot hold one. On Pyodide this is most of what the walk cost a job."""
    out = {}
    queue = collections.deque([tree])
    while queue:
        node = queue.popleft()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.setdefault(first, node.lineno)
            if isinstance(node, ast.ClassDef):
                out.setdefault(("class", node.name), node.lineno)
        queue.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, _STATEMENT_NODES))
    return out


_STATEMENT_NODES = (ast.stmt, ast.excepthandler, ast.match_case)


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
    """Traceback text starting at the first frame outside this runner (this package)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_RUNNER_DIR):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))

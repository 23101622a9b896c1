"""The shape of a reply: coded error objects `{"code", "message", "file"?, "tool"?, "parameter"?,
"line"?}` (the codes are in src/contract/error-table.ts) and the reply's JSON text."""

import json


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

"""RFC 8785 (JCS) canonical JSON, byte-identical to the npm `canonicalize` package: what a tool
result's sha256 is computed over (the worker's HMAC binds that hash), and how output schemas and
defaults are normalized."""

import math
import re


def canonical_json(value):
    """RFC 8785 (JCS) text of a JSON value, byte-identical to the npm `canonicalize` package.

    Accepts dict (str keys), list/tuple, str, int, float, bool, None. Raises ValueError/TypeError
    for anything else, NaN/Infinity, lone surrogates.
    """
    out = []
    _jcs(value, out, 0)
    return "".join(out)


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

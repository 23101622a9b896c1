"""Schema generation: a tool's parameters as a closed JSON Schema object, from the function's
type hints (str, int, float, bool, Literal[...] of one type, Optional[T], list[T]) and its
defaults, which must be JSON values valid for their own parameter's schema."""

import inspect
import json
import math
import types
import typing

from .canonical import canonical_json
from .isolation import MODULE_NAME
from .replies import _err

SCHEMA_GENERATOR_VERSION = "edge.tools.schema_gen.v1"

MAX_SAFE_INTEGER = 2**53 - 1
_PRIMITIVES = {str: "string", int: "integer", float: "number", bool: "boolean"}
_UNION_TYPES = (typing.Union, types.UnionType)


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

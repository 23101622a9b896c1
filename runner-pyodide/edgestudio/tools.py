"""The `@edge_tool` decorator (docs/contract.md §1).

The decorator only attaches metadata and returns the very same function: a tools.py stays a
plain Python file that can be imported and unit-tested without Edge. It validates nothing:
`edge_runner.discover` checks every option and reports coded errors per tool, so one bad tool
gives a readable error instead of an import crash. Misuse that cannot be expressed as options
(a positional argument such as `@edge_tool("fee")`, an unknown keyword) is recorded here and
reported by discovery as `invalid_tool_metadata`.

Both forms work::

    @edge_tool
    def hello_world() -> str: ...

    @edge_tool(name="fee_quote", description="...", intent_tags=["billing"],
               execution_level="read", return_direct=False, output_schema=None,
               permissions=["read_local"])
    def calculate_fee(amount: float) -> dict: ...
"""

__all__ = ["edge_tool", "TOOL_ATTRIBUTE", "OPTION_DEFAULTS"]

# Name of the attribute that carries the metadata dict on a decorated function.
TOOL_ATTRIBUTE = "__edge_tool__"

# The decorator's keyword options and their defaults, in documentation order.
OPTION_DEFAULTS = {
    "name": None,
    "description": None,
    "intent_tags": None,
    "execution_level": "read",
    "return_direct": False,
    "output_schema": None,
    "permissions": None,
}

# While edge_runner imports a tools file it sets this to a list; every decorated object is
# appended in decoration (= definition) order. This is how discovery sees two functions that
# share a name (the second `def` rebinds the module global, the first would otherwise vanish
# silently). Outside a runner job it is None and the decorator records nothing globally.
_collector = None


def _mark(func, options, usage_error):
    meta = dict(OPTION_DEFAULTS)
    unknown = []
    for key, value in options.items():
        if key in OPTION_DEFAULTS:
            meta[key] = value
        else:
            unknown.append(key)
    meta["unknown_options"] = sorted(unknown)
    meta["usage_error"] = usage_error
    try:
        setattr(func, TOOL_ATTRIBUTE, meta)
    except (AttributeError, TypeError):
        # Objects that refuse attributes (builtins, slotted instances) cannot be tools;
        # discovery never sees them, which is correct since they are not functions.
        return func
    if _collector is not None and not any(seen is func for seen in _collector):
        _collector.append(func)
    return func


def edge_tool(func=None, /, *args, **options):
    """Mark a function as an Edge tool. Usable bare (`@edge_tool`) or with keyword options."""
    if args:
        usage = "@edge_tool takes only keyword options (name=..., description=...), not positional arguments"
        if callable(func):
            return _mark(func, options, usage)
        return lambda f: _mark(f, options, usage)
    if func is None:
        return lambda f: _mark(f, options, None)
    if callable(func):
        return _mark(func, options, None)
    usage = (
        f"@edge_tool got the positional argument {func!r}; pass options as keywords, "
        f"e.g. @edge_tool(name={func!r})"
    )
    return lambda f: _mark(f, options, usage)

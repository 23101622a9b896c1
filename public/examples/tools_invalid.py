"""A tools file where every tool is refused, one per error code (for docs and tests).

`edge tools validate public/examples/tools_invalid.py --json` lists one coded error per tool
(a few list one per parameter). File-level refusals cannot share a file with the others, so
they are only described here:
  tools_file_import_failed  a syntax error or an exception raised by top-level code (with line)
  tools_file_not_utf8       bytes that are not UTF-8
  tools_file_too_large      more than 1 MiB
  tools_file_changed        the file was edited after a session froze it
  no_tools_found            (a warning) a file without any @edge_tool
"""

from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

from edgestudio.tools import edge_tool


@dataclass
class Address:
    street: str
    city: str


# missing_parameter_type_hint: every parameter needs an annotation.
@edge_tool
def no_hint(order_id) -> dict:
    return {}


# unsupported_type_hint: dict has no schema in the type table (return a dict, don't take one).
@edge_tool
def takes_dict(filters: dict) -> dict:
    return {}


# unsupported_type_hint: a bare list needs its item type, e.g. list[str].
@edge_tool
def takes_bare_list(ids: list) -> dict:
    return {}


# unsupported_type_hint: tuples are not in the table; use list[T].
@edge_tool
def takes_tuple(point: tuple[int, int]) -> dict:
    return {}


# unsupported_type_hint: Any would be a silent fallback; Edge refuses it.
@edge_tool
def takes_any(value: Any) -> dict:
    return {}


# unsupported_type_hint: dataclasses are not parameters; pass their fields instead.
@edge_tool
def takes_dataclass(address: Address) -> dict:
    return {}


# unsupported_type_hint: a union of two non-None types.
@edge_tool
def takes_union(key: Union[int, str]) -> dict:
    return {}


# unsupported_type_hint: a Literal must use one primitive type (True and 1 are different types).
@edge_tool
def takes_mixed_literal(flag: Literal[True, 1]) -> dict:
    return {}


# unsupported_type_hint: Optional only wraps supported types.
@edge_tool
def takes_optional_dict(options: Optional[dict] = None) -> dict:
    return {}


# unsupported_type_hint: *args cannot be passed by a JSON call.
@edge_tool
def takes_args(*names: str) -> dict:
    return {}


# unsupported_type_hint: **kwargs cannot be described by a closed schema.
@edge_tool
def takes_kwargs(**options: str) -> dict:
    return {}


# unsupported_type_hint: positional-only parameters cannot be passed by keyword.
@edge_tool
def takes_positional_only(order_id: str, /) -> dict:
    return {}


# invalid_parameter_default: None is not a str; write Optional[str] = None.
@edge_tool
def bad_default(note: str = None) -> dict:
    return {}


# invalid_parameter_default: the default is not one of the Literal's values.
@edge_tool
def default_outside_literal(tier: Literal["basic", "pro"] = "gold") -> dict:
    return {}


# invalid_tool_name: names must start with a letter or _.
@edge_tool(name="1abc")
def starts_with_digit() -> dict:
    return {}


# invalid_tool_name: only ASCII letters, digits and _.
@edge_tool(name="fee-quote")
def has_dash() -> dict:
    return {}


# invalid_tool_name: at most 64 characters.
@edge_tool(name="a" * 65)
def too_long() -> dict:
    return {}


# duplicate_tool_name: two tools resolve to the same name (here through name=).
@edge_tool(name="lookup")
def lookup_orders() -> dict:
    return {}


@edge_tool(name="lookup")
def lookup_customers() -> dict:
    return {}


# invalid_execution_level: read, prepare or commit.
@edge_tool(execution_level="write")
def unknown_level() -> dict:
    return {}


# return_direct_output_schema_required: return_direct=True needs a closed output_schema.
@edge_tool(return_direct=True)
def direct_without_schema() -> dict:
    return {}


# return_direct_output_schema_required: prepare/commit need return_direct=True.
@edge_tool(
    execution_level="commit",
    output_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}, "additionalProperties": False},
)
def commit_without_return_direct() -> dict:
    return {"ok": True}


# invalid_output_schema: given, but not closed (additionalProperties must be False).
@edge_tool(return_direct=True, output_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}})
def open_output_schema() -> dict:
    return {"ok": True}


# unsupported_permission: only read_local exists.
@edge_tool(permissions=["network"])
def wants_network() -> dict:
    return {}


# invalid_tool_metadata: intent_tags must be a list of strings.
@edge_tool(intent_tags="billing")
def tags_not_a_list() -> dict:
    return {}


# invalid_tool_metadata: options are keywords; the name is name="fee_quote".
@edge_tool("fee_quote")
def positional_option() -> dict:
    return {}


# invalid_tool_definition: tools are plain functions (not async).
@edge_tool
async def async_tool() -> dict:
    return {}

"""Eval tools: arithmetic and unit conversion."""

from typing import Literal, Optional

from edgestudio.tools import edge_tool


@edge_tool(description="Add two whole numbers.")
def add(a: int, b: int) -> dict:
    return {"sum": a + b}


@edge_tool(description="The average (mean) of a list of whole numbers.")
def average(values: list[int]) -> dict:
    return {"average": sum(values) / len(values) if values else None}


@edge_tool(description="Convert a length between units.")
def convert_length(value: float, from_unit: Literal["km", "mi", "m", "ft"], to_unit: Literal["km", "mi", "m", "ft"]) -> dict:
    meters = {"km": 1000.0, "mi": 1609.344, "m": 1.0, "ft": 0.3048}
    return {"value": round(value * meters[from_unit] / meters[to_unit], 4), "unit": to_unit}


@edge_tool(description="Round a number to a number of decimal places.")
def round_number(value: float, places: Optional[int] = None) -> dict:
    return {"value": round(value, places) if places is not None else round(value)}

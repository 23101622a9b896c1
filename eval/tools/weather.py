"""Eval tools: weather lookups over a fixed local table (no network)."""

from typing import Literal

from edgestudio.tools import edge_tool

CITIES = {"paris": 14.0, "tokyo": 18.5, "oslo": 3.0, "lima": 22.0}


@edge_tool(description="Current weather (temperature) in a city.")
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
    c = CITIES.get(city.lower(), 10.0)
    return {"city": city, "temperature": c if unit == "celsius" else round(c * 9 / 5 + 32, 1), "unit": unit}


@edge_tool(description="Weather forecast for a city for the next few days.")
def get_forecast(city: str, days: int = 3) -> dict:
    return {"city": city, "days": [{"day": i + 1, "temperature": 10 + i} for i in range(max(1, min(days, 7)))]}


@edge_tool(description="Air quality index (AQI) of a city.")
def air_quality(city: str) -> dict:
    return {"city": city, "aqi": 42}

"""Eval tools: travel planning, only in the held-out case set (tools no calibration has seen)."""

from typing import Literal, Optional

from edgestudio.tools import edge_tool


@edge_tool(description="Search flights between two cities on a date (YYYY-MM-DD).")
def search_flights(
    origin: str,
    destination: str,
    date: str,
    passengers: int = 1,
    cabin: Literal["economy", "business"] = "economy",
) -> dict:
    return {"flights": [{"id": "F-1", "from": origin, "to": destination, "date": date, "cabin": cabin}]}


@edge_tool(description="Search hotels in a city for a number of nights, optionally under a price per night.")
def search_hotels(city: str, nights: int = 1, max_price: Optional[float] = None) -> dict:
    return {"hotels": [{"id": "H-12", "city": city, "price": 95.0}]}


@edge_tool(description="The local time in a city.")
def get_local_time(city: str) -> dict:
    return {"city": city, "time": "09:30"}


@edge_tool(
    description="Book a hotel for a number of nights. Needs explicit confirmation before it runs.",
    execution_level="commit",
    return_direct=True,
    output_schema={
        "type": "object",
        "properties": {"booking_id": {"type": "string"}},
        "required": ["booking_id"],
        "additionalProperties": False,
    },
)
def book_hotel(hotel_id: str, nights: int) -> dict:
    return {"booking_id": "BK-1010"}


@edge_tool(
    description="Cancel a booking by its id. Needs explicit confirmation before it runs.",
    execution_level="commit",
    return_direct=True,
    output_schema={
        "type": "object",
        "properties": {"cancelled": {"type": "string"}},
        "required": ["cancelled"],
        "additionalProperties": False,
    },
)
def cancel_booking(booking_id: str) -> dict:
    return {"cancelled": booking_id}

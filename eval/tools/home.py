"""Eval tools: eight home-assistant tools, for choosing the right one among many."""

from typing import Literal

from edgestudio.tools import edge_tool

Room = Literal["kitchen", "bedroom", "living_room", "office"]


@edge_tool(description="Turn the lights of a room on or off.")
def set_lights(room: Room, on: bool) -> dict:
    return {"room": room, "on": on}


@edge_tool(description="Set the thermostat to a temperature in degrees Celsius.")
def set_thermostat(temperature: int) -> dict:
    return {"temperature": temperature}


@edge_tool(description="Play music of a genre.")
def play_music(genre: Literal["jazz", "rock", "classical", "pop"]) -> dict:
    return {"playing": genre}


@edge_tool(description="Set a timer for a number of minutes.")
def set_timer(minutes: int) -> dict:
    return {"timer_minutes": minutes}


@edge_tool(description="Add an item to the shopping list.")
def add_to_shopping_list(item: str, quantity: int = 1) -> dict:
    return {"item": item, "quantity": quantity}


@edge_tool(description="Convert an amount of money between currencies.")
def convert_currency(amount: float, from_currency: Literal["USD", "EUR", "GBP", "JPY"], to_currency: Literal["USD", "EUR", "GBP", "JPY"]) -> dict:
    return {"amount": amount, "from": from_currency, "to": to_currency}


@edge_tool(description="Roll dice and return the results.")
def roll_dice(sides: int = 6, count: int = 1) -> dict:
    return {"rolls": [1] * count, "sides": sides}


@edge_tool(
    description="Lock or unlock the front door. Needs explicit confirmation before it runs.",
    execution_level="commit",
    return_direct=True,
    output_schema={
        "type": "object",
        "properties": {"locked": {"type": "boolean"}},
        "required": ["locked"],
        "additionalProperties": False,
    },
)
def set_door_lock(locked: bool) -> dict:
    return {"locked": locked}

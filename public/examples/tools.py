"""Example tools for Edge: a small, local order desk.

Everything is deterministic and local: no network, no clock, no randomness. Try it in the
playground, or `edge tools inspect public/examples/tools.py --json`.
"""

from typing import Literal, Optional

from edgestudio.tools import edge_tool

# A tiny local "database". Data lives in the file so every runner sees the same records.
ORDERS = {
    "A-1001": {"status": "shipped", "carrier": "DHL", "items": 2, "total": 129.90},
    "A-1002": {"status": "processing", "carrier": None, "items": 1, "total": 42.00},
    "A-1003": {"status": "delivered", "carrier": "UPS", "items": 5, "total": 310.25},
}

FEE_RATES = {"basic": 0.003, "pro": 0.002}
MIN_FEE = 0.5


@edge_tool
def hello_world() -> str:
    """Say hello: answers "hello world" (a first tool to try; it takes nothing)."""
    return "hello world"


@edge_tool(
    name="fee_quote",  # the model sees fee_quote; the Python function keeps its own name
    description="Quote the service fee for an amount and a pricing tier.",
    intent_tags=["billing", "quote"],
)
def calculate_fee(
    amount: float,
    tier: Literal["basic", "pro"] = "basic",
    note: Optional[str] = None,
) -> dict:
    fee = round(max(amount * FEE_RATES[tier], MIN_FEE), 2)
    quote = {"amount": amount, "tier": tier, "rate": FEE_RATES[tier], "fee": fee}
    if note:
        quote["note"] = note
    return quote


@edge_tool(intent_tags=["orders"], permissions=["read_local"])
def order_status(order_id: str) -> dict:
    """Look up the status of a local order record.

    Unknown ids are a normal result ({"found": false}), not an exception, so the model can
    tell the user instead of failing the run.
    """
    record = ORDERS.get(order_id.strip().upper())
    if record is None:
        return {"order_id": order_id, "found": False}
    return {"order_id": order_id.strip().upper(), "found": True, **record}


@edge_tool(
    description="Prepare an order draft for review without submitting it.",
    intent_tags=["orders"],
    execution_level="prepare",
    return_direct=True,
    output_schema={
        "type": "object",
        "properties": {
            "draft_id": {"type": "string"},
            "sku": {"type": "string"},
            "quantity": {"type": "integer", "minimum": 1},
            "express": {"type": "boolean"},
            "status": {"type": "string", "enum": ["prepared"]},
        },
        "required": ["draft_id", "sku", "quantity", "express", "status"],
        "additionalProperties": False,
    },
)
def prepare_order(sku: str, quantity: int = 1, express: bool = False) -> dict:
    # The draft id is derived from the inputs, so preparing twice gives the same draft.
    draft_id = f"D-{sku.upper()}-{quantity}{'X' if express else ''}"
    return {"draft_id": draft_id, "sku": sku.upper(), "quantity": quantity, "express": express, "status": "prepared"}


@edge_tool(
    description="Submit a prepared order draft. Needs explicit confirmation before it runs.",
    intent_tags=["orders"],
    execution_level="commit",
    return_direct=True,
    output_schema={
        "type": "object",
        "properties": {
            "order_id": {"type": "string"},
            "draft_id": {"type": "string"},
            "status": {"type": "string", "enum": ["submitted"]},
        },
        "required": ["order_id", "draft_id", "status"],
        "additionalProperties": False,
    },
)
def submit_order(draft_id: str) -> dict:
    # A real tool would write somewhere here; this example only derives a stable order id.
    return {"order_id": "O-" + draft_id.removeprefix("D-"), "draft_id": draft_id, "status": "submitted"}

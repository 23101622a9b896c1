# tools.py
from edgestudio.tools import edge_tool

@edge_tool
def hello_world() -> str:
    return "hello world"

@edge_tool(description="Compute the service fee for an amount.", intent_tags=["billing"])
def calculate_fee(amount: float) -> dict:
    return {"fee": amount * 0.003}

from typing import Literal, Optional
from edgestudio.tools import edge_tool

@edge_tool
def order_status(order_id: str) -> dict:
    """Look up the status of a local order record."""
    return {"order_id": order_id, "status": "shipped"}

@edge_tool(
    name="fee_quote",                 # 默认使用函数名
    description="Quote the fee for a tier.",
    intent_tags=["billing", "quote"], # 供 --tool-tag 选择使用
)
def calculate_fee(
    amount: float,
    tier: Literal["basic", "pro"] = "basic",
    note: Optional[str] = None,
) -> dict:
    return {"fee": amount * (0.003 if tier == "basic" else 0.002)}

@edge_tool(
    description="Prepare an order for review without submitting it.",
    execution_level="prepare",
    return_direct=True,
    output_schema={
        "type": "object",
        "properties": {
            "order_id": {"type": "string"},
            "status": {"type": "string", "enum": ["prepared"]},
        },
        "required": ["order_id", "status"],
        "additionalProperties": False,
    },
)
def prepare_order(order_id: str) -> dict:
    return {"order_id": order_id, "status": "prepared"}

"""Edge Studio compatibility package for tools.py files.

`from edgestudio.tools import edge_tool` is the whole authoring surface; see tools.py.
"""

from .tools import edge_tool

__all__ = ["edge_tool"]

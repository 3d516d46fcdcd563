"""The machinery of tools: the registry, the citation ledger, the loop and the schemas.

It sits below the operations (:mod:`sleuth.ops`), which build their tools with it;
:mod:`sleuth.tools`, above them, is the public face that gathers the built-in ones.
"""

from __future__ import annotations

from sleuth.toolkit.declare import FORMATS, Format, definitions
from sleuth.toolkit.ledger import CheckedAnswer, CitationLedger, Source
from sleuth.toolkit.registry import CallRecord, Registry, Tool, ToolContext, ToolOutput
from sleuth.toolkit.services import Services

__all__ = [
    "FORMATS",
    "CallRecord",
    "CheckedAnswer",
    "CitationLedger",
    "Format",
    "Registry",
    "Services",
    "Source",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "definitions",
]

"""Structured data from pages: the model proposes each value with a quote, and sleuth keeps
only values it finds on the page as a reader sees it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sleuth._lazy import later
from sleuth.structured.models import (
    FieldEvidence,
    FillAnswer,
    FillUsage,
    PageRead,
    Proposal,
    Unsupported,
)

if TYPE_CHECKING:
    from sleuth.structured.engine import fill_pages
    from sleuth.structured.schema import MAX_DEPTH, MAX_LEAVES, Schema, check_schema

# The engine and the schema checks (jsonschema) load when first named, not with the models.
__getattr__ = later(
    __name__,
    {
        "fill_pages": "engine",
        "MAX_DEPTH": "schema",
        "MAX_LEAVES": "schema",
        "Schema": "schema",
        "check_schema": "schema",
    },
)


__all__ = [
    "MAX_DEPTH",
    "MAX_LEAVES",
    "FieldEvidence",
    "FillAnswer",
    "FillUsage",
    "PageRead",
    "Proposal",
    "Schema",
    "Unsupported",
    "check_schema",
    "fill_pages",
]

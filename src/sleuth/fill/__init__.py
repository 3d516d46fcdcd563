"""Structured data from pages: the model proposes each value with a quote, and sleuth keeps
only values it finds on the page as a reader sees it."""

from sleuth.fill.engine import fill_pages
from sleuth.fill.models import FieldEvidence, FillAnswer, FillUsage, PageRead, Proposal, Unsupported
from sleuth.fill.schema import MAX_DEPTH, MAX_LEAVES, Schema, check_schema

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

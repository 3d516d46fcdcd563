"""Fetching one page safely and turning it into text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sleuth._lazy import later
from sleuth.pages.result import SCHEMA_VERSION, ErrorInfo, FetchResult, Outcome

if TYPE_CHECKING:
    from sleuth.pages.fetcher import Fetcher, normalize_input_url

# The fetcher (and httpx under it) loads when first named, not with the page models.
__getattr__ = later(
    __name__,
    {
        "Fetcher": "fetcher",
        "normalize_input_url": "fetcher",
    },
)


__all__ = [
    "SCHEMA_VERSION",
    "ErrorInfo",
    "FetchResult",
    "Fetcher",
    "Outcome",
    "normalize_input_url",
]

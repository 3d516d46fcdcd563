"""Fetching one page safely and turning it into text."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from sleuth.pages.result import SCHEMA_VERSION, ErrorInfo, FetchResult, Outcome

if TYPE_CHECKING:
    from sleuth.pages.fetcher import Fetcher, normalize_input_url

# The fetcher (and httpx under it) loads when first named, not with the page models.
_LATER = {
    "Fetcher": "fetcher",
    "normalize_input_url": "fetcher",
}


def __getattr__(name: str) -> object:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LATER[name]}"), name)


__all__ = [
    "SCHEMA_VERSION",
    "ErrorInfo",
    "FetchResult",
    "Fetcher",
    "Outcome",
    "normalize_input_url",
]

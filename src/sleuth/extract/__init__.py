"""Main-text extraction: sanitised, cited-ready text from one HTML page."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sleuth.extract.pipeline import Extraction, extract

# The pipeline (and trafilatura under it) loads when first named, not with its helpers.
_LATER = {
    "Extraction": "pipeline",
    "extract": "pipeline",
}


def __getattr__(name: str) -> object:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LATER[name]}"), name)


__all__ = ["Extraction", "extract"]

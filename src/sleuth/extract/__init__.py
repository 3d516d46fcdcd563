"""Main-text extraction: sanitised, cited-ready text from one HTML page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sleuth._lazy import later

if TYPE_CHECKING:
    from sleuth.extract.pipeline import Extraction, extract

# The pipeline (and trafilatura under it) loads when first named, not with its helpers.
__getattr__ = later(
    __name__,
    {
        "Extraction": "pipeline",
        "extract": "pipeline",
    },
)


__all__ = ["Extraction", "extract"]

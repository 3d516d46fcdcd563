"""Main-text extraction: sanitised, cited-ready text from one HTML page."""

from sleuth.extract.pipeline import Extraction, extract

__all__ = ["Extraction", "extract"]

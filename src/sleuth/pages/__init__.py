"""Fetching one page safely and turning it into text."""

from sleuth.pages.fetcher import Fetcher, normalize_input_url
from sleuth.pages.result import SCHEMA_VERSION, ErrorInfo, FetchResult, Outcome

__all__ = [
    "SCHEMA_VERSION",
    "ErrorInfo",
    "FetchResult",
    "Fetcher",
    "Outcome",
    "normalize_input_url",
]

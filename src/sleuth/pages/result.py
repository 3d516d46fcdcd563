"""The typed result of one fetch: every fetch ends in exactly one outcome."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field

from sleuth.errors import SleuthError

SCHEMA_VERSION = 1


class Outcome(StrEnum):
    """How one page read ended: ``ok`` or the code of the error that ended it. Each is a
    code of :data:`sleuth.errors.ERRORS` (its exit code and HTTP status), and every error a
    read can end with is here (``tests/test_errors_table.py`` holds both ways)."""

    OK = "ok"
    BLOCKED = "blocked"
    ROBOTS_DISALLOWED = "robots_disallowed"
    HTTP_ERROR = "http_error"
    RATE_LIMITED = "rate_limited"
    TIMEOUT = "timeout"
    TOO_LARGE = "too_large"
    UNSUPPORTED_TYPE = "unsupported_type"
    BLOCK_PAGE = "block_page"
    JS_REQUIRED = "js_required"
    EMPTY_EXTRACTION = "empty_extraction"
    NETWORK_ERROR = "network_error"
    RENDER_UNAVAILABLE = "render_unavailable"
    ENCRYPTED = "encrypted"
    CORRUPT_DOCUMENT = "corrupt_document"
    NO_TEXT_LAYER = "no_text_layer"
    STYLES_UNREAD = "styles_unread"  # strict visibility: a sheet of the page was unread
    OUT_OF_SCOPE = "out_of_scope"  # a crawl's page that redirects outside its scope
    CONTENT_SIGNAL = "content_signal"  # for a model: the site says ai-input=no (a record)


class ErrorInfo(BaseModel):
    code: str
    message: str
    retryable: bool = False

    @classmethod
    def from_error(cls, error: SleuthError) -> ErrorInfo:
        """``error`` as a result carries it, in the library's words (the CLI re-spells its
        hint when it shows it)."""
        return cls(code=error.code, message=str(error), retryable=error.retryable)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class FetchResult(BaseModel):
    schema_version: int = SCHEMA_VERSION
    url: str
    final_url: str | None = None
    status: int | None = None
    content_type: str | None = None
    outcome: str = Outcome.OK
    title: str | None = None
    text: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    truncated: bool = False
    next_start_index: int | None = None
    total_chars: int = 0
    fetched_at: str = Field(default_factory=utc_now)
    cache: Literal["hit", "miss"] = "miss"
    rendered: bool = False
    error: ErrorInfo | None = None
    # Absolute canonical links {url, text, rel, in_content} and images {url, alt};
    # hidden ones are not links. Text and Markdown output show them only on request.
    links: list[dict[str, Any]] = Field(default_factory=list)
    images: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome == Outcome.OK

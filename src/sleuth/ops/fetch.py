"""fetch: one page, safely, as text, Markdown or cleaned HTML (declared on the session)."""

from __future__ import annotations

from typing import Any

from sleuth.ops.base import Http, Op, Refusal
from sleuth.session import AsyncSession
from sleuth.tools.builtin import FETCH_PAGE


def answer(result: Any) -> Any:
    """The page's JSON, or the outcome's error when it could not be read."""
    if result.ok:
        return result.model_dump(mode="json", exclude={"total_chars"})
    error = result.error
    extra: dict[str, Any] = {"url": result.url}
    if result.status is not None:
        extra["status"] = result.status
    message = error.message if error else result.outcome
    return Refusal(result.outcome, message, error.retryable if error else False, extra)


FETCH = Op(
    AsyncSession.fetch,
    http=Http("/api/v1/fetch", "Fetch one page", present=answer, uris=("url",)),
    tool=FETCH_PAGE,
)

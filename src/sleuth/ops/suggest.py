"""suggest: a link's slug, title, description and tags, from an LLM."""

from __future__ import annotations

from typing import Any

from sleuth.api import AsyncSleuth
from sleuth.ops.base import Http, LLMUse, Op
from sleuth.suggest import Suggestion


def check(body: Any) -> None:
    """The suggester's own words for a missing or non-http(s) URL come first."""
    from sleuth.suggest.suggester import check_url

    check_url(body.url)


def spent(result: Any) -> LLMUse:
    return LLMUse(result.provider, result.calls, result.usage, result.cost_usd)


SUGGEST = Op(
    AsyncSleuth.suggest,
    http=Http(
        "/api/v1/links/suggest",
        "Suggest slug, title, description and tags for a URL",
        "503 LLM_NOT_CONFIGURED when no model is set up (before anything else), 401 without "
        "a valid token, 400 for a bad body or URL, 502 LLM_ERROR when the model fails or "
        "answers something else than the JSON asked for. Invalid fields come back empty.",
        schema=Suggestion,
        present=lambda result: result.suggestion.model_dump(),
        uris=("url",),
        check=check,
        llm=spent,
        needs_suggester=True,
    ),
)

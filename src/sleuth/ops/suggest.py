"""suggest: a link's slug, title, description and tags, from an LLM."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from sleuth.operation import Arg, Own, declare
from sleuth.ops.base import HTTP_URL, Http, LLMUse, Op
from sleuth.session import FETCH_ERRORS, LLM_ERRORS, SIGNALS_ARG, AsyncSession
from sleuth.suggest import Suggestion

if TYPE_CHECKING:
    from sleuth.config import Settings
    from sleuth.suggest import SuggestResult


@declare(
    "suggest",
    summary="Suggest a link's slug, title, description and tags.",
    result="sleuth.suggest.fields:Suggestion",
    errors=(*FETCH_ERRORS, *LLM_ERRORS),
    surfaces=("cli", "http"),
    lenient=True,  # the links API's contract: unknown keys are ignored for later use
)
async def suggest(
    session: AsyncSession,
    url: Annotated[
        str,
        Arg(
            "The page to suggest a link for.",
            positional=True,
            metavar="URL",
            # A body without a url gets the suggester's own 400, not a schema error.
            own={"http": Own(default="")},
        ),
    ],
    *,
    title: Annotated[str | None, Arg("The page's title, if known.", metavar="TEXT")] = None,
    description: Annotated[
        str | None, Arg("The page's description, if known.", metavar="TEXT")
    ] = None,
    respect_content_signals: Annotated[bool, SIGNALS_ARG] = True,
) -> SuggestResult:
    """Slug, title, description and tags for a link; see :mod:`sleuth.suggest`."""
    return await session.suggester.suggest(
        url, title, description, respect_content_signals=respect_content_signals
    )


def check(body: Any) -> None:
    """The suggester's own words for a missing or non-http(s) URL come first."""
    from sleuth.suggest.suggester import check_url

    check_url(body.url)


def spent(result: Any) -> LLMUse:
    return LLMUse(result.provider, result.calls, result.usage, result.cost_usd)


def url_required(schema: dict[str, Any], settings: Settings | None) -> None:
    """``url`` is required over HTTP and an absolute http(s) URL (the declaration keeps a
    default for its Python callers)."""
    schema["required"] = sorted({*schema.get("required", []), "url"})
    url = schema["properties"]["url"]
    url.pop("default", None)
    url.update(HTTP_URL)


SUGGEST = Op(
    suggest,
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
        refine=url_required,
    ),
)

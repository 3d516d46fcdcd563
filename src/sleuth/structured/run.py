"""One fill, end to end: the schema read and checked (by the caller, first), then the
pages read through the one fetch path (or found by a search first), then the model asked
and every value checked.

The schema is refused before any page or model request, and a missing model is refused
before any page is read, so a bad call costs nothing.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sleuth.cache import Cache
from sleuth.config import LLMSettings
from sleuth.errors import UsageError
from sleuth.log import Progress
from sleuth.structured.engine import fill_pages
from sleuth.structured.models import FillAnswer
from sleuth.structured.schema import Schema

if TYPE_CHECKING:
    from sleuth.pages import FetchResult
    from sleuth.web import Web
    from sleuth.websearch import ProviderChain


def read_schema(source: dict[str, Any] | Path | str) -> dict[str, Any]:
    """The schema a caller gave, or the JSON in the file it names (``-``: standard input).

    A file that cannot be read or is not JSON is a :class:`UsageError` naming it.
    """
    if isinstance(source, dict):
        return source
    name = str(source)
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(
            f"cannot read the schema file {name!r}: {reason}",
            hint="pass a JSON Schema file, or - to read it from standard input",
        ) from None
    try:
        found = json.loads(text)
    except json.JSONDecodeError as exc:
        where = "standard input" if name == "-" else repr(name)
        raise UsageError(
            f"the schema in {where} is not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            hint="pass a JSON Schema object",
        ) from None
    if not isinstance(found, dict):
        raise UsageError(f"the schema is a JSON {type(found).__name__}, not an object")
    return found


def check_sources(urls: Sequence[str], question: str | None) -> None:
    """Exactly one of ``urls`` and ``question``."""
    if bool(urls) == bool(question and question.strip()):
        raise UsageError(
            "give either the pages' URLs or a question, not both and not neither",
            hint="pass URLs to read those pages, or a question to search for them",
        )


async def _search(chain: ProviderChain, question: str, wanted: int) -> list[str]:
    from sleuth.websearch import SearchQuery

    response = await chain.search(SearchQuery(query=question, max_results=min(wanted * 2, 10)))
    urls = list(dict.fromkeys(hit.url for hit in response.results))
    return urls[:wanted]


async def run_fill(
    schema: Schema,
    *,
    urls: Sequence[str],
    question: str | None,
    web: Web,
    chain: ProviderChain,
    llm: LLMSettings,
    cache: Cache,
    max_pages: int,
    for_model: bool = True,
    on_progress: Progress | None = None,
) -> FillAnswer:
    """Fill ``schema`` (checked: :func:`check_schema`) from ``urls``, or from the top
    ``max_pages`` results for ``question``. ``for_model`` leaves out a site that says
    ``ai-input=no`` (a person may pass ``False``)."""
    from sleuth.llm.meter import Meter

    def progress(stage: str, **detail: Any) -> None:
        if on_progress is not None:
            on_progress(stage, detail)

    meter = Meter.connect(llm, web.clients, cache)  # llm_not_configured before any read
    try:
        if question:
            progress("searching", query=question)
            urls = await _search(chain, question, max_pages)
        progress("reading", pages=len(urls))

        async def read(url: str) -> FetchResult:
            result = await web.fetcher.fetch(
                url, respect_robots=True, max_chars=None, for_model=for_model
            )
            progress("page", url=url, outcome=str(result.outcome))
            return result

        pages = await asyncio.gather(*(read(url) for url in urls))
        progress("filling", pages=sum(1 for page in pages if page.ok))
        return await fill_pages(schema, pages, meter, deadline=time.monotonic() + llm.llm_deadline)
    finally:
        await meter.aclose()

"""fetch: one page, safely, as text, Markdown or cleaned HTML (declared on the session)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from sleuth.extract.text import clean_line
from sleuth.operation import operation_of
from sleuth.ops.base import Http, Op, Refusal
from sleuth.session import AsyncSession
from sleuth.toolkit import Tool, ToolContext, ToolOutput


class PageOutput(BaseModel):
    id: int = Field(description="Cite this page as [id].")
    url: str
    final_url: str | None
    title: str | None
    text: str
    start_index: int
    next_start_index: int | None = Field(description="Pass as start_index to read more.")
    total_chars: int
    cache: str
    links: list[dict[str, Any]] = Field(
        default_factory=list, description="The page's links: {url, text, rel, in_content}."
    )


async def fetch_page(context: ToolContext, args: Any) -> ToolOutput:
    # robots.txt is obeyed, and the site's content signals: a model asked for this page.
    result = await context.client.fetch(
        **operation_of(AsyncSession.fetch).arguments("tool", args),
        respect_robots=True,
        for_model=context.respect_content_signals,
    )
    if result.error is not None:
        return ToolOutput(
            f"error {result.error.code}: could not read {args.url}: {result.error.message}",
            error=result.error,
        )
    url = result.final_url or result.url
    title = clean_line(result.title or "")
    source_id = context.ledger.issue(url, title, kind="page", fetched=True)
    if url != result.url:
        context.ledger.issue(result.url, title, kind="page", fetched=True)
    data = PageOutput(
        id=source_id,
        url=result.url,
        final_url=result.final_url,
        title=result.title,
        text=result.text,
        start_index=args.start_index,
        next_start_index=result.next_start_index,
        total_chars=result.total_chars,
        cache=result.cache,
        links=result.links,
    )
    end = args.start_index + len(result.text)
    lines = [
        f"[{source_id}] {title or url}",
        f"URL: {url}",
        f"Characters {args.start_index}-{end} of {result.total_chars}.",
        "",
        result.text,
    ]
    if result.next_start_index is not None:
        lines += ["", f"(cut here: call fetch_page with start_index={result.next_start_index})"]
    return ToolOutput("\n".join(lines), data)


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


FETCH_PAGE = Tool.declared(AsyncSession.fetch, fetch_page, PageOutput)
FETCH = Op(
    AsyncSession.fetch,
    http=Http("/api/v1/fetch", "Fetch one page", present=answer, uris=("url",)),
    tool=FETCH_PAGE,
)

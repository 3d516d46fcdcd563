"""fetch: one page, safely, as text, Markdown or cleaned HTML."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field

from sleuth.extract.text import clean_line
from sleuth.operation import Arg, Own, ToolOffer, declare, operation_of
from sleuth.ops.base import Http, Op, Refusal, session_of
from sleuth.session import (
    FETCH_ERRORS,
    RENDER_ARG,
    ROBOTS_ARG,
    URL_ARG,
    AsyncSession,
    RenderMode,
)
from sleuth.toolkit import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from sleuth.pages import FetchResult


@declare(
    "fetch",
    summary="Fetch a page safely and print its main text.",
    errors=FETCH_ERRORS,
    tool=ToolOffer(
        "fetch_page",
        "Fetch page",
        "Read the main text of a web page (public http/https URLs; robots.txt is obeyed). "
        "Long pages come in parts: pass next_start_index as start_index to read on. "
        "Cite the page as [n].",
    ),
)
async def fetch(
    session: AsyncSession,
    url: Annotated[str, URL_ARG],
    *,
    format: Annotated[
        Literal["text", "markdown", "html"],
        Arg(
            "Main text, Markdown, or the cleaned main-content HTML.",
            on=("cli", "http"),
            flags=("--format", "-f"),
        ),
    ] = "text",
    max_chars: Annotated[
        int | None,
        Arg(
            "At most this many characters of text; read on from start_index.",
            ge=1,
            metavar="N",
            own={
                "cli": Own(help="Print at most N characters; page on with --start-index."),
                "tool": Own(default=5000, ge=200, le=20000, help="Characters to return."),
            },
        ),
    ] = None,
    start_index: Annotated[
        int,
        Arg(
            "Start at character N of the text.",
            ge=0,
            metavar="N",
            own={"tool": Own(help="Character to start from, to read on where a page was cut.")},
        ),
    ] = 0,
    render: Annotated[RenderMode | None, RENDER_ARG] = None,
    refresh: Annotated[bool, Arg("Bypass the cache.", on=("cli", "http"))] = False,
    respect_robots: Annotated[bool, ROBOTS_ARG] = True,
    for_model: bool = False,
) -> FetchResult:
    """Fetch one page; robots.txt is obeyed unless ``respect_robots=False``.

    ``for_model``: the page goes to a model (a tool call), so a site that says
    ``Content-Signal: ai-input=no`` ends it as ``content_signal``."""
    return await session.fetcher.fetch(
        url,
        output=format,
        render=render,
        refresh=refresh,
        respect_robots=respect_robots,
        max_chars=max_chars,
        start_index=start_index,
        for_model=for_model,
    )


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
    result = await fetch(
        session_of(context),
        **operation_of(fetch).arguments("tool", args),
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


FETCH_PAGE = Tool.declared(fetch, fetch_page, PageOutput)
FETCH = Op(
    fetch,
    http=Http("/api/v1/fetch", "Fetch one page", present=answer, uris=("url",)),
    tool=FETCH_PAGE,
)

"""research: a question answered with cited bullets from searched and read pages."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

from sleuth.log import Progress
from sleuth.operation import BLANK_PATTERN, Arg, Own, ToolOffer, declare, operation_of
from sleuth.ops.base import Http, Op, describe, session_of
from sleuth.session import (
    MAX_QUESTION_CHARS,
    RECENCY_ARG,
    SEARCH_ERRORS,
    SIGNALS_ARG,
    SITES_ARG,
    AsyncSession,
)
from sleuth.toolkit import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from sleuth.digest.models import Digest


@declare(
    "research",
    summary="Answer a question with cited bullets.",
    errors=SEARCH_ERRORS,  # pages that fail are the digest's errors, not raised
    tool=ToolOffer(
        "research",
        "Research",
        "Answer a question from the web: searches, reads the best pages and returns short "
        "verbatim findings, each citing its page as [n]. Slower than web_search, but every "
        "finding comes from a page that was actually read.",
    ),
)
async def research(
    session: AsyncSession,
    question: Annotated[
        str,
        Arg(
            "The question to research.",
            what="the research question",
            min_length=1,
            max_length=MAX_QUESTION_CHARS,
            pattern=BLANK_PATTERN,
            positional=True,
            metavar="QUESTION",
        ),
    ],
    *,
    focus: Annotated[str | None, Arg("What matters most in the answer.", metavar="TEXT")] = None,
    max_results: Annotated[
        int | None,
        Arg(
            "Search results to consider, 1-10. Default: SLEUTH_MAX_RESULTS.",
            ge=1,
            le=10,
            on=("cli", "http"),
            metavar="N",
        ),
    ] = None,
    max_pages: Annotated[
        int | None,
        Arg(
            "Pages to read, 1-10. Default: SLEUTH_MAX_PAGES.",
            ge=1,
            le=10,
            metavar="N",
            own={"tool": Own(default=3, le=5, help="Pages to read, 1-5.")},
        ),
    ] = None,
    recency_days: Annotated[int | None, RECENCY_ARG] = None,
    sites: Annotated[Sequence[str], replace(SITES_ARG, on=("cli", "http"))] = (),
    deadline: Annotated[
        float | None,
        Arg(
            "Overall time in seconds; pages still loading then are dropped. "
            "Default: SLEUTH_RESEARCH_DEADLINE.",
            ge=0.1,
            le=600,
            on=("cli", "http"),
            metavar="SECONDS",
        ),
    ] = None,
    respect_content_signals: Annotated[bool, SIGNALS_ARG] = True,
    on_progress: Progress | None = None,
) -> Digest:
    from sleuth.digest import run_research

    return await run_research(
        question,
        research=session.settings.research,
        chain=session.chain,
        web=session.web,
        focus=focus,
        max_results=max_results,
        max_pages=max_pages,
        recency_days=recency_days,
        sites=sites,
        deadline=deadline,
        on_progress=on_progress,
        respect_content_signals=respect_content_signals,
    )


def progress(stage: str, detail: dict[str, Any]) -> str:
    """The line a person watching research reads (the CLI's status and MCP's progress)."""
    if stage == "ranking":
        pages = detail.get("pages", 0)
        return f"ranking passages from {pages} page{'' if pages == 1 else 's'}"
    return describe(stage, detail)


async def run(context: ToolContext, args: Any) -> ToolOutput:
    digest = await research(
        session_of(context),
        **operation_of(research).arguments("tool", args),
        on_progress=context.on_progress,
        respect_content_signals=context.respect_content_signals,
    )
    renumbered = {
        citation.id: context.ledger.issue(citation.url, citation.title, kind="page", fetched=True)
        for citation in digest.citations
    }
    digest = digest.model_copy(
        update={
            "bullets": [
                bullet.model_copy(update={"citations": [renumbered[n] for n in bullet.citations]})
                for bullet in digest.bullets
            ],
            "citations": [
                citation.model_copy(update={"id": renumbered[citation.id]})
                for citation in digest.citations
            ],
        }
    )
    lines = [f"Findings for {args.question!r} (quotes from the pages read):"]
    for bullet in digest.bullets:
        marks = "".join(f"[{n}]" for n in bullet.citations)
        lines.append(f"- {bullet.text} {marks}")
    if not digest.bullets:
        lines.append("(no findings)")
    if digest.citations:
        lines.append("Sources:")
        lines += [f"[{c.id}] {c.title} - {c.url}" for c in digest.citations]
    for error in digest.errors:
        where = f"{error.url}: " if error.url else ""
        lines.append(f"Not read: {where}{error.code}")
    return ToolOutput("\n".join(lines), digest)


@functools.cache
def research_tool() -> Tool:
    """The research tool, built when first offered: the digest's models load then."""
    from sleuth.digest.models import Digest

    return Tool.declared(research, run, Digest)


RESEARCH = Op(
    research,
    http=Http(
        "/api/v1/research",
        "Research a question into cited bullets",
        "With `Accept: text/event-stream` the answer is a stream of `progress` events, "
        "then one `result` (the digest) or `error` event.",
        stream=True,
    ),
    progress=progress,
    tool=research_tool,
)

"""research: a question answered with cited bullets from searched and read pages."""

from __future__ import annotations

from typing import Any

from sleuth.digest.models import Digest
from sleuth.operation import operation_of
from sleuth.ops.base import Http, Op, describe
from sleuth.session import AsyncSession
from sleuth.toolkit import Tool, ToolContext, ToolOutput


def progress(stage: str, detail: dict[str, Any]) -> str:
    """The line a person watching research reads (the CLI's status and MCP's progress)."""
    if stage == "searching":
        return f"searching the web for {detail.get('query', '')!r}"
    if stage == "reading":
        pages = detail.get("pages", 0)
        return f"reading {pages} page{'' if pages == 1 else 's'}"
    if stage == "page":
        outcome = detail.get("outcome", "ok")
        url = detail.get("url", "")
        return f"page done: {url}" if outcome == "ok" else f"page not read ({outcome}): {url}"
    if stage == "ranking":
        pages = detail.get("pages", 0)
        return f"ranking passages from {pages} page{'' if pages == 1 else 's'}"
    return describe(stage, detail)


async def run(context: ToolContext, args: Any) -> ToolOutput:
    digest = await context.client.research(
        **operation_of(AsyncSession.research).arguments("tool", args),
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


RESEARCH_TOOL = Tool.declared(AsyncSession.research, run, Digest)
RESEARCH = Op(
    AsyncSession.research,
    http=Http(
        "/api/v1/research",
        "Research a question into cited bullets",
        "With `Accept: text/event-stream` the answer is a stream of `progress` events, "
        "then one `result` (the digest) or `error` event.",
        stream=True,
    ),
    progress=progress,
    tool=RESEARCH_TOOL,
)

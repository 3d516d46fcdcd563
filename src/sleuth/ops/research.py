"""research: a question answered with cited bullets from searched and read pages."""

from __future__ import annotations

from typing import Any

from sleuth.ops.base import Http, Op, describe
from sleuth.session import AsyncSession
from sleuth.tools.builtin import RESEARCH as RESEARCH_TOOL


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

"""map: a site's URLs from its sitemaps, feeds and start page (CLI and tool)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field

from sleuth.operation import Arg, Own, ToolOffer, declare, operation_of
from sleuth.ops.base import Op, session_of
from sleuth.session import (
    EXCLUDE_ARG,
    FETCH_ERRORS,
    INCLUDE_ARG,
    ROBOTS_ARG,
    SCOPE_ARG,
    AsyncSession,
    Scope,
)
from sleuth.toolkit import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from sleuth.crawl.run import SiteMap


@declare(
    "map",
    summary="List a site's URLs from its sitemaps, feeds and links.",
    errors=FETCH_ERRORS,
    surfaces=("cli", "tool"),
    tool=ToolOffer(
        "map_site",
        "Map site",
        "List a site's URLs (from its sitemaps, feeds and start page) without reading "
        "them. Use it to find the right pages of a documentation site, then read them "
        "with fetch_page.",
        in_ask=False,
    ),
)
async def map(
    session: AsyncSession,
    url: Annotated[
        str,
        Arg(
            "The site's start page.",
            min_length=1,
            positional=True,
            metavar="URL",
            own={"tool": Own(help="The site's start page (http or https).")},
        ),
    ],
    *,
    scope: Annotated[Scope, SCOPE_ARG] = "host",
    include: Annotated[Sequence[str], INCLUDE_ARG] = (),
    exclude: Annotated[Sequence[str], EXCLUDE_ARG] = (),
    limit: Annotated[
        int,
        Arg(
            "At most N URLs.",
            ge=1,
            le=100_000,
            metavar="N",
            own={"tool": Own(default=100, le=1000, help="At most this many URLs.")},
        ),
    ] = 10_000,
    respect_robots: Annotated[
        bool,
        replace(ROBOTS_ARG, own={"cli": Own(help="Read even where robots.txt forbids it.")}),
    ] = True,
    deadline: float | None = None,
) -> SiteMap:
    """A site's URLs from its sitemaps, feeds and start page, without reading them all.
    ``deadline`` (seconds; Python only, the tool passes its setting) ends the map with
    what it has and a note."""
    from sleuth.crawl.run import site_map

    return await site_map(
        session.web,
        url,
        scope=scope,
        include=tuple(include),
        exclude=tuple(exclude),
        limit=limit,
        respect_robots=respect_robots,
        deadline=deadline,
    )


class MapSiteOutput(BaseModel):
    url: str
    entries: list[dict[str, Any]] = Field(description="{url, source, lastmod} per URL.")
    notes: list[str] = Field(
        description="What could not be read or was left out, and whether the deadline ended it."
    )


NOTES_SHOWN = 5  # summaries (the deadline, a skipped host) come first among a run's notes


def note_lines(notes: list[str]) -> list[str]:
    lines = [f"Note: {note}" for note in notes[:NOTES_SHOWN]]
    if len(notes) > NOTES_SHOWN:
        lines.append(f"({len(notes) - NOTES_SHOWN} more notes)")
    return lines


async def map_site(context: ToolContext, args: Any) -> ToolOutput:
    # A model's call is bounded: at the deadline the map returns what it has found.
    deadline = context.client.settings.crawl.crawl_tool_deadline
    found = await map(
        session_of(context), **operation_of(map).arguments("tool", args), deadline=deadline
    )
    entries = [entry.model_dump() for entry in found.entries]
    lines = [f"{len(entries)} URLs of {found.url} (from sitemaps, feeds and the start page):"]
    lines += [f"- {e['url']} ({e['source']})" for e in entries]
    lines += note_lines(found.notes)
    lines.append("Read a page with fetch_page before relying on it.")
    data = MapSiteOutput(url=found.url, entries=entries, notes=found.notes)
    return ToolOutput("\n".join(lines), data)


MAP_SITE = Tool.declared(map, map_site, MapSiteOutput)
MAP = Op(map, tool=MAP_SITE)

"""map: a site's URLs from its sitemaps, feeds and start page (CLI and tool)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from sleuth.operation import operation_of
from sleuth.ops.base import Op
from sleuth.session import AsyncSession
from sleuth.toolkit import Tool, ToolContext, ToolOutput


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
    found = await context.client.map(
        **operation_of(AsyncSession.map).arguments("tool", args), deadline=deadline
    )
    entries = [entry.model_dump() for entry in found.entries]
    lines = [f"{len(entries)} URLs of {found.url} (from sitemaps, feeds and the start page):"]
    lines += [f"- {e['url']} ({e['source']})" for e in entries]
    lines += note_lines(found.notes)
    lines.append("Read a page with fetch_page before relying on it.")
    data = MapSiteOutput(url=found.url, entries=entries, notes=found.notes)
    return ToolOutput("\n".join(lines), data)


MAP_SITE = Tool.declared(AsyncSession.map, map_site, MapSiteOutput)
MAP = Op(AsyncSession.map, tool=MAP_SITE)

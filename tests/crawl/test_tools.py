"""The LLM tools ``map_site`` and ``crawl_site`` through the tool registry."""

from __future__ import annotations

import pytest
from sitegen import tree_site

from loopback import Site
from sleuth.config import Settings
from sleuth.errors import ToolError
from sleuth.ops.crawl import CRAWL_SITE
from sleuth.ops.map import MAP_SITE
from sleuth.session import AsyncSession
from sleuth.tools import CitationLedger, Registry, ToolContext, ToolOutput


async def acall(
    name: str,
    arguments: dict[str, object],
    *,
    client: AsyncSession,
    ledger: CitationLedger | None = None,
) -> ToolOutput:
    """One call through a registry holding the crawl tools, as a model would make it."""
    registry = Registry([MAP_SITE, CRAWL_SITE])
    tool, parsed = registry.validate(name, arguments)
    context = ToolContext(client=client, ledger=ledger or CitationLedger())
    return (await registry.call(context, tool.name, parsed.model_dump())).output


def settings(site: Site) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")


async def test_crawl_site_returns_an_index_and_text_within_budget(site: Site) -> None:
    tree_site(site, 40, fanout=6)
    ledger = CitationLedger()
    async with AsyncSession(settings(site)) as session:
        output = await acall(
            "crawl_site",
            {"url": site.origin, "max_pages": 5, "max_chars": 1000},
            client=session,
            ledger=ledger,
        )
    data = output.data.model_dump()
    assert len(data["pages"]) == 5
    assert data["index"].startswith("# Page 0")
    assert sum(len(page["text"]) for page in data["pages"]) <= 1000
    assert "[1] Page 0" in output.text
    assert len([p for p in site.paths() if p.startswith("/p/")]) == 4


async def test_crawl_site_is_bounded_to_twenty_pages(site: Site) -> None:
    async with AsyncSession(settings(site)) as session:
        with pytest.raises(ToolError):
            await acall("crawl_site", {"url": site.origin, "max_pages": 21}, client=session)


async def test_map_site_lists_urls(site: Site) -> None:
    tree_site(site, 5, fanout=4)
    async with AsyncSession(settings(site)) as session:
        output = await acall("map_site", {"url": site.origin}, client=session)
    urls = [entry["url"] for entry in output.data.model_dump()["entries"]]
    assert urls == [f"{site.origin}/"] + [f"{site.origin}/p/{n}" for n in range(1, 5)]
    assert f"- {site.origin}/p/4 (links)" in output.text


async def test_fetch_page_output_carries_links(site: Site) -> None:
    from sleuth.tools import acall as registry_call

    tree_site(site, 4, fanout=3)
    async with AsyncSession(settings(site)) as session:
        output = await registry_call("fetch_page", {"url": site.origin}, client=session)
    links = output.data.model_dump()["links"]
    assert [link["url"] for link in links] == [f"{site.origin}/p/{n}" for n in range(1, 4)]

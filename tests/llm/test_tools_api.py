"""``sleuth.tools``: one tool call by name, for people who run their own loop."""

from __future__ import annotations

from pathlib import Path

import pytest

import sleuth
from llm.pages import NIMBUS_FACTS
from loopback import Web
from sleuth.api import AsyncSleuth
from sleuth.errors import ToolError, UnknownTool
from sleuth.ops.fetch import PageOutput
from sleuth.ops.search import WebSearchOutput
from sleuth.tools import CitationLedger, acall, tool_definitions


async def test_search_then_fetch_share_one_ledger(web: Web) -> None:
    other = web.page("/other", "Nimbus elsewhere", NIMBUS_FACTS)
    url = web.page("/nimbus", "Nimbus timeouts", NIMBUS_FACTS)
    ledger = CitationLedger()  # empty, so a careless "ledger or new" would drop it
    async with AsyncSleuth(web.settings()) as client:
        found = await acall("web_search", {"query": "nimbus"}, client=client, ledger=ledger)
        page = await acall(
            "fetch_page", {"url": url, "max_chars": 300}, client=client, ledger=ledger
        )
    assert isinstance(found.data, WebSearchOutput)
    assert [(item.id, item.url) for item in found.data.results] == [(1, other), (2, url)]
    assert isinstance(page.data, PageOutput)
    assert page.data.id == 2  # the id the search issued, from the caller's ledger
    assert len(ledger) == 2
    assert page.data.next_start_index == 300
    assert page.text.startswith(f"[2] Nimbus timeouts\nURL: {url}\nCharacters 0-300 of")
    assert "start_index=300" in page.text


async def test_a_web_failure_comes_back_as_an_error_not_an_exception(web: Web) -> None:
    web.site.add("/robots.txt", "User-agent: *\nDisallow: /private\n")
    url = web.page("/private/notes", "Private", NIMBUS_FACTS)
    async with AsyncSleuth(web.settings()) as client:
        out = await acall("fetch_page", {"url": url}, client=client)
    assert out.data is None
    assert out.error is not None
    assert out.error.code == "robots_disallowed"
    assert out.text.startswith("error robots_disallowed: could not read")


async def test_bad_calls_raise_typed_errors(web: Web) -> None:
    async with AsyncSleuth(web.settings()) as client:
        with pytest.raises(UnknownTool, match="no tool named 'rm'") as unknown:
            await acall("rm", {}, client=client)
        with pytest.raises(ToolError, match="max_results") as invalid:
            await acall("web_search", {"query": "x", "max_results": 99}, client=client)
    assert unknown.value.exit_code == 54
    assert invalid.value.exit_code == 55
    assert "web_search, fetch_page, research" in unknown.value.hint


def test_the_blocking_call_and_definitions_from_the_package(
    web: Web, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    url = web.page("/nimbus", "Nimbus timeouts", NIMBUS_FACTS)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("SLEUTH_ALLOW_HOSTS", f"127.0.0.1:{web.site.port}")
    monkeypatch.setenv("SLEUTH_CACHE", "memory")
    monkeypatch.setenv("SLEUTH_RENDER", "never")
    out = sleuth.tools.call("fetch_page", {"url": url})
    assert out.error is None
    assert "thirty seconds" in out.text
    names = [tool["name"] for tool in tool_definitions("anthropic")]
    assert names == ["web_search", "fetch_page", "research", "map_site", "crawl_site", "detect"]

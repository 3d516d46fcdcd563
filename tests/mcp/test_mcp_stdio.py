"""The MCP server as an MCP client launches it: a subprocess speaking over stdin and stdout."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import TextContent
from mcp_web import SearxngWeb

from sleuth._version import __version__


async def test_stdio_server_lists_tools_and_runs_them(web: SearxngWeb, tmp_path: Path) -> None:
    command = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sleuth.server.mcp", "--transport", "stdio"],
        env=web.env(tmp_path),
    )

    async with Client(command) as client:
        info = client.server_info
        listed = (await client.list_tools()).tools
        searched = await client.call_tool("web_search", {"query": "nimbus timeout"})
        first = searched.structured_content["results"][0]
        fetched = await client.call_tool("fetch_page", {"url": first["url"]})
        refused = await client.call_tool("fetch_page", {"url": web.site.origin + "/private/x"})

    assert info is not None
    assert (info.name, info.version) == ("sleuth", __version__)
    assert [tool.name for tool in listed] == [
        "web_search",
        "fetch_page",
        "research",
        "map_site",
        "crawl_site",
        "detect",
        "discover",
    ]
    assert all(tool.output_schema is not None for tool in listed)
    assert not searched.is_error
    assert [r["url"] for r in searched.structured_content["results"]] == [
        r["url"] for r in web.results
    ]
    assert web.searches == ["nimbus timeout"]
    assert not fetched.is_error
    assert fetched.structured_content["id"] == first["id"] == 1
    assert fetched.structured_content["title"] == "Nimbus timeouts"
    assert "default timeout of five seconds" in fetched.structured_content["text"]
    block = fetched.content[0]
    assert isinstance(block, TextContent)
    assert block.text.startswith("[1] Nimbus timeouts")
    assert refused.is_error
    refusal = refused.content[0]
    assert isinstance(refusal, TextContent)
    assert refusal.text.startswith("error robots_disallowed: ")
    assert web.page_paths() == ["/docs/timeouts"]


async def test_the_sleuth_mcp_command_serves_the_same_tools(
    web: SearxngWeb, tmp_path: Path
) -> None:
    command = StdioServerParameters(
        command=sys.executable, args=["-m", "sleuth", "mcp"], env=web.env(tmp_path)
    )

    async with Client(command) as client:
        listed = (await client.list_tools()).tools
        searched = await client.call_tool("web_search", {"query": "nimbus"})

    assert [tool.name for tool in listed] == [
        "web_search",
        "fetch_page",
        "research",
        "map_site",
        "crawl_site",
        "detect",
        "discover",
    ]
    assert not searched.is_error
    assert len(searched.structured_content["results"]) == 2
    assert web.searches == ["nimbus"]

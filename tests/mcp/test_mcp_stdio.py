"""The MCP server as an MCP client launches it: a subprocess speaking over stdin and stdout."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import TextContent
from mcp_web import SearxngWeb

from mcp_cancel import hold_page
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
        "fill_schema",
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
        "fill_schema",
    ]
    assert not searched.is_error
    assert len(searched.structured_content["results"]) == 2
    assert web.searches == ["nimbus"]


def test_a_cancelled_stdio_call_stops_and_gets_no_response(web: SearxngWeb, tmp_path: Path) -> None:
    """Raw JSON-RPC lines, so the test sees every line the server writes: after a
    ``notifications/cancelled`` the call stops reading the page, and the next request's
    answer comes with no answer for the cancelled id before it."""
    held = hold_page(web.site)
    env = {**web.env(tmp_path), "SLEUTH_READ_TIMEOUT": "300", "SLEUTH_FETCH_DEADLINE": "300"}
    process = subprocess.Popen(
        [sys.executable, "-m", "sleuth.server.mcp", "--transport", "stdio"],
        env={**os.environ, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[dict[str, Any]] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(json.loads(line))

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        process.stdin.flush()

    def until(request_id: int) -> list[dict[str, Any]]:
        seen = []
        while True:
            message = lines.get(timeout=60)
            seen.append(message)
            if message.get("id") == request_id:
                return seen

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        version = {"name": "t", "version": "1"}
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": version}
        send({"id": 1, "method": "initialize", "params": params})
        until(1)
        send({"method": "notifications/initialized"})
        call = {"name": "fetch_page", "arguments": {"url": held.url}}
        send({"id": 2, "method": "tools/call", "params": call})
        assert held.asked.wait(60), "the tool never reached the page"
        send({"method": "notifications/cancelled", "params": {"requestId": 2}})
        assert held.dropped.wait(60), "the call went on after the cancel"
        send({"id": 3, "method": "tools/list"})
        seen = until(3)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        code = process.wait(timeout=60)
        reader.join(30)

    assert [m for m in seen if m.get("id") == 2] == []
    assert "fetch_page" in [tool["name"] for tool in seen[-1]["result"]["tools"]]
    assert not held.answered.is_set()
    assert code == 0

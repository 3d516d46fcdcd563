"""The MCP server over streamable HTTP on loopback, in its own process, stopped by a signal."""

from __future__ import annotations

import json
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import pytest
from mcp.client import Client
from mcp.types import TextContent
from mcp_web import QUESTION, SearxngWeb, ServerProcess

from mcp_cancel import answered_on_the_wire, cancel_a_call, hold_page
from sleuth.toolset import offered_registry


@pytest.fixture
def server(web: SearxngWeb, tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(web.env(tmp_path))
    try:
        yield process
    finally:
        process.kill()


def endpoint(server: ServerProcess) -> str:
    """The server's URL once it accepts connections."""
    url = server.wait_ready()
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1"
    assert parts.path == "/mcp"
    assert parts.port is not None
    with socket.create_connection(("127.0.0.1", parts.port), timeout=10):
        pass
    return url


async def test_http_server_serves_every_tool_and_stops_cleanly_on_sigterm(
    server: ServerProcess, web: SearxngWeb
) -> None:
    url = endpoint(server)
    progress: list[str | None] = []
    ranked = anyio.Event()

    async def on_progress(_progress: float, _total: float | None, message: str | None) -> None:
        progress.append(message)
        if message and message.startswith("ranking"):
            ranked.set()

    async with Client(url) as client:
        listed = (await client.list_tools()).tools
        searched = await client.call_tool("web_search", {"query": "nimbus"})
        blog = searched.structured_content["results"][1]
        fetched = await client.call_tool("fetch_page", {"url": blog["url"]})
        researched = await client.call_tool(
            "research", {"question": QUESTION, "max_pages": 2}, progress_callback=on_progress
        )
        with anyio.fail_after(10):  # a notification may be handled just after the result
            await ranked.wait()

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
    assert all(tool.annotations and tool.annotations.read_only_hint for tool in listed)
    assert not searched.is_error
    assert [r["title"] for r in searched.structured_content["results"]] == [
        "Nimbus timeouts",
        "Moving to Nimbus",
    ]
    assert not fetched.is_error
    assert fetched.structured_content["id"] == blog["id"] == 2
    assert "default timeout of five seconds" in fetched.structured_content["text"]
    assert not researched.is_error
    digest = researched.structured_content
    assert digest["meta"]["fetched_pages"] == 2
    assert any("five seconds" in bullet["text"] for bullet in digest["bullets"])
    block = researched.content[0]
    assert isinstance(block, TextContent)
    assert block.text.startswith("Findings for")
    # The ledger is the server's: the two pages read keep the ids their search results had.
    assert f"searching the web for {QUESTION!r}" in progress
    search_ids = {r["url"]: r["id"] for r in searched.structured_content["results"]}
    assert digest["citations"]
    assert all(c["id"] == search_ids[c["url"]] for c in digest["citations"])

    assert server.stop(signal.SIGTERM) == 0
    assert "Traceback" not in server.log


async def test_http_server_stops_cleanly_on_sigint(server: ServerProcess) -> None:
    url = endpoint(server)
    async with Client(url) as client:
        listed = (await client.list_tools()).tools

    assert [tool.name for tool in listed] == [tool.name for tool in offered_registry()]
    assert server.stop(signal.SIGINT) == 0
    assert "Traceback" not in server.log
    assert "warning" not in server.log  # loopback: no warning about a public address


def test_http_server_refuses_a_rebound_host_and_a_foreign_origin(server: ServerProcess) -> None:
    """``sleuth mcp --transport http`` keeps the SDK's DNS-rebinding protection on: a page
    that rebinds its own name to loopback, or posts from its own origin, gets nothing."""
    import httpx

    url = endpoint(server)
    port = urlsplit(url).port
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    with httpx.Client(timeout=30) as client:
        rebound = client.post(
            url, json=initialize, headers={**headers, "Host": f"attacker.example:{port}"}
        )
        foreign = client.post(
            url, json=initialize, headers={**headers, "Origin": "https://evil.example"}
        )
        plain = client.post(url, content=json.dumps(initialize), headers={**headers})
        # The server keeps sessions (docs/mcp.md): a request with no session id is refused.
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        sessionless = client.post(url, json=listing, headers=headers)
        opened = client.post(url, json=initialize, headers=headers)
    assert rebound.status_code == 421
    assert foreign.status_code == 403
    assert plain.status_code in (400, 415)  # no Content-Type: never read as JSON
    assert sessionless.status_code == 400
    assert opened.status_code == 200
    assert opened.headers["mcp-session-id"]
    assert server.stop(signal.SIGTERM) == 0


async def test_a_cancelled_call_stops_and_gets_no_response(web: SearxngWeb, tmp_path: Path) -> None:
    """``notifications/cancelled`` stops the call before it reads on, and nothing answers
    it: the call's event stream ends with no message for its id (the SDK would send -32800)."""
    held = hold_page(web.site)
    env = {**web.env(tmp_path), "SLEUTH_READ_TIMEOUT": "300", "SLEUTH_FETCH_DEADLINE": "300"}
    server = ServerProcess(env)
    try:
        tap, outcome, listed = await cancel_a_call(endpoint(server), held)
        assert server.stop(signal.SIGTERM) == 0
    finally:
        server.kill()

    assert answered_on_the_wire(outcome) == []
    assert tap.call_id is not None
    assert [m for m in tap.messages() if m.get("id") == tap.call_id] == []
    assert not held.answered.is_set()
    assert "fetch_page" in listed  # the session goes on
    assert "Traceback" not in server.log

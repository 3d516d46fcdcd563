"""MCP at ``/mcp`` on the ``sleuth serve`` app, through the official SDK client, with tokens."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from server.harness import QUESTION, TOKEN, SearxngWeb, ServerProcess
from sleuth.server.mcp import mcp_registry

Launch = Callable[..., ServerProcess]


async def test_mcp_is_served_at_mcp_with_the_same_tokens(launch: Launch, web: SearxngWeb) -> None:
    server = launch()
    progress: list[str | None] = []

    async def on_progress(_progress: float, _total: float | None, message: str | None) -> None:
        progress.append(message)

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as http,
        Client(streamable_http_client(server.url + "/mcp", http_client=http)) as client,
    ):
        listed = [tool.name for tool in (await client.list_tools()).tools]
        searched = await client.call_tool("web_search", {"query": "nimbus"})
        researched = await client.call_tool(
            "research", {"question": QUESTION, "max_pages": 2}, progress_callback=on_progress
        )
        blocked = await client.call_tool("fetch_page", {"url": "http://10.0.0.1/"})

    # detect reads this machine's disk: never offered over the network; discover is.
    offered = [tool.name for tool in mcp_registry(local=False)]
    assert listed == offered
    assert {"web_search", "fetch_page", "research", "discover"} <= set(listed)
    assert "detect" not in listed
    assert not searched.is_error
    titles = [r["title"] for r in searched.structured_content["results"]]
    assert titles == ["Nimbus timeouts", "Moving to Nimbus"]
    assert not researched.is_error
    assert researched.structured_content["meta"]["fetched_pages"] == 2
    assert blocked.is_error
    assert "blocked" in blocked.content[0].text  # type: ignore[union-attr]

    metrics = server.get("/metrics").text
    assert 'route="/mcp"' in metrics

    with httpx.Client(base_url=server.url, timeout=30) as plain:
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
        refused = plain.post("/mcp", json=initialize, headers=headers)
        wrong = plain.post(
            "/mcp", json=initialize, headers={**headers, "Authorization": "Bearer nope"}
        )
    assert refused.status_code == 401
    assert refused.json()["code"] == "UNAUTHORIZED"
    assert wrong.status_code == 401

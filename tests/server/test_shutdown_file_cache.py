"""An MCP call in flight when ``sleuth serve`` gets SIGTERM, with each cache backend.

The call goes through the SDK's own client, as an agent makes it: the tools listed
first. (A client that calls a tool it never listed asks for the list after the answer,
to check the answer against the tool's output schema; a stopping server has closed its
port by then, whatever the cache.) The page the tool reads answers only once the test
has seen the server start to stop, so every step is ordered by events.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from loopback import SearxngWeb, article
from server.harness import TOKEN, ServerProcess

Launch = Callable[..., ServerProcess]
TEXT = (
    "The slow page explains that every Nimbus request is retried twice with a backoff of "
    "one second, and that the retry budget is shared across the whole client."
)


@pytest.mark.parametrize("backend", ["memory", "file"])
async def test_an_mcp_call_in_flight_at_sigterm_finishes(
    launch: Launch, web: SearxngWeb, tmp_path: Path, backend: str
) -> None:
    asked, release = threading.Event(), threading.Event()

    def slow(handler: BaseHTTPRequestHandler) -> None:
        asked.set()
        release.wait(60)
        body = article("Nimbus retries", [TEXT]).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    url = web.site.add("/slow/retries", handler=slow)
    server = launch(
        SLEUTH_CACHE=backend,
        SLEUTH_CACHE_DIR=str(tmp_path / "shared-cache"),
        SLEUTH_SHUTDOWN_GRACE="30",
    )
    results = []

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=90) as http,
        Client(streamable_http_client(server.url + "/mcp", http_client=http)) as client,
    ):
        # An agent lists the tools before it calls one (the client checks each answer
        # against the listed output schema, and would ask for the list after the call).
        assert "fetch_page" in [tool.name for tool in (await client.list_tools()).tools]

        async def call() -> None:
            results.append(await client.call_tool("fetch_page", {"url": url}))

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            try:
                assert await anyio.to_thread.run_sync(asked.wait, 30), "the tool never ran"
                server.process.send_signal(signal.SIGTERM)
                stopping = await anyio.to_thread.run_sync(server.wait_line, "sleuth: stopping: ")
                assert "1 open connection(s)" in stopping
            finally:
                release.set()

    (result,) = results
    assert not result.is_error, result.content
    assert result.structured_content is not None
    assert TEXT in result.structured_content["text"]
    assert server.wait_exit() == 0
    assert "Traceback" not in server.log
    # The answer was stored before the cache closed: in the directory, not in the memory
    # cache a failing file cache falls back to.
    assert "cache_fallback" not in server.log
    stored = [path for path in (tmp_path / "shared-cache").glob("??/*") if path.is_file()]
    assert bool(stored) == (backend == "file")

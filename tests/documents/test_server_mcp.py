"""PDFs over the HTTP API (``sleuth serve`` in its own process) and over MCP (in process)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp.client import Client
from pdfs import pdf, text

from loopback import serve
from server.harness import SearxngWeb, ServerProcess, build_web, stop_quietly
from sleuth.api import AsyncSleuth
from sleuth.server.mcp import build_server

NOTE = "The harbour board approved the new lamp on Tuesday."


@pytest.fixture
def web() -> Iterator[SearxngWeb]:
    with serve() as site:
        web = build_web(site)
        site.add(
            "/files/note", pdf(text(72, 700, NOTE)), headers={"Content-Type": "application/pdf"}
        )
        site.add(
            "/files/secret",
            pdf(text(72, 700, NOTE), encrypt="pw"),
            headers={"Content-Type": "application/octet-stream"},
        )
        yield web


@pytest.fixture
def server(web: SearxngWeb, tmp_path: Path) -> Iterator[ServerProcess]:
    running = ServerProcess(web.env(tmp_path)).wait_ready()
    try:
        yield running
    finally:
        stop_quietly(running)


def test_the_http_api_reads_a_pdf_and_types_its_failures(
    server: ServerProcess, web: SearxngWeb
) -> None:
    page = server.post("/api/v1/fetch", {"url": web.site.origin + "/files/note"})
    assert page.status_code == 200
    body = page.json()
    assert (body["outcome"], body["text"]) == ("ok", NOTE)
    assert body["metadata"]["pages"] == 1
    secret = server.post("/api/v1/fetch", {"url": web.site.origin + "/files/secret"})
    assert secret.status_code == 422
    assert secret.json()["code"] == "ENCRYPTED"


@pytest.fixture
async def sleuth(web: SearxngWeb) -> AsyncIterator[AsyncSleuth]:
    async with AsyncSleuth(web.settings()) as client:
        yield client


async def test_mcp_fetch_page_reads_a_pdf_and_advises_on_failures(
    sleuth: AsyncSleuth, web: SearxngWeb
) -> None:
    async with Client(build_server(client=sleuth)) as client:
        read = await client.call_tool("fetch_page", {"url": web.site.origin + "/files/note"})
        refused = await client.call_tool("fetch_page", {"url": web.site.origin + "/files/secret"})

    assert not read.is_error
    assert read.structured_content["text"] == NOTE
    assert refused.is_error
    message = refused.content[0].text  # type: ignore[union-attr]
    assert message.startswith("error encrypted: ")
    assert "needs a password" in message

"""Cancelling an MCP call in flight, as a client written elsewhere does it.

The tool's target is a loopback page whose handler says when sleuth asked for it, then
waits for sleuth's end of the connection to close: a call that went on would keep it
open. The SDK client reaches the server through :class:`Tap`, which keeps every answer's
bytes, so a test can tell that the cancelled call's event stream ended with no response.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import anyio
import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CancelledNotification, CancelledNotificationParams

from loopback import Site

# The SDK client's own error for a call whose event stream ended with no response.
STREAM_ENDED = "SSE stream ended without a response"


@dataclass
class HeldPage:
    """A page that is never answered; ``dropped`` is set once sleuth hangs up on it."""

    url: str
    asked: threading.Event = field(default_factory=threading.Event)
    dropped: threading.Event = field(default_factory=threading.Event)
    answered: threading.Event = field(default_factory=threading.Event)


def hold_page(site: Site, path: str = "/slow/held") -> HeldPage:
    held = HeldPage(url="")

    def handler(request: BaseHTTPRequestHandler) -> None:
        held.asked.set()
        request.connection.settimeout(120)
        try:
            ended = request.connection.recv(1) == b""
        except OSError:
            return
        (held.dropped if ended else held.answered).set()

    held.url = site.add(path, handler=handler)
    return held


class _Teed(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, sink: bytearray, ended: anyio.Event) -> None:
        self.inner = inner
        self.sink = sink
        self.ended = ended

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self.sink += chunk
            yield chunk
        self.ended.set()  # the server ended the answer (not the client giving up on it)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Tap(httpx2.AsyncBaseTransport):
    """The client's HTTP transport, keeping the answer to its ``tools/call`` POST."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.call_id: Any = None
        self.sent = anyio.Event()
        self.answer = bytearray()
        self.ended = anyio.Event()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        message = json.loads(body) if body else {}
        response = await self.inner.handle_async_request(request)
        if isinstance(message, dict) and message.get("method") == "tools/call":
            self.call_id = message["id"]
            self.sent.set()
            stream = _Teed(response.stream, self.answer, self.ended)  # type: ignore[arg-type]
            return httpx2.Response(
                response.status_code,
                headers=response.headers,
                stream=stream,
                extensions=response.extensions,
            )
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

    def messages(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages the ``tools/call`` answer carried."""
        found = []
        for line in self.answer.decode().splitlines():
            if line.startswith("data:") and line[5:].strip():
                found.append(json.loads(line[5:]))
        return found


def answered_on_the_wire(outcome: list[Any]) -> list[Any]:
    """What of the call's outcome came from the server: a result or an error it sent.

    A stream that ends with no response makes the SDK client raise an error of its own
    (no message on the wire, as :meth:`Tap.messages` shows), which is not an answer.
    """
    return [
        item
        for item in outcome
        if not (isinstance(item, MCPError) and item.message == STREAM_ENDED)
    ]


async def wait_thread_event(event: threading.Event, timeout: float) -> bool:
    return await anyio.to_thread.run_sync(event.wait, timeout)


async def cancel_a_call(
    url: str, held: HeldPage, headers: dict[str, str] | None = None
) -> tuple[Tap, list[Any], list[str]]:
    """Call ``fetch_page`` on the held page, cancel it once sleuth is reading it, and wait
    for both the page's connection and the call's event stream to end.

    Returns the tap, whatever the call returned or raised (nothing, if all is well), and
    the tools the same client lists afterwards.
    """
    tap = Tap()
    outcome: list[Any] = []
    async with (
        httpx2.AsyncClient(transport=tap, headers=headers or {}, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
    ):

        async def call() -> None:
            try:
                outcome.append(await client.call_tool("fetch_page", {"url": held.url}))
            except MCPError as error:
                outcome.append(error)

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            assert await wait_thread_event(held.asked, 60), "the tool never reached the page"
            await tap.sent.wait()
            cancel = CancelledNotification(
                params=CancelledNotificationParams(request_id=tap.call_id, reason="not needed")
            )
            await client.session.send_notification(cancel)
            assert await wait_thread_event(held.dropped, 60), "the call went on after the cancel"
            with anyio.fail_after(60):
                await tap.ended.wait()
            group.cancel_scope.cancel()  # the client stops waiting for an answer
        listed = [tool.name for tool in (await client.list_tools()).tools]
    return tap, outcome, listed

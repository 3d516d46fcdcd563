"""Every request the browser makes, answered through sleuth's guarded HTTP client.

One :class:`Interceptor` serves one render. The browser never talks to the
network: each request is re-issued by the guarded client (which re-checks
every redirect hop) and the answer is handed back with ``route.fulfill``; a
refused destination is aborted and reported. Main-frame redirects are not
followed by the client but handed to the renderer, which navigates to the next
hop itself, so the page keeps its real URL and every hop passes the guard.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import urljoin

import httpx

from sleuth.config import NetSettings
from sleuth.errors import (
    BlockedError,
    FetchTimeout,
    NetworkError,
    SleuthError,
    TooLarge,
    UnsupportedType,
)
from sleuth.log import event
from sleuth.net import read_body
from sleuth.net.sites import used

if TYPE_CHECKING:
    from playwright.async_api import Frame, Request, Route, WebSocketRoute

# Not needed for text, and aborting them lets scripts run sooner. Style sheets are
# fetched: the browser judges what is visible, and a sheet decides that.
SKIPPED_TYPES = frozenset({"image", "media", "font", "manifest", "texttrack", "eventsource"})
STYLESHEET = "stylesheet"
# All subresources of one render share this many times the per-document byte limit.
SUBRESOURCE_BUDGET_FACTOR = 4
RENDERABLE_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

# Hop-by-hop headers, ones httpx sets itself, and client hints that would
# contradict the sleuth User-Agent the guarded client sends.
_DROP_REQUEST_HEADERS = frozenset(
    {
        "accept-encoding",
        "connection",
        "content-length",
        "host",
        "keep-alive",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "upgrade-insecure-requests",
        "user-agent",
    }
)
# The body we hand over is already decoded (by read_body) and de-chunked.
_DROP_RESPONSE_HEADERS = frozenset(
    {"connection", "content-encoding", "content-length", "keep-alive", "transfer-encoding"}
)

AbortCode = Literal["aborted", "blockedbyclient", "failed", "timedout"]


@dataclass(frozen=True)
class _Reply:
    status: int
    headers: dict[str, str]
    body: bytes


def _forwarded_headers(headers: dict[str, str]) -> dict[str, str]:
    return {
        name: value
        for name, value in headers.items()
        if name.lower() not in _DROP_REQUEST_HEADERS and not name.lower().startswith("sec-ch-")
    }


def _fulfil_headers(headers: httpx.Headers) -> dict[str, str]:
    """Merge repeated headers as Playwright expects: ``set-cookie`` lines joined by newlines."""
    merged: dict[str, str] = {}
    for name, value in headers.multi_items():
        key = name.lower()
        if key in _DROP_RESPONSE_HEADERS:
            continue
        if key in merged:
            merged[key] += ("\n" if key == "set-cookie" else ", ") + value
        else:
            merged[key] = value
    return merged


class Interceptor:
    """The route handlers of one render, its byte budget and what the guard refused."""

    def __init__(self, client: httpx.AsyncClient, net: NetSettings, main_frame: Frame) -> None:
        self._client = client
        self._net = net
        self._main_frame = main_frame
        self._subresource_budget = net.max_bytes * SUBRESOURCE_BUDGET_FACTOR
        self._tasks: set[asyncio.Task[_Reply | AbortCode]] = set()
        self.blocked: list[str] = []
        # Style sheets the browser did not get, as {url, reason (an outcome code)}.
        self.styles_unread: list[dict[str, str]] = []
        # The fingerprints of the operator's credentials any request of this render carried.
        self.credentials: set[str] = set()
        # Set while the main document loads, read by the renderer when navigation fails.
        self.document_error: SleuthError | None = None
        self.redirect: str | None = None

    def expect_document(self) -> None:
        """Forget the outcome of the previous main-frame navigation."""
        self.document_error = None
        self.redirect = None

    async def on_route(self, route: Route, request: Request) -> None:
        if request.resource_type in SKIPPED_TYPES:
            await route.abort("blockedbyclient")
            return
        # The fetch runs in a task this render owns, so aclose() can stop it.
        task = asyncio.create_task(self._answer(request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        await asyncio.wait({task})
        try:
            answer: _Reply | AbortCode = "aborted" if task.cancelled() else task.result()
        except BaseException:
            await route.abort("failed")  # never leave the browser waiting; then let it surface
            raise
        if isinstance(answer, _Reply):
            await route.fulfill(status=answer.status, headers=answer.headers, body=answer.body)
        else:
            await route.abort(answer)

    async def on_websocket(self, websocket: WebSocketRoute) -> None:
        """WebSockets cannot be put through the guard, so none is ever opened."""
        self._refuse(websocket.url)
        await websocket.close(code=1008, reason="sleuth does not open WebSockets")

    async def aclose(self) -> None:
        """Stop fetches still running for a render that is over."""
        pending = list(self._tasks)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def _refuse(self, url: str) -> None:
        self.blocked.append(url)
        event("render_blocked", url=url)

    def _is_document(self, request: Request) -> bool:
        return request.is_navigation_request() and request.frame == self._main_frame

    async def _answer(self, request: Request) -> _Reply | AbortCode:
        document = self._is_document(request)
        try:
            return await self._fetch(request, document=document)
        except BlockedError as exc:
            self._refuse(exc.url or request.url)
            failure: SleuthError = exc
            code: AbortCode = "blockedbyclient"
        except httpx.TimeoutException:
            failure = FetchTimeout(f"{request.url} did not answer in time", url=request.url)
            code = "timedout"
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            failure = NetworkError(f"fetching {request.url} failed: {exc}", url=request.url)
            code = "failed"
        except SleuthError as exc:
            failure = exc
            code = "failed"
        if document:
            self.document_error = failure
        if request.resource_type == STYLESHEET:
            self.styles_unread.append({"url": request.url, "reason": failure.code})
        return code

    async def _fetch(self, request: Request, *, document: bool) -> _Reply | AbortCode:
        if not document and self._subresource_budget <= 0:
            raise TooLarge(f"{request.url}: this render's subresource budget is spent")
        headers = _forwarded_headers(await request.all_headers())
        async with self._client.stream(
            request.method,
            request.url,
            headers=headers,
            content=request.post_data_buffer,
            # Main-frame hops go back to the renderer; the client guards the others' hops.
            follow_redirects=not document,
        ) as response:
            self.credentials |= used([response])
            if document:
                location = response.headers.get("location")
                if response.status_code in REDIRECT_STATUSES and location:
                    self.redirect = urljoin(str(response.url), location)
                    return "aborted"
                _check_renderable(response)
                wire, decoded = self._net.max_bytes, self._net.max_decoded_bytes
            else:
                # Each subresource may take at most what the document may, and what is left.
                wire = decoded = min(self._net.max_bytes, self._subresource_budget)
            body = await read_body(response, max_bytes=wire, max_decoded_bytes=decoded)
            if not document:
                self._subresource_budget -= len(body)
            if request.resource_type == STYLESHEET and response.status_code >= 400:
                self.styles_unread.append({"url": request.url, "reason": "http_error"})
            return _Reply(response.status_code, _fulfil_headers(response.headers), body)


def _check_renderable(response: httpx.Response) -> None:
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type and media_type not in RENDERABLE_TYPES:
        raise UnsupportedType(
            f"{response.url} is {media_type}, not a page a browser can render",
            url=str(response.url),
        )

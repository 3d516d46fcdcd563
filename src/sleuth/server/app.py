"""The HTTP application of ``sleuth serve``: the JSON API, link suggestions, MCP at ``/mcp``,
health, readiness, metrics, the OpenAPI description and the web page.

Everything a second instance needs (the page cache, the search budget, rate
limits, the daily LLM budget) lives in the cache backend, never only in this
process, so instances behind a load balancer on one Redis behave as one. The
MCP endpoint is stateless for the same reason: any instance can answer any
request.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sleuth import log
from sleuth.api import AsyncSleuth
from sleuth.cache import FallbackCache, open_cache
from sleuth.config import Settings, load_settings
from sleuth.errors import BodyTooLarge, CacheError, ConfigError, SleuthError
from sleuth.ops import served
from sleuth.server import crawl as crawl_jobs
from sleuth.server import routes
from sleuth.server.auth import Tokens
from sleuth.server.guard import GuardMiddleware, RequestGuard
from sleuth.server.metrics import CountingCache, Metrics
from sleuth.server.openapi import DOCS_PAGE, build_spec
from sleuth.server.ratelimit import RateLimiter, parse_rate
from sleuth.server.responses import error_response, from_error
from sleuth.server.routes import check_declared_length, require_json
from sleuth.server.state import ServerState
from sleuth.suggest import Suggester, llm_configured
from sleuth.suggest.prompt import load_template, render

LOGGER = logging.getLogger("sleuth.server")
STATIC_DIR = Path(__file__).with_name("static")
# The metrics label every route: the fixed ones, then each served operation's path.
ROUTE_LABELS = frozenset(
    {
        "/",
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.json",
        "/docs",
        "/favicon.ico",
        "/mcp",
        routes.INFO_PATH,
        *(op.http.path for op in served() if op.http is not None),
    }
)
_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
_METHODS = frozenset(_ORDER)
# The page and /docs run only their own files: no inline code, nothing from elsewhere, no
# framing (the page holds a token). The API's JSON carries the same headers at no cost.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def check_settings(settings: Settings) -> Tokens:
    """Start-up checks that must stop the server before it listens (exit 3)."""
    tokens = Tokens.from_settings(settings.server)
    if settings.rate_limit:
        parse_rate(settings.rate_limit)
    render(load_template(settings.suggest_prompt), settings.suggest_reserved_slugs)
    if "*" in settings.cors_origins and not tokens.enabled:
        # Without tokens, any page open in the user's browser could drive the server.
        raise ConfigError(
            "SLEUTH_CORS_ORIGINS=* would let any web page use a server without tokens",
            hint="set SLEUTH_API_TOKENS, or list the origins "
            "(https://app.example, chrome-extension://ID) instead",
        )
    for origin in settings.cors_origins:
        if origin != "*" and ("://" not in origin or origin.endswith("/")):
            raise ConfigError(
                f"SLEUTH_CORS_ORIGINS entry {origin!r} is not an origin",
                hint="write scheme://host[:port] with no path, e.g. chrome-extension://ID",
            )
    return tokens


def build_state(settings: Settings, tokens: Tokens, metrics: Metrics) -> ServerState:
    cache = open_cache(settings.caching)
    client = AsyncSleuth(settings, cache=CountingCache(cache, metrics))
    limiter = (
        RateLimiter(client.cache, parse_rate(settings.rate_limit)) if settings.rate_limit else None
    )
    suggester: Suggester | None = None
    reason = (
        "link suggestions are off: no LLM is configured (set SLEUTH_LLM_PROVIDER or "
        "SLEUTH_LLM_BASE_URL)"
    )
    if llm_configured(settings.llm):
        try:
            suggester = client.suggester
        except ConfigError:
            raise
        except SleuthError as exc:  # a provider named but unusable: the rest still serves
            reason = f"link suggestions are off: {exc}"
            log.warn("suggest_unavailable", error=str(exc))
    return ServerState(
        settings=settings,
        client=client,
        cache=cache,
        metrics=metrics,
        tokens=tokens,
        limiter=limiter,
        suggester=suggester,
        suggest_off_reason=reason,
    )


def create_app(settings: Settings | None = None, *, processes: int = 1) -> Starlette:
    """The application; ``settings`` default to the environment's (``SLEUTH_*``, the TOML file).
    ``processes``: how many processes serve the same port (``--workers``)."""
    settings = settings or load_settings()
    tokens = check_settings(settings)
    metrics = Metrics()
    state = build_state(settings, tokens, metrics)
    state.jobs_off = crawl_jobs.shared_or_off(settings, processes)
    state.spec = build_spec(settings)
    mcp_app, mcp_lifespan = _mcp(state)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            async with mcp_lifespan(), crawl_jobs.run_jobs(state):
                yield
        finally:
            await state.aclose()

    def api(
        handler: routes.Handler, *, suggest: bool = False
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                if suggest and state.suggester is None:  # decided before auth and the body
                    return error_response("llm_not_configured", state.suggest_off_reason)
                await state.admit(request)
                return await handler(state, request)
            except SleuthError as error:
                return from_error(error)
            except Exception:
                LOGGER.exception("request to %s failed", request.url.path)
                return internal_error()

        return endpoint

    async def healthz(_request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(_request: Request) -> Response:
        cache = state.cache
        primary = cache.primary if isinstance(cache, FallbackCache) else cache
        try:
            await primary.get("readyz:probe")
            reachable, error = True, None
        except CacheError as exc:
            reachable, error = False, exc.message
        body: dict[str, Any] = {
            "status": "ready" if reachable else "unavailable",
            "cache": {
                "backend": primary.name,
                "reachable": reachable,
                "fallback": isinstance(cache, FallbackCache) and cache.failure is not None,
            },
        }
        if error:
            body["cache"]["error"] = error
        return JSONResponse(body, status_code=200 if reachable else 503)

    async def metrics_page(request: Request) -> Response:
        try:
            await state.admit(request, limit=False)
        except SleuthError as error:
            return from_error(error)
        return PlainTextResponse(
            metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8"
        )

    info = routes.info(state)

    async def info_page(_request: Request) -> Response:
        return JSONResponse(info)

    async def openapi(_request: Request) -> Response:
        return JSONResponse(state.spec)

    async def docs(_request: Request) -> Response:
        return HTMLResponse(DOCS_PAGE, headers={"Cache-Control": "no-cache"})

    async def favicon(_request: Request) -> Response:
        return FileResponse(STATIC_DIR / "favicon.svg", media_type="image/svg+xml")

    async def index(_request: Request) -> Response:
        page = STATIC_DIR / "index.html"
        if not page.is_file():
            return error_response("not_found", "the web page is not installed", status=404)
        return FileResponse(page, headers={"Cache-Control": "no-cache"})

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        if status == 405:
            headers = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}
            allow = headers.get("Allow") or "GET, HEAD"  # StaticFiles names no methods
            # Starlette joins a set: put the methods in one order, whatever the hash seed.
            named = allow.split(", ")
            allow = ", ".join(sorted(named, key=lambda m: _ORDER.index(m) if m in _ORDER else 9))
            return method_not_allowed(request.method, allow)
        if status == 404:
            return error_response("not_found", f"no route {request.url.path}", status=404)
        detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
        return error_response("http_error", str(detail), status=status)

    app_routes: list[BaseRoute] = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics_page, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
        Route("/", index, methods=["GET"]),
        Route("/favicon.ico", favicon, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static"),
        Route(routes.INFO_PATH, info_page, methods=["GET"]),
        *_operation_routes(api),
        Route("/mcp", mcp_app),
    ]
    guard = RequestGuard.from_settings(settings.server, tokens=tokens.enabled)
    middleware = [
        Middleware(SecurityHeadersMiddleware),
        Middleware(FaultMiddleware),
        Middleware(MetricsMiddleware, metrics=metrics),
        Middleware(GuardMiddleware, guard=guard),
    ]
    if settings.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=settings.cors_origins,
                allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
                allow_headers=[
                    "Authorization",
                    "Content-Type",
                    "Mcp-Session-Id",
                    "Mcp-Protocol-Version",
                ],
                expose_headers=["Retry-After", "Mcp-Session-Id"],
                max_age=600,
            )
        )
    app = Starlette(
        routes=app_routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={HTTPException: not_found},
    )
    app.state.sleuth = state
    return app


def _operation_routes(
    api: Callable[..., Callable[[Request], Awaitable[Response]]],
) -> list[BaseRoute]:
    """One route per served operation, at the path it declares; a job's own route after."""
    found: list[BaseRoute] = []
    for op in served():
        assert op.http is not None
        if op.http.job:
            found.append(Route(op.http.path, api(crawl_jobs.start), methods=["POST"]))
            found.append(
                Route(op.http.path + "/{job}", api(crawl_jobs.job), methods=["GET", "DELETE"])
            )
        else:
            endpoint = api(routes.handler(op), suggest=op.http.needs_suggester)
            found.append(Route(op.http.path, endpoint, methods=["POST"]))
    return found


def _mcp(state: ServerState) -> tuple[ASGIApp, Callable[[], Any]]:
    """The MCP endpoint (stateless streamable HTTP) behind the same tokens and rate limit."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from sse_starlette.sse import AppStatus

    from sleuth.server.mcp import build_server, mcp_registry

    # The SDK answers calls as event streams, which sse-starlette ends the moment SIGTERM
    # arrives (an empty 200). A call in flight gets SLEUTH_SHUTDOWN_GRACE like any request:
    # its stream ends with its answer, and uvicorn cancels what is left after the grace.
    AppStatus.enable_automatic_graceful_drain = False

    # Tools that read this machine's disk (detect) are never offered over the network.
    # crawl_site tasks are this server's crawl jobs, the caller's as its HTTP jobs are.
    server = build_server(
        mcp_registry(local=False),
        client=state.client,
        jobs=lambda: state.jobs,
        tasks=state.jobs_off is None,  # else crawl_site stays a bounded call
    )
    manager = StreamableHTTPSessionManager(
        app=server,
        stateless=True,
        # DNS-rebinding protection is the guard's (GuardMiddleware, in front of every route,
        # /mcp included): the same Host and Origin rules as the API, answered in its JSON
        # error shape. The SDK's own check cannot say "127.0.0.0/8" or "any Host, since a
        # token is required", so it would refuse what the guard lets in.
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=state.settings.max_body_bytes,
    )

    return _GuardedMCP(state, manager.handle_request), manager.run


def method_not_allowed(method: str, allow: str) -> Response:
    """405 with the ``Allow`` header RFC 9110 requires."""
    return error_response(
        "method_not_allowed",
        f"{method} is not allowed here",
        status=405,
        headers={"Allow": allow},
    )


class _GuardedMCP:
    """An ASGI app (a class, so Starlette routes every method to it) that admits, then serves.

    The endpoint is stateless: only POST means something. GET would open an event stream
    that never carries anything, and DELETE ends a session there is none of, so both are
    405. A POST must be declared JSON (415 otherwise, as on the API).

    Each POST is its own SDK session, so a ``notifications/cancelled`` POSTed for a call
    would reach nothing. This app keeps the calls in flight by who asked and their request
    id: a cancel from the same token (or, without tokens, the same client address) stops
    its call, whose event stream then ends with no response, as MCP 2025-11-25 asks. A
    cancel that lands on another process (``--workers``) finds nothing and is ignored.
    """

    def __init__(self, state: ServerState, app: ASGIApp) -> None:
        from sleuth.server.mcp_tasks import OWNER

        self.state = state
        self.app = app
        self.owner = OWNER
        self.calls: dict[tuple[str, str], anyio.CancelScope] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if request.method != "POST":
            await method_not_allowed(request.method, "POST")(scope, receive, send)
            return
        try:
            who = await self.state.admit(request)
            require_json(request.headers.get("content-type"))
            check_declared_length(request, self.state.settings.max_body_bytes)
            body = await _capped_body(request, self.state.settings.max_body_bytes)
        except SleuthError as error:
            await from_error(error)(scope, receive, send)
            return
        replay = _replay(body, receive)
        # Who asked, for the MCP handlers: a task is its caller's, as a crawl job is.
        scope = {**scope, "state": {**scope.get("state", {}), self.owner: who}}
        message = _json_rpc(body)
        method = message.get("method")
        if "id" not in message:
            if method == "notifications/cancelled":
                self._cancel(who, message.get("params"))
            await self.app(scope, replay, send)
            return
        key = (who, json.dumps(message["id"]))
        if method is None or key in self.calls:  # a reply, or an id already in flight
            await self.app(scope, replay, send)
            return
        await self._serve_call(key, scope, replay, send)

    async def _serve_call(
        self, key: tuple[str, str], scope: Scope, receive: Receive, send: Send
    ) -> None:
        started = ended = False

        async def watch(message: Message) -> None:
            nonlocal started, ended
            started = started or message["type"] == "http.response.start"
            ended = ended or (
                message["type"] == "http.response.body" and not message.get("more_body", False)
            )
            await send(message)

        with anyio.CancelScope() as cancel:
            self.calls[key] = cancel
            try:
                await self.app(scope, receive, watch)
            finally:
                del self.calls[key]
        if cancel.cancelled_caught and not ended:
            # The call's stream ends here, with no response for the cancelled id.
            if not started:
                await send({"type": "http.response.start", "status": 200, "headers": _SSE})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    def _cancel(self, who: str, params: Any) -> None:
        request_id = params.get("requestId") if isinstance(params, dict) else None
        cancel = self.calls.get((who, json.dumps(request_id)))
        if request_id is not None and cancel is not None:
            log.event("mcp_cancel_received", request_id=str(request_id))
            cancel.cancel()


_SSE = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache, no-transform")]


async def _capped_body(request: Request, cap: int) -> bytes:
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > cap:
            raise BodyTooLarge(f"the request body is over the {cap}-byte limit")
    return bytes(data)


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` for an app downstream of one that has read the body: the body, then
    whatever comes next (the client's disconnect)."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return again


def _json_rpc(body: bytes) -> dict[str, Any]:
    """The body's JSON-RPC message, or ``{}`` for anything else (the SDK answers that)."""
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    return message if isinstance(message, dict) else {}


class SecurityHeadersMiddleware:
    """Adds :data:`SECURITY_HEADERS` to every answer that does not set its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, with_headers)


class FaultMiddleware:
    """The last net: an exception no handler caught is logged with its traceback and
    answered 500 in the JSON error shape, without internals (or the answer ends, if its
    first bytes are already out)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception:
            LOGGER.exception("request to %s failed", scope.get("path", "?"))
            if not started:
                await internal_error()(scope, receive, send)


def internal_error() -> Response:
    return error_response(
        "internal_error", "the server failed unexpectedly; this is a bug", status=500
    )


class MetricsMiddleware:
    """Counts every request by route and status and times it to its last byte."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            path: str = scope["path"]
            route = (
                path
                if path in ROUTE_LABELS
                else "/static"
                if path.startswith("/static/")
                else "other"
            )
            seconds = time.perf_counter() - started
            method = scope["method"] if scope["method"] in _METHODS else "OTHER"
            self.metrics.request(route, method, status, seconds)
            log.event(
                "http_request",
                method=method,
                route=route,
                status=status,
                latency_ms=int(seconds * 1000),
            )

"""The JSON API: each route takes the CLI command's options as a JSON object and answers
exactly the object that command prints with ``--json``.

Nothing here prompts: where the CLI would ask a person (discover's
confirmation, an ambiguous name), the answer says so in its fields.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from sleuth import log
from sleuth.errors import (
    BodyTooLarge,
    SleuthError,
    UnsupportedMediaType,
    UsageError,
)
from sleuth.operation import pascal
from sleuth.ops import Op, Refusal, served
from sleuth.server.responses import error_payload, error_response

if TYPE_CHECKING:
    from sleuth.server.state import ServerState

M = TypeVar("M", bound=BaseModel)
Handler = Callable[["ServerState", Request], Awaitable[Response]]
INFO_PATH = "/api/v1/info"  # the one route of the API that runs no operation


# RFC 3986 (appendix A), the grammar ``format: uri`` names: an absolute URI, ASCII only.
_UNRESERVED_SUB = r"A-Za-z0-9\-._~!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHARS = rf"(?:[{_UNRESERVED_SUB}:@]|{_PCT})"
_IPV6 = r"\[(?:[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]"
_URI = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*:"  # scheme
    rf"(?://(?:(?:[{_UNRESERVED_SUB}:]|{_PCT})*@)?"  # userinfo
    rf"(?:{_IPV6}|(?:[{_UNRESERVED_SUB}]|{_PCT})*)"  # host
    r"(?::[0-9]*)?"  # port
    rf"(?:/{_PCHARS}*)*"  # path-abempty
    rf"|/?(?:{_PCHARS}+(?:/{_PCHARS}*)*)?)"  # path-absolute, -rootless, -empty
    rf"(?:\?(?:{_PCHARS}|[/?])*)?"  # query
    rf"(?:#(?:{_PCHARS}|[/?])*)?"  # fragment
)


def check_uri(field: str, value: str) -> None:
    """Refuse a value that is not an absolute URI (RFC 3986), as the description says; the
    caller then decides what it does with the URIs it accepts."""
    if value.strip() and not _URI.fullmatch(value):
        raise UsageError(
            f"{field} is not a URI: {value[:200]!r}",
            hint="send an absolute URL such as https://example.org/page, percent-encoding "
            "spaces and characters outside ASCII",
        )


def __getattr__(name: str) -> Any:
    """``SearchBody`` and the like: each route's body, its operation's declaration as HTTP
    offers it (made once, by :meth:`~sleuth.operation.Operation.model`)."""
    for op in served():
        if f"{pascal(op.name)}Body" == name:
            return op.body()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Options the CLI (or Python) has that a remote caller must not have, by either spelling.
# Refused on every route, a lenient body's too: that body ignores keys it does not know
# yet, but a caller asking for one of these would be told yes and not get it.
_ROBOTS = "robots.txt is always obeyed over HTTP"
_SIGNALS = "a site's Content-Signal is always obeyed over HTTP"
_NOT_SERVED = {
    "ignore_robots": _ROBOTS,
    "respect_robots": _ROBOTS,
    "ignore_content_signals": _SIGNALS,
    "respect_content_signals": _SIGNALS,
    "resolve": "address pinning is not offered over HTTP",
}


# Deeper than any body a route takes; a deeper one is an attack on the parser, not a request.
MAX_JSON_DEPTH = 32


def require_json(content_type: str | None) -> None:
    """Raise :class:`UnsupportedMediaType` unless the media type is ``application/json``."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        shown = f"Content-Type {content_type!r}" if content_type else "no Content-Type"
        raise UnsupportedMediaType(f"the request body has {shown}; only JSON is accepted")


def check_declared_length(request: Request, cap: int) -> None:
    """Refuse a body whose ``Content-Length`` is over ``cap`` before reading any of it."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > cap:
        raise BodyTooLarge(f"the request body is {declared} bytes, over the {cap}-byte limit")


def json_depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value``, counted without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        )
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


async def read_json(request: Request, cap: int) -> dict[str, Any]:
    """The body as a JSON object: declared JSON, read no further than ``cap`` bytes, nested no
    deeper than :data:`MAX_JSON_DEPTH`."""
    require_json(request.headers.get("content-type"))
    check_declared_length(request, cap)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > cap:
            raise BodyTooLarge(f"the request body is over the {cap}-byte limit")
    if not data.strip():
        raise UsageError("the request body is empty", hint="send a JSON object")
    too_deep = UsageError(
        f"the request body nests deeper than {MAX_JSON_DEPTH} levels",
        hint="send a flat JSON object of the route's fields",
    )
    try:
        value = json.loads(data)
    except RecursionError:
        raise too_deep from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"the request body is not valid JSON: {exc}") from None
    if json_depth(value) > MAX_JSON_DEPTH:
        raise too_deep
    if not isinstance(value, dict):
        raise UsageError("the request body must be a JSON object")
    return value


def parse(model: type[M], value: dict[str, Any]) -> M:
    for name, why in _NOT_SERVED.items():
        if name in value:
            raise UsageError(f"{name} is not accepted: {why}")
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        raise UsageError(f"invalid field {where}: {first['msg']}") from None


def info(state: ServerState) -> dict[str, Any]:
    """What a page needs to know before it asks for anything: the version, whether it must
    send a token, whether suggestions and questions have a model, and which search
    providers would be tried. Nothing secret, and nothing that opens a connection."""
    from sleuth._version import __version__
    from sleuth.websearch.registry import build_providers

    try:
        providers = [
            provider.name for provider in build_providers(state.settings.search, state.settings.net)
        ]
    except SleuthError:  # an unknown name in SLEUTH_SEARCH_PROVIDERS: searching will say so
        providers = []
    return {
        "version": __version__,
        "auth_required": state.tokens.enabled,
        "llm_configured": state.suggester is not None,
        "search_providers": providers,
    }


def handler(op: Op) -> Handler:
    """The route of ``op``: its declared body in, its answer (or its stream) out."""
    http, operation = op.http, op.operation
    assert http is not None
    body_model = op.body()

    async def handle(state: ServerState, request: Request) -> Response:
        body: Any = parse(body_model, await read_json(request, state.settings.max_body_bytes))
        if http.check is not None:
            http.check(body)
        for field in http.uris:
            check_uri(field, getattr(body, field))
        run = getattr(state.client, operation.name)
        arguments = operation.arguments("http", body)
        if http.stream and "text/event-stream" in request.headers.get("accept", ""):
            return StreamingResponse(
                _events(run, arguments),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        result = await run(**arguments)
        if http.llm is not None:
            used = http.llm(result)
            state.metrics.llm(http.path, used.provider, used.calls, used.usage, used.cost_usd)
        answer = http.answer(result)
        if isinstance(answer, Refusal):
            return error_response(
                answer.code, answer.message, retryable=answer.retryable, extra=answer.extra
            )
        return JSONResponse(answer)

    return handle


async def _events(run: Callable[..., Any], arguments: dict[str, Any]) -> AsyncIterator[str]:
    """``progress`` events as the operation reports them, then one ``result`` or ``error``."""
    events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def progress(stage: str, detail: dict[str, Any]) -> None:
        events.put_nowait(("progress", {"stage": stage, "detail": detail}))

    async def work() -> None:
        try:
            result = await run(**arguments, on_progress=progress)
            events.put_nowait(("result", result.model_dump(mode="json")))
        except SleuthError as error:
            events.put_nowait(("error", error_payload(error)))
        except Exception:
            log.LOGGER.exception("progress stream failed")
            events.put_nowait(
                ("error", {"error": "internal error", "code": "INTERNAL_ERROR", "retryable": False})
            )

    task = asyncio.create_task(work())
    try:
        while True:
            kind, data = await events.get()
            yield f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"
            if kind != "progress":
                break
    finally:
        if not task.done():  # the client left: stop reading pages for nobody
            task.cancel()

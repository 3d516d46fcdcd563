"""A bug in the server is answered 500 without internals and logged with its traceback.

A route that raises (a stand-in for any bug) is put in the app before it is built, and
the app runs in-process over ASGI: what matters here is the answer's shape and what
the log keeps, in both log formats.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator

import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient

from sleuth import log
from sleuth.config import Settings
from sleuth.server import app as server_app
from sleuth.server import routes
from sleuth.server.app import ServerState, create_app

SECRET = "db-password=hunter2 at /srv/sleuth/secret.py line 7"


async def broken(_state: ServerState, _request: Request) -> Response:
    raise RuntimeError(SECRET)


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    real = routes.handler
    monkeypatch.setattr(routes, "handler", lambda op: broken if op.name == "search" else real(op))
    app = create_app(Settings(cache="memory", render="never"))
    with TestClient(app, base_url="http://127.0.0.1:8080", raise_server_exceptions=False) as c:
        yield c
    log.configure()


@pytest.mark.parametrize("fmt", ["json", "human"])
def test_a_bug_is_a_500_without_internals_and_its_traceback_is_logged(
    client: TestClient, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    log.configure(fmt, "warning")
    reply = client.post("/api/v1/search", json={"query": "nimbus"})
    assert reply.status_code == 500
    assert reply.json() == {
        "error": "the server failed unexpectedly; this is a bug",
        "code": "INTERNAL_ERROR",
        "retryable": False,
    }
    assert SECRET not in reply.text
    logged = capsys.readouterr().err
    if fmt == "json":
        (line,) = [json.loads(x) for x in logged.splitlines() if "failed" in x]
        assert line["event"] == "request to /api/v1/search failed"
        assert line["level"] == "error"
        assert line["traceback"].startswith("Traceback (most recent call last):")
        assert f"RuntimeError: {SECRET}" in line["traceback"]
        assert "in broken" in line["traceback"]  # the frame that raised
    else:
        assert "sleuth error request to /api/v1/search failed" in logged
        assert "Traceback (most recent call last):" in logged
        assert f"RuntimeError: {SECRET}" in logged


def test_a_failure_outside_the_routes_is_caught_by_the_last_net(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    """The description itself failing to render (a bug below every route's own handler)."""
    log.configure("json", "warning")
    state: ServerState = client.app.state.sleuth  # type: ignore[attr-defined]
    state.spec = {"broken": {1, 2}}  # a set is not JSON
    reply = client.get("/openapi.json")
    assert reply.status_code == 500
    assert reply.json()["code"] == "INTERNAL_ERROR"
    assert reply.headers["x-content-type-options"] == "nosniff"
    (line,) = [json.loads(x) for x in capsys.readouterr().err.splitlines() if "failed" in x]
    assert "TypeError" in line["traceback"]


def test_log_records_without_exc_info_stay_one_line() -> None:
    record = logging.LogRecord("sleuth", logging.INFO, __file__, 1, "fetch", None, None)
    record.fields = {"url": "https://example.org/"}  # type: ignore[attr-defined]
    assert "\n" not in server_app.log._JSONFormatter().format(record)
    assert (
        server_app.log._HumanFormatter().format(record)
        == "sleuth info fetch url=https://example.org/"
    )


def test_a_research_stream_that_fails_ends_with_one_error_event(client: TestClient) -> None:
    """Input is checked before the stream starts; a failure after it is the last event."""
    from sleuth.errors import BudgetExceeded

    state: ServerState = client.app.state.sleuth  # type: ignore[attr-defined]

    async def failing(question: str, *, on_progress: Callable[..., None], **_: object) -> None:
        on_progress("searching", {"query": question})
        raise BudgetExceeded("the daily LLM budget is spent", hint="try again tomorrow")

    state.client.research = failing  # type: ignore[assignment, method-assign]
    reply = client.post(
        "/api/v1/research",
        json={"question": "what is nimbus"},
        headers={"Accept": "text/event-stream"},
    )
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/event-stream")
    blocks = [block for block in reply.text.split("\n\n") if block.strip()]
    assert [block.split("\n", 1)[0] for block in blocks] == ["event: progress", "event: error"]
    error = json.loads(blocks[-1].split("data: ", 1)[1])
    assert error == {
        "error": "the daily LLM budget is spent (try again tomorrow)",
        "code": "BUDGET_EXCEEDED",
        "retryable": False,
    }


def test_mcp_answers_deep_and_large_bodies_without_failing() -> None:
    app = create_app(Settings(cache="memory", render="never", max_body_bytes=4096))
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with TestClient(app, base_url="http://127.0.0.1:8080", raise_server_exceptions=False) as c:
        deep = c.post("/mcp", content=b"[" * 1000 + b"]" * 1000, headers=headers)
        large = c.post("/mcp", content=b" " * 5000, headers=headers)
    assert deep.status_code == 400  # JSON-RPC's own parse error, the shape MCP clients read
    assert deep.json()["error"]["code"] == -32700
    assert large.status_code == 413
    assert large.json()["code"] == "BODY_TOO_LARGE"
    assert "over the 4096-byte limit" in large.json()["error"]

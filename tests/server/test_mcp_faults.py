"""MCP over HTTP on ``sleuth serve`` under fault: a SIGTERM during a call, a client that leaves.

The tool's target is a loopback page whose handler reports when sleuth asked
for it and then waits on an event, so each step is ordered by events, never by
a clock. The calls are raw JSON-RPC over streamable HTTP, as any client sends
them, so the test controls exactly when the connection closes.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest

from loopback import article
from mcp_cancel import answered_on_the_wire, cancel_a_call, hold_page
from server.harness import OTHER_TOKEN, TOKEN, SearxngWeb, ServerProcess

Launch = Callable[..., ServerProcess]
HEADERS = {
    "Authorization": f"Bearer {TOKEN}",
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
}
TEXT = (
    "The slow page explains that every Nimbus request is retried twice with a backoff of "
    "one second, and that the retry budget is shared across the whole client."
)


def call(url: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "fetch_page", "arguments": {"url": url}},
    }


def messages(text: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an event-stream (or plain JSON) answer."""
    if text.lstrip().startswith("{"):
        return [json.loads(text)]
    found = []
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            found.append(json.loads(line[5:]))
    return found


def test_sigterm_lets_an_mcp_call_in_flight_finish(launch: Launch, web: SearxngWeb) -> None:
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
    server = launch(SLEUTH_SHUTDOWN_GRACE="30")
    answers: list[httpx.Response] = []

    def client() -> None:
        with httpx.Client(base_url=server.url, timeout=90) as http:
            answers.append(http.post("/mcp", json=call(url), headers=HEADERS))

    caller = threading.Thread(target=client)
    caller.start()
    try:
        assert asked.wait(30), "the tool never reached the page"
        server.process.send_signal(signal.SIGTERM)
        assert "1 open connection(s)" in server.wait_line("sleuth: stopping: ")
        # Still serving the call two seconds into the grace: the event stream it answers on
        # is not cut when the signal arrives (sse-starlette looks for one twice a second).
        with pytest.raises(subprocess.TimeoutExpired):
            server.process.wait(timeout=2)
    finally:
        release.set()
    caller.join(90)

    assert [a.status_code for a in answers] == [200]
    (reply,) = [m for m in messages(answers[0].text) if m.get("id") == 7]
    result = reply["result"]
    assert result.get("isError") is not True, result
    assert TEXT in result["structuredContent"]["text"]
    assert server.wait_exit() == 0
    assert "returned without completing response" not in server.log
    assert "Traceback" not in server.log


def test_an_mcp_call_whose_client_leaves_stops_its_work(launch: Launch, web: SearxngWeb) -> None:
    asked, dropped, answered = threading.Event(), threading.Event(), threading.Event()

    def slow(handler: BaseHTTPRequestHandler) -> None:
        asked.set()
        # Wait for sleuth to give up on the page: its end of the connection closes. A call
        # that ran on would keep waiting here (its read timeout is far away), and never close.
        handler.connection.settimeout(60)
        try:
            ended = handler.connection.recv(1) == b""
        except OSError:
            return
        if ended:
            dropped.set()
            return
        answered.set()

    url = web.site.add("/slow/forever", handler=slow)
    server = launch(SLEUTH_READ_TIMEOUT="300", SLEUTH_FETCH_DEADLINE="300", SLEUTH_LOG_LEVEL="info")
    with (
        httpx.Client(base_url=server.url, timeout=90) as http,
        http.stream("POST", "/mcp", json=call(url), headers=HEADERS) as stream,
    ):
        assert stream.status_code == 200
        assert asked.wait(30), "the tool never reached the page"
    # The client has closed its connection without reading an answer.
    assert dropped.wait(60), "the call went on reading the page after its client left"
    assert not answered.is_set()
    event = server.wait_event("mcp_call_cancelled")
    assert event["tool"] == "fetch_page"
    # The server goes on serving.
    with httpx.Client(base_url=server.url, timeout=60) as http:
        listed = http.post(
            "/mcp", json={"jsonrpc": "2.0", "id": 8, "method": "tools/list"}, headers=HEADERS
        )
    assert listed.status_code == 200
    (tools,) = [m for m in messages(listed.text) if m.get("id") == 8]
    assert "fetch_page" in [tool["name"] for tool in tools["result"]["tools"]]
    assert "Traceback" not in server.log


async def test_a_cancelled_mcp_call_stops_its_work_and_gets_no_response(
    launch: Launch, web: SearxngWeb
) -> None:
    """Each POST to /mcp is its own SDK session, yet a ``notifications/cancelled`` POSTed
    by the same token stops the call in flight, and its event stream ends unanswered."""
    held = hold_page(web.site)
    server = launch(SLEUTH_READ_TIMEOUT="300", SLEUTH_FETCH_DEADLINE="300", SLEUTH_LOG_LEVEL="info")

    tap, outcome, listed = await cancel_a_call(
        server.url + "/mcp", held, headers={"Authorization": f"Bearer {TOKEN}"}
    )

    assert answered_on_the_wire(outcome) == []
    assert tap.call_id is not None
    assert [m for m in tap.messages() if m.get("id") == tap.call_id] == []
    assert not held.answered.is_set()
    assert server.wait_event("mcp_call_cancelled")["tool"] == "fetch_page"
    assert "fetch_page" in listed
    assert "returned without completing response" not in server.log
    assert "Traceback" not in server.log


def test_a_cancel_from_another_token_stops_nothing(launch: Launch, web: SearxngWeb) -> None:
    """Request ids are the client's to choose: a cancel naming another caller's id is
    ignored, and that call is answered."""
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

    url = web.site.add("/slow/other", handler=slow)
    server = launch()
    answers: list[httpx.Response] = []

    def client() -> None:
        with httpx.Client(base_url=server.url, timeout=90) as http:
            answers.append(http.post("/mcp", json=call(url), headers=HEADERS))

    caller = threading.Thread(target=client)
    caller.start()
    try:
        assert asked.wait(30), "the tool never reached the page"
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
        foreign = {**HEADERS, "Authorization": f"Bearer {OTHER_TOKEN}"}
        with httpx.Client(base_url=server.url, timeout=30) as http:
            ignored = http.post("/mcp", json=cancel, headers=foreign)
        assert ignored.status_code == 202
    finally:
        release.set()
    caller.join(90)

    assert [a.status_code for a in answers] == [200]
    (reply,) = [m for m in messages(answers[0].text) if m.get("id") == 7]
    assert TEXT in reply["result"]["structuredContent"]["text"]

"""Start-up rules, rate limits, and graceful shutdown of ``sleuth serve`` in its own process."""

from __future__ import annotations

import json
import signal
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from llm import payloads_openai
from search.wire import Wire
from server.harness import OTHER_TOKEN, TOKEN, ServerProcess, model_env

Launch = Callable[..., ServerProcess]
URL = "https://go.example.com/handbook"


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (("--host", "0.0.0.0"), {"SLEUTH_API_TOKENS": ""}, "refusing to serve on 0.0.0.0"),
        # Without tokens, any page open in the user's browser could drive the server.
        (
            (),
            {"SLEUTH_API_TOKENS": "", "SLEUTH_CORS_ORIGINS": "*"},
            "SLEUTH_CORS_ORIGINS=* would let any web page use a server without tokens",
        ),
        ((), {"SLEUTH_CORS_ORIGINS": "https://app.example/"}, "is not an origin"),
        ((), {"SLEUTH_RATE_LIMIT": "lots"}, "rate_limit"),
        ((), {"SLEUTH_API_TOKENS": "@/nonexistent/tokens"}, "cannot read the token file"),
    ],
)
def test_bad_settings_stop_the_server_before_it_listens(
    launch: Launch, args: tuple[str, ...], env: dict[str, str], message: str
) -> None:
    server = launch(*args, ready=False, **env)
    assert server.wait_exit() == 3
    assert message in server.log
    assert "serving on" not in server.log
    assert "Traceback" not in server.log


def test_a_token_file_of_something_else_than_hashes_is_refused(
    launch: Launch, tmp_path: Path
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("plain-text-token\n")
    server = launch(ready=False, SLEUTH_API_TOKENS=f"@{tokens}")
    assert server.wait_exit() == 3
    assert "line 1 of the token file" in server.log


def test_without_tokens_it_serves_loopback_only_and_says_so(launch: Launch) -> None:
    server = launch(SLEUTH_API_TOKENS="")
    assert "serving without auth, on loopback only" in server.log
    assert urlsplit(server.url).hostname == "127.0.0.1"
    assert server.post("/api/v1/search", {"query": "nimbus"}, token=None).status_code == 200


def test_the_rate_limit_is_per_token(launch: Launch) -> None:
    server = launch(SLEUTH_RATE_LIMIT="3/day")
    statuses = [server.post("/api/v1/search", {"query": "n"}).status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    refused = server.post("/api/v1/search", {"query": "n"})
    assert refused.status_code == 429
    assert refused.json()["code"] == "TOO_MANY_REQUESTS"
    assert refused.json()["retryable"] is True
    assert 1 <= int(refused.headers["retry-after"]) <= 86400
    # A bad request counts too: the limit is on requests, not on successes.
    assert server.post("/api/v1/fetch", {"url": ""}).status_code == 429
    assert server.post("/api/v1/search", {"query": "n"}, token=OTHER_TOKEN).status_code == 200
    assert server.get("/healthz", token=None).status_code == 200  # never limited
    assert "sleuth_rate_limited_total 2" in server.get("/metrics").text.splitlines()


def test_sigterm_refuses_new_connections_and_lets_requests_in_flight_finish(
    launch: Launch, wire: Wire
) -> None:
    release = threading.Event()
    slow = payloads_openai.answer(json.dumps({"slug": "handbook", "tags": ["a", "b"]}))
    slow.stall = release
    wire.on("/v1" + payloads_openai.PATH, slow)
    server = launch(SLEUTH_SHUTDOWN_GRACE="30", **model_env("openai", wire.url("/v1")))
    port = urlsplit(server.url).port
    assert port is not None
    answers: list[httpx.Response] = []

    def in_flight() -> None:
        answers.append(server.post("/api/v1/links/suggest", {"url": URL}))

    caller = threading.Thread(target=in_flight)
    caller.start()
    _wait_for(lambda: len(wire.requests) == 1)  # the request is at the model, waiting

    server.process.send_signal(signal.SIGTERM)
    stopping = server.wait_line("sleuth: stopping: ")
    assert "1 open connection(s)" in stopping
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()

    release.set()
    caller.join(60)
    assert [a.status_code for a in answers] == [200]
    assert answers[0].json()["slug"] == "handbook"
    assert server.wait_exit() == 0
    assert "Traceback" not in server.log


def _wait_for(condition: Callable[[], bool], timeout: float = 30) -> None:
    """Wait on the model server's own record (its requests list), not on a clock."""
    done = threading.Event()

    def poll() -> None:
        while not condition():
            if done.wait(0.01):
                return
        done.set()

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()
    assert done.wait(timeout), "the condition never came true"


def test_two_workers_share_one_port(launch: Launch) -> None:
    server = launch("--workers", "2")
    assert "(2 workers)" in server.log
    for _ in range(4):
        assert server.post("/api/v1/search", {"query": "nimbus"}).status_code == 200
    assert server.stop(signal.SIGTERM) == 0


def test_insecure_no_auth_serves_beyond_loopback_with_a_warning(launch: Launch) -> None:
    server = launch("--host", "0.0.0.0", "--insecure-no-auth", SLEUTH_API_TOKENS="")
    assert "serving without auth, on 0.0.0.0, reachable by anyone" in server.log
    assert "list the names it answers to in SLEUTH_SERVER_HOSTS" in server.log
    port = urlsplit(server.url).port
    with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
        assert client.post("/api/v1/search", json={"query": "nimbus"}).status_code == 200
        # Reached by another name (a LAN address, or a rebound one): not without listing it.
        named = client.post(
            "/api/v1/search", json={"query": "nimbus"}, headers={"Host": f"192.0.2.7:{port}"}
        )
        assert named.status_code == 421


def test_cors_star_with_tokens_lets_any_origin_in_with_a_token(launch: Launch) -> None:
    server = launch(SLEUTH_API_TOKENS=TOKEN, SLEUTH_CORS_ORIGINS="*")
    with httpx.Client(base_url=server.url) as client:
        reply = client.post(
            "/api/v1/search",
            json={"query": "nimbus"},
            headers={"Origin": "https://any.example", "Authorization": f"Bearer {TOKEN}"},
        )
        anonymous = client.post(
            "/api/v1/search", json={"query": "nimbus"}, headers={"Origin": "https://any.example"}
        )
    assert reply.status_code == 200
    assert reply.headers["access-control-allow-origin"] == "*"
    assert anonymous.status_code == 401  # a page cannot forge the token

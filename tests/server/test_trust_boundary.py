"""What a web page in the user's browser can make ``sleuth serve`` do: nothing it should not.

A page reaches a loopback server by DNS rebinding (the browser then sends the
attacker's name as ``Host``) or by a cross-site "simple" request (``text/plain``
bodies, the page's ``Origin``). Each is sent here by hand, as the browser would,
to the API and to ``/mcp``, with and without tokens.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from server.harness import TOKEN, SearxngWeb, ServerProcess

Launch = Callable[..., ServerProcess]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
MCP_ACCEPT = "application/json, text/event-stream"
EVIL = "https://evil.example"


def send(
    server: ServerProcess,
    path: str,
    *,
    token: str | None,
    body: Any = None,
    content_type: str = "application/json",
    **headers: str,
) -> httpx.Response:
    """One POST with exactly these headers (``Host`` too, as a rebinding browser sends it)."""
    sent = {"Content-Type": content_type, **{k.replace("_", "-"): v for k, v in headers.items()}}
    if token:
        sent["Authorization"] = f"Bearer {token}"
    if path == "/mcp":
        sent.setdefault("Accept", MCP_ACCEPT)
    with httpx.Client(base_url=server.url, timeout=60) as client:
        return client.post(path, content=json.dumps(body), headers=sent)


def port(server: ServerProcess) -> int:
    number = urlsplit(server.url).port
    assert number is not None
    return number


def refused(reply: httpx.Response, status: int, code: str) -> str:
    assert reply.status_code == status, reply.text
    body = reply.json()
    assert set(body) == {"error", "code", "retryable"}
    assert body["code"] == code
    assert body["retryable"] is False
    return str(body["error"])


@pytest.mark.parametrize("path", ["/api/v1/fetch", "/mcp"])
def test_without_tokens_a_rebound_host_a_foreign_origin_and_text_plain_are_refused(
    launch: Launch, web: SearxngWeb, path: str
) -> None:
    server = launch(SLEUTH_API_TOKENS="")
    body = {"url": web.site.origin + "/docs/timeouts"} if path != "/mcp" else INITIALIZE

    rebound = send(server, path, token=None, body=body, Host=f"attacker.example:{port(server)}")
    message = refused(rebound, 421, "MISDIRECTED_REQUEST")
    assert "attacker.example" in message
    assert "SLEUTH_SERVER_HOSTS" in message  # the hint says how to let a name in

    foreign = send(server, path, token=None, body=body, Origin=EVIL)
    assert "SLEUTH_CORS_ORIGINS" in refused(foreign, 403, "ORIGIN_NOT_ALLOWED")
    # A sandboxed frame or a file:// page sends "null"; the loopback origin on another port
    # is another site too.
    for origin in ("null", "http://127.0.0.1:1", f"http://localhost:{port(server) + 1}"):
        refused(send(server, path, token=None, body=body, Origin=origin), 403, "ORIGIN_NOT_ALLOWED")

    simple = send(server, path, token=None, body=body, content_type="text/plain")
    assert "Content-Type" in refused(simple, 415, "UNSUPPORTED_MEDIA_TYPE")
    form = send(
        server, path, token=None, body=body, content_type="application/x-www-form-urlencoded"
    )
    refused(form, 415, "UNSUPPORTED_MEDIA_TYPE")

    # Nothing of the above reached the page or the tools.
    assert web.page_paths() == []
    # The same request, as the server's own page or a local client sends it, is served.
    own = f"http://127.0.0.1:{port(server)}"
    for headers in ({}, {"Origin": own}, {"Host": f"localhost:{port(server)}"}):
        reply = send(server, path, token=None, body=body, **headers)
        assert reply.status_code == 200, (headers, reply.text)
    for host in (f"[::1]:{port(server)}", "127.8.9.10", "LOCALHOST."):
        assert send(server, path, token=None, body=body, Host=host).status_code == 200, host


def test_without_tokens_the_listed_server_names_and_cors_origins_are_let_in(
    launch: Launch, web: SearxngWeb
) -> None:
    app = "https://app.example"
    server = launch(
        SLEUTH_API_TOKENS="",
        SLEUTH_SERVER_HOSTS="sleuth.internal.example, other.example",
        SLEUTH_CORS_ORIGINS=app,
    )
    body = {"query": "nimbus"}
    named = send(server, "/api/v1/search", token=None, body=body, Host="sleuth.internal.example")
    assert named.status_code == 200
    listed = send(server, "/api/v1/search", token=None, body=body, Origin=app)
    assert listed.status_code == 200
    assert listed.headers["access-control-allow-origin"] == app
    # The server's own page under a listed name is same-origin.
    own = send(
        server,
        "/api/v1/search",
        token=None,
        body=body,
        Host="other.example:8443",
        Origin="https://other.example:8443",
    )
    assert own.status_code == 200
    stranger = send(server, "/api/v1/search", token=None, body=body, Host="evil.example")
    refused(stranger, 421, "MISDIRECTED_REQUEST")
    # A page that shares the server's name but not its port is another origin.
    port_only = send(
        server, "/api/v1/search", token=None, body=body, Origin="http://sleuth.internal.example"
    )
    refused(port_only, 403, "ORIGIN_NOT_ALLOWED")


@pytest.mark.parametrize("path", ["/api/v1/search", "/mcp"])
def test_with_tokens_the_host_is_free_unless_listed_and_origin_and_type_still_hold(
    launch: Launch, path: str
) -> None:
    body = {"query": "nimbus"} if path != "/mcp" else INITIALIZE
    server = launch()  # the harness's tokens
    # Behind a proxy the Host is the public name; the token is what a page cannot forge.
    proxied = send(server, path, token=TOKEN, body=body, Host="sleuth.example.com")
    assert proxied.status_code == 200, proxied.text
    refused(
        send(server, path, token=None, body=body, Host="sleuth.example.com"), 401, "UNAUTHORIZED"
    )
    refused(send(server, path, token=TOKEN, body=body, Origin=EVIL), 403, "ORIGIN_NOT_ALLOWED")
    refused(
        send(server, path, token=TOKEN, body=body, content_type="text/plain"),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
    )

    listed = launch(SLEUTH_SERVER_HOSTS="sleuth.example.com")
    assert send(listed, path, token=TOKEN, body=body, Host="sleuth.example.com").status_code == 200
    refused(
        send(listed, path, token=TOKEN, body=body, Host="rebound.example"),
        421,
        "MISDIRECTED_REQUEST",
    )


def test_probes_answer_any_host(launch: Launch) -> None:
    """Orchestrators probe a pod by its IP; liveness and readiness reveal nothing."""
    server = launch(SLEUTH_API_TOKENS="")
    with httpx.Client(base_url=server.url) as client:
        for path in ("/healthz", "/readyz"):
            assert client.get(path, headers={"Host": "10.1.2.3:8080"}).status_code == 200
        page = client.get("/", headers={"Host": "attacker.example"})
    refused(page, 421, "MISDIRECTED_REQUEST")


def test_the_page_and_docs_send_security_headers_and_a_favicon(launch: Launch) -> None:
    server = launch(SLEUTH_API_TOKENS="")
    with httpx.Client(base_url=server.url) as client:
        for path in ("/", "/docs", "/openapi.json", "/static/app.js"):
            reply = client.get(path)
            assert reply.status_code == 200, path
            policy = reply.headers["content-security-policy"]
            directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
            assert directives["frame-ancestors"] == "'none'", path
            assert directives["script-src"] == "'self'", path  # no inline code, no other host
            assert "unsafe-inline" not in policy
            assert reply.headers["x-content-type-options"] == "nosniff"
            assert reply.headers["referrer-policy"] == "no-referrer"
        docs = client.get("/docs").text
        assert "<script>" not in docs
        assert "<style>" not in docs
        assert '<link rel="icon" href="/static/favicon.svg"' in docs
        assert '<link rel="icon" href="/static/favicon.svg"' in client.get("/").text
        for path in ("/favicon.ico", "/static/favicon.svg"):
            icon = client.get(path)
            assert icon.status_code == 200, path
            assert icon.headers["content-type"].startswith("image/svg+xml")
            assert icon.text.startswith("<svg")
        script = client.get("/static/docs.js")
        assert script.status_code == 200
        assert "openapi.json" in script.text
        assert client.get("/static/docs.css").status_code == 200

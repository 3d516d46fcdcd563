"""Two ``sleuth serve`` processes sharing one real ``redis-server``, with different
``[[sites]]``: instance A has a cookie for the origin, instance B has none. The origin logs
the headers it gets and answers by the cookie, so a page either instance took from the
other's read would show in its title; the shared cache keeps the two kinds apart.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import redis as redis_client

from loopback import Site, article
from redis_server import RedisServer, running_redis
from server.harness import BLOG, SearxngWeb, ServerProcess

pytestmark = pytest.mark.redis

Launch = Callable[..., ServerProcess]
SECRET = "c00kie-for-members-only"
SIGNED_IN, SIGNED_OUT = "Members lounge", "Please sign in"


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    with running_redis() as server:
        yield server


def _members(site: Site, path: str) -> None:
    """A page whose title says whether the request carried the operator's cookie."""

    def handler(request: BaseHTTPRequestHandler) -> None:
        signed_in = f"sid={SECRET}" in (request.headers.get("Cookie") or "")
        head = "<link rel='stylesheet' href='/members.css'>"
        body = article(SIGNED_IN if signed_in else SIGNED_OUT, BLOG, head).encode()
        request.send_response(200)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    site.add(path, handler=handler)


def _config(site: Site, tmp_path: Path) -> Path:
    cookies = tmp_path / "cookies.txt"
    later = int(time.time()) + 86400
    cookies.write_text(
        f"# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t{later}\tsid\t{SECRET}\n",
        encoding="utf-8",
    )
    config = tmp_path / "with-cookie.toml"
    config.write_text(
        f'[[sites]]\norigin = "{site.origin}"\ncookies_file = "{cookies}"\nallow_http = true\n',
        encoding="utf-8",
    )
    return config


def _cookies(site: Site, path: str) -> list[bool]:
    """For each request to ``path``, in order: did it carry the cookie?"""
    return [
        any(name.lower() == "cookie" and SECRET in value for name, value in r.headers.items())
        for r in site.requests
        if r.path == path
    ]


def _fetch(server: ServerProcess, url: str) -> dict[str, Any]:
    reply = server.post("/api/v1/fetch", {"url": url})
    assert reply.status_code == 200, reply.text
    found: dict[str, Any] = reply.json()
    return found


def test_instances_with_different_sites_never_share_a_page_through_redis(
    launch: Launch, redis: RedisServer, web: SearxngWeb, tmp_path: Path
) -> None:
    site = web.site
    site.add("/members.css", "p { color: black }", headers={"Content-Type": "text/css"})
    for path in ("/members", "/lounge"):
        _members(site, path)
    shared = {"SLEUTH_CACHE": "redis", "SLEUTH_REDIS_URL": redis.url}
    a = launch(**shared, SLEUTH_CONFIG=str(_config(site, tmp_path)))
    b = launch(**shared)

    # A reads first, with the cookie; B then reads the same page itself, without it.
    first = _fetch(a, site.origin + "/members")
    assert (first["title"], first["cache"], first["metadata"].get("credentials")) == (
        SIGNED_IN,
        "miss",
        True,
    )
    plain = _fetch(b, site.origin + "/members")
    assert (plain["title"], plain["cache"]) == (SIGNED_OUT, "miss")
    assert "credentials" not in plain["metadata"]
    # Each one's own copy is now a hit for it, and only for it.
    hit = _fetch(a, site.origin + "/members")
    assert (hit["title"], hit["cache"], hit["metadata"]["credentials"]) == (SIGNED_IN, "hit", True)
    again = _fetch(b, site.origin + "/members")
    assert (again["title"], again["cache"]) == (SIGNED_OUT, "hit")
    assert _cookies(site, "/members") == [True, False]

    # The other way round: B's anonymous copy is never A's either.
    assert _fetch(b, site.origin + "/lounge")["title"] == SIGNED_OUT
    lounge = _fetch(a, site.origin + "/lounge")
    assert (lounge["title"], lounge["cache"], lounge["metadata"]["credentials"]) == (
        SIGNED_IN,
        "miss",
        True,
    )
    assert _cookies(site, "/lounge") == [False, True]

    # robots.txt and the style sheet were read once by each, and kept apart the same way.
    assert _cookies(site, "/robots.txt") == [True, False]
    assert _cookies(site, "/members.css") == [True, False]

    # The shared cache holds both kinds of page, and the cookie in neither keys nor values.
    store = redis_client.Redis.from_url(redis.url)
    try:
        keys = list(store.scan_iter(match="*", count=500))
        assert keys
        for key in keys:
            assert SECRET.encode() not in key
            assert not [value for value in _values(store, key) if SECRET.encode() in value]
    finally:
        store.close()


def _values(store: Any, key: bytes) -> list[bytes]:
    """Every value a key holds, whatever its type (the task engine keeps hashes, streams)."""
    kind = store.type(key)
    if kind == b"string":
        return [store.get(key) or b""]
    if kind == b"hash":
        return [*store.hkeys(key), *store.hvals(key)]
    if kind == b"list":
        return list(store.lrange(key, 0, -1))
    if kind in (b"set", b"zset"):
        return list(store.smembers(key) if kind == b"set" else store.zrange(key, 0, -1))
    if kind == b"stream":
        return [b"".join(k + v for k, v in entry.items()) for _, entry in store.xrange(key)]
    return []

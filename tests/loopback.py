"""A real HTTP server on 127.0.0.1 for tests: routes, recorded requests, stalls.

Stalls wait on a ``threading.Event`` that the test (or teardown) sets, so no
test depends on wall-clock sleeps.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from sleuth.config import Settings


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    stall: threading.Event | None = None  # wait for this before answering
    handler: Callable[[BaseHTTPRequestHandler], None] | None = None


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up early (a timeout test) is expected; anything else is not."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class Site:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[Seen] = []
        self.release = threading.Event()
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                with site._lock:
                    site.requests.append(Seen("GET", self.path, dict(self.headers.items())))
                route = site.routes.get(self.path) or site.routes.get(self.path.split("?")[0])
                if route is None:
                    route = Route(
                        404, b"<html><body>not found</body></html>", {"Content-Type": "text/html"}
                    )
                if route.stall is not None:
                    route.stall.wait(30)
                if route.handler is not None:
                    route.handler(self)
                    return
                self.send_response(route.status)
                headers = {"Content-Type": "text/html; charset=utf-8", **route.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                if "Content-Length" not in headers:
                    self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                with suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(route.body)

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def add(self, path: str, body: str | bytes = b"", status: int = 200, **kwargs: object) -> str:
        data = body.encode() if isinstance(body, str) else body
        self.routes[path] = Route(status=status, body=data, **kwargs)  # type: ignore[arg-type]
        return self.origin + path

    def paths(self) -> list[str]:
        with self._lock:
            return [seen.path for seen in self.requests]

    def start(self) -> Site:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        for route in self.routes.values():
            if route.stall is not None:
                route.stall.set()
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def serve() -> Iterator[Site]:
    site = Site().start()
    try:
        yield site
    finally:
        site.stop()


def article(title: str, paragraphs: list[str], extra_head: str = "") -> str:
    body = "\n".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title>{extra_head}</head>"
        f"<body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
        f"<article><h1>{title}</h1>{body}</article>"
        f"<footer>Copyright example</footer></body></html>"
    )


@dataclass
class Web:
    """The loopback web: one server hosting the search endpoint and every page."""

    site: Site
    results: list[dict[str, Any]] = field(default_factory=list)
    searches: list[dict[str, list[str]]] = field(default_factory=list)
    search_status: int = 200

    def page(
        self,
        path: str,
        title: str,
        paragraphs: list[str],
        *,
        head: str = "",
        published: str | None = None,
        **extra: Any,
    ) -> str:
        url = self.site.add(path, article(title, paragraphs, head), **extra)
        self.result(url, title, published)
        return url

    def result(self, url: str, title: str, published: str | None = None) -> None:
        self.results.append({"url": url, "title": title, "content": "", "publishedDate": published})

    def _search(self, handler: BaseHTTPRequestHandler) -> None:
        self.searches.append(parse_qs(urlsplit(handler.path).query))
        body = json.dumps({"results": self.results}).encode()
        handler.send_response(self.search_status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "searxng_url": self.site.origin,
            "search_providers": ["searxng"],
            "allow_hosts": [f"127.0.0.1:{self.site.port}"],
            "cache": "memory",
            "render": "never",
            **overrides,
        }
        return Settings(**values)

    def page_requests(self) -> list[str]:
        return [p for p in self.site.paths() if not p.startswith(("/search", "/robots.txt"))]


@dataclass
class SearxngWeb:
    """Pages found through a SearXNG-style ``/search`` on one loopback site, for tests
    that run sleuth in another process (the MCP and HTTP servers).

    Unlike ``Web`` it records each query's ``q`` alone, gives every result a snippet, and
    exports its settings as environment variables too.
    """

    site: Site
    results: list[dict[str, Any]] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)
    extra_env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.site.add("/search", handler=self._search)

    def page(
        self, path: str, title: str, paragraphs: list[str], head: str = "", *, listed: bool = True
    ) -> str:
        url = self.site.add(path, article(title, paragraphs, head))
        if listed:
            self.results.append({"url": url, "title": title, "content": paragraphs[0][:120]})
        return url

    def _search(self, handler: BaseHTTPRequestHandler) -> None:
        self.searches.append(parse_qs(urlsplit(handler.path).query).get("q", [""])[0])
        body = json.dumps({"results": self.results}).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def page_paths(self) -> list[str]:
        """Pages requested so far; searches and robots.txt left out."""
        return [p for p in self.site.paths() if not p.startswith(("/search", "/robots.txt"))]

    def settings(self) -> Settings:
        return Settings(
            searxng_url=self.site.origin,
            search_providers=["searxng"],
            allow_hosts=["127.0.0.1"],
            allow_ports=[self.site.port],
            cache="memory",
            render="never",
        )

    def env(self, home: Path) -> dict[str, str]:
        """The same settings as environment variables, for sleuth in another process."""
        return {
            "SLEUTH_SEARXNG_URL": self.site.origin,
            "SLEUTH_SEARCH_PROVIDERS": "searxng",
            "SLEUTH_ALLOW_HOSTS": "127.0.0.1",
            "SLEUTH_ALLOW_PORTS": str(self.site.port),
            "SLEUTH_CACHE": "memory",
            "SLEUTH_RENDER": "never",
            # No config file or cache of the developer's own may leak in.
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"),
            **self.extra_env,
        }

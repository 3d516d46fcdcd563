"""A loopback web for the MCP tests: one server with a SearXNG-style search endpoint and pages.

No ``__init__.py`` lives in this folder on purpose: a ``tests/mcp`` package
would shadow the MCP SDK, which is also called ``mcp``.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from loopback import Site, article
from sleuth.config import Settings

QUESTION = "What is the default timeout of the Nimbus client?"
DOCS = [
    "Nimbus applies a default timeout of five seconds to every request, and it counts "
    "connecting, reading and writing separately, so one slow phase cannot hide another.",
    "To change the default timeout for a single call, pass a timeout argument to the request "
    "method; to change it for every call, set the timeout when you create the client.",
    "Connection pools keep at most ten idle connections for each host and close any "
    "connection that has been idle for thirty seconds.",
]
BLOG = [
    "We moved our crawler to Nimbus last spring, and the first surprise was how often the "
    "default timeout of five seconds cut off our slowest partners in the evening rush.",
    "We raised the read timeout to twenty seconds for the two partners that need it and "
    "kept the default everywhere else, which halved our error rate within a week.",
]
SECRET = [
    "This page lists the internal release calendar of the Nimbus project and must not be "
    "read by crawlers, which is why the robots.txt file of the site forbids the path.",
]
ROBOTS = "User-agent: *\nDisallow: /private/\n"
READY = "MCP server listening on "


@dataclass
class Web:
    """Pages on a loopback site, found through its ``/search`` endpoint (SearXNG's JSON API)."""

    site: Site
    results: list[dict[str, Any]] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)

    def page(self, path: str, title: str, paragraphs: list[str], *, listed: bool = True) -> str:
        url = self.site.add(path, article(title, paragraphs))
        if listed:
            snippet = paragraphs[0][:120]
            self.results.append({"url": url, "title": title, "content": snippet})
        return url

    def serve_search(self, handler: BaseHTTPRequestHandler) -> None:
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
        """The same settings as environment variables, for a server in another process."""
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
        }


def build_web(site: Site) -> Web:
    web = Web(site)
    site.add("/search", handler=web.serve_search)
    site.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
    web.page("/docs/timeouts", "Nimbus timeouts", DOCS)
    web.page("/blog/nimbus", "Moving to Nimbus", BLOG)
    web.page("/private/calendar", "Nimbus calendar", SECRET, listed=False)
    return web


class ServerProcess:
    """``python -m sleuth.server.mcp --transport http`` on a free loopback port."""

    def __init__(self, env: dict[str, str]) -> None:
        self.lines: list[str] = []
        self._ready: queue.Queue[str] = queue.Queue()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sleuth.server.mcp", "--transport", "http", "--port", "0"],
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            if READY in line:
                self._ready.put(line)
        self._ready.put("")  # the process closed stderr: it has ended

    def wait_ready(self, timeout: float = 60) -> str:
        """The endpoint URL, once the server listens; fails if it exits first."""
        line = self._ready.get(timeout=timeout)
        assert line, f"the server exited before listening:\n{self.log}"
        return line.split(READY, 1)[1].strip()

    def stop(self, sig: signal.Signals, timeout: float = 30) -> int:
        self.process.send_signal(sig)
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        self._reader.join(30)

    @property
    def log(self) -> str:
        return "".join(self.lines)

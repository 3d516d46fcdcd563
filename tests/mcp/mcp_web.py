"""A loopback web for the MCP tests: one server with a SearXNG-style search endpoint and pages.

No ``__init__.py`` lives in this folder on purpose: a ``tests/mcp`` package
would shadow the MCP SDK, which is also called ``mcp``.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading

from loopback import SearxngWeb, Site

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


def build_web(site: Site) -> SearxngWeb:
    web = SearxngWeb(site)
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

"""``sleuth serve`` in its own process on a free loopback port, and what tests need around it.

The server is started exactly as an operator starts it (``python -m sleuth
serve``); the test reads the port from its "serving on" line on stderr, so no
port is guessed and no test waits on a clock.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from loopback import SearxngWeb, Site, article

READY = "sleuth: serving on "
HOSTMAP = Path(__file__).with_name("hostmap")
TOKEN = "tok-alpha-7f3c9a"
OTHER_TOKEN = "tok-bravo-21d8e4"


class ServerProcess:
    """One ``sleuth serve`` process; ``url`` once it listens."""

    def __init__(
        self, env: dict[str, str], *args: str, host: str = "127.0.0.1", command: str = "serve"
    ) -> None:
        """``command`` other than serve (``worker``) runs that command, read the same way."""
        self.lines: list[str] = []
        self._ready: queue.Queue[str] = queue.Queue()
        where = ["--host", host, "--port", "0"] if command == "serve" else []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sleuth", command, *where, *args],
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._changed = threading.Condition()
        self._ended = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.url = ""

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._changed:
                self.lines.append(line)
                self._changed.notify_all()
            if line.startswith(READY):
                self._ready.put(line)
        self._ready.put("")  # stderr closed: the process has ended
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def wait_line(self, prefix: str, timeout: float = 30) -> str:
        """The first stderr line that starts with ``prefix``, once the server wrote it."""

        def found() -> str | None:
            return next((line for line in self.lines if line.startswith(prefix)), None)

        with self._changed:
            self._changed.wait_for(lambda: found() is not None or self._ended, timeout)
            line = found()
        assert line is not None, f"the server never wrote {prefix!r}:\n{self.log}"
        return line

    def wait_event(self, name: str, timeout: float = 30) -> dict[str, Any]:
        """The first JSON log event called ``name``, once the server wrote it."""

        def found() -> dict[str, Any] | None:
            return next((e for e in self.log_events() if e.get("event") == name), None)

        with self._changed:
            self._changed.wait_for(lambda: found() is not None or self._ended, timeout)
            event = found()
        assert event is not None, f"the server never logged {name!r}:\n{self.log}"
        return event

    def wait_events(self, name: str, count: int, timeout: float = 30) -> list[dict[str, Any]]:
        """The JSON log events called ``name``, once the server wrote ``count`` of them: a
        reply can reach the client before its log line reaches stderr."""

        def found() -> list[dict[str, Any]]:
            return [e for e in self.log_events() if e.get("event") == name]

        with self._changed:
            self._changed.wait_for(lambda: len(found()) >= count or self._ended, timeout)
            events = found()
        assert len(events) >= count, f"the server logged {len(events)} {name!r}:\n{self.log}"
        return events

    def wait_ready(self, timeout: float = 60) -> ServerProcess:
        line = self._ready.get(timeout=timeout)
        assert line, f"the server exited before listening:\n{self.log}"
        self.url = line[len(READY) :].split()[0]
        return self

    def wait_exit(self, timeout: float = 60) -> int:
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout)
        return code

    def client(self, token: str | None = TOKEN, **kwargs: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60, **kwargs)

    def post(
        self, path: str, body: Any = None, *, token: str | None = TOKEN, **kw: Any
    ) -> httpx.Response:
        with self.client(token) as client:
            if body is None or isinstance(body, bytes | str):
                # Raw bodies are declared JSON unless the test says otherwise.
                kw["headers"] = {"Content-Type": "application/json", **kw.get("headers", {})}
                return client.post(path, content=body, **kw)
            return client.post(path, json=body, **kw)

    def get(self, path: str, *, token: str | None = TOKEN, **kw: Any) -> httpx.Response:
        with self.client(token) as client:
            return client.get(path, **kw)

    def stop(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.wait_exit(timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.wait_exit(30)

    @property
    def log(self) -> str:
        return "".join(self.lines)

    def log_events(self) -> Iterator[dict[str, Any]]:
        """The JSON log lines (``SLEUTH_LOG_FORMAT=json``)."""
        for line in list(self.lines):
            if line.startswith("{"):
                try:
                    yield json.loads(line)
                except ValueError:
                    continue


QUESTION = "What is the default timeout of the Nimbus client?"
DOCS = [
    "Nimbus applies a default timeout of five seconds to every request, and it counts "
    "connecting, reading and writing separately, so one slow phase cannot hide another.",
    "To change the default timeout for a single call, pass a timeout argument to the request "
    "method; to change it for every call, set the timeout when you create the client.",
]
BLOG = [
    "We moved our crawler to Nimbus last spring, and the first surprise was how often the "
    "default timeout of five seconds cut off our slowest partners in the evening rush.",
    "We raised the read timeout to twenty seconds for the two partners that need it and "
    "kept the default everywhere else, which halved our error rate within a week.",
]
ROBOTS = "User-agent: *\nDisallow: /private/\n"


def build_web(site: Site) -> SearxngWeb:
    web = SearxngWeb(
        site, extra_env={"SLEUTH_API_TOKENS": f"{TOKEN},{OTHER_TOKEN}", "SLEUTH_LOG_FORMAT": "json"}
    )
    site.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
    head = (
        '<meta name="description" content="How Nimbus times out requests, and how to change it.">'
    )
    web.page("/docs/timeouts", "Nimbus timeouts", DOCS, head)
    web.page("/blog/nimbus", "Moving to Nimbus", BLOG)
    site.add("/private/calendar", article("Nimbus calendar", ["Internal release dates."] * 3))
    return web


def model_env(provider: str, base_url: str, **extra: str) -> dict[str, str]:
    """Settings that point the server's LLM layer at a loopback model server."""
    return {
        "SLEUTH_LLM_PROVIDER": provider,
        "SLEUTH_LLM_BASE_URL": base_url,
        "SLEUTH_LLM_MODEL": "test-model",
        "SLEUTH_LLM_API_KEY": "sk-test-key",
        "SLEUTH_LLM_RETRIES": "0",
        **extra,
    }


def stop_quietly(server: ServerProcess) -> None:
    try:
        server.stop(signal.SIGTERM, timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()

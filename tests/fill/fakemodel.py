"""A loopback OpenAI-compatible server that reads the requested ``json_schema`` and answers
per leaf from a script: for each page (found by the URL the request names) a map of JSON
Pointer -> ``{"value": …, "quote": "…"}``. Keys the schema lacks are sent as given.

A page's script may instead be a list of raw reply texts served in turn (a malformed
reply, then its repair), the last one repeating.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PAGE = re.compile(r"from the page at (\S+) \(")
_MISSING = object()


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def answer(schema: dict[str, Any], script: dict[str, Any], path: str = "") -> Any:
    """The reply the script gives for ``schema`` (a wrapped-leaf schema), built leaf by leaf."""
    if schema.get("required") == ["value", "quote"]:
        return script.get(path, _MISSING)
    if schema.get("type") == "array":
        items = []
        index = 0
        while any(key.startswith(f"{path}/{index}") for key in script):
            item = answer(schema["items"], script, f"{path}/{index}")
            items.append({} if item is _MISSING else item)
            index += 1
        return items if items else _MISSING
    out: dict[str, Any] = {}
    for key, sub in (schema.get("properties") or {}).items():
        value = answer(sub, script, f"{path}/{_escape(key)}")
        if value is not _MISSING:
            out[key] = value
    return out if out or not path else _MISSING


@dataclass
class FakeModel:
    """Scripts by page URL; every request body is kept, and the time spent answering."""

    scripts: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)  # url -> stray top keys
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    seconds: float = 0.0  # the model's own time, as the server measures it
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reply(self, body: dict[str, Any]) -> str:
        messages = body["messages"]
        found = _PAGE.search(next(m["content"] for m in messages if m["role"] == "user"))
        url = found.group(1) if found else ""
        schema = body["response_format"]["json_schema"]["schema"]
        with self.lock:
            script = self.scripts.get(url, {})
            if isinstance(script, list):
                turn = sum(1 for m in messages if m["role"] == "assistant")
                return str(script[min(turn, len(script) - 1)])
        reply = answer(schema, script)
        reply.update(self.extra.get(url, {}))
        return json.dumps(reply)

    def handle(self, handler: BaseHTTPRequestHandler) -> None:
        started = time.perf_counter()
        length = int(handler.headers.get("Content-Length") or 0)
        body = json.loads(handler.rfile.read(length))
        with self.lock:
            self.requests.append(body)
        content = self.reply(body)
        payload = json.dumps(
            {
                "model": body.get("model", "test-model"),
                "choices": [
                    {
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20},
            }
        ).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)
        with self.lock:
            self.seconds += time.perf_counter() - started


class _Server(ThreadingHTTPServer):
    daemon_threads = True


@contextmanager
def running(model: FakeModel) -> Iterator[FakeModel]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            model.handle(self)

    server = _Server(("127.0.0.1", 0), Handler)
    model.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)

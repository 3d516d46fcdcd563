"""A loopback webhook receiver for tests: records each POST, answers as told, and checks
a delivery's signature the way docs/server.md tells receivers to."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from loopback import _QuietServer

SECRET = "whsec-test-4f1c2a9e"


@dataclass
class Delivery:
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.body)
        return found


@dataclass
class Receiver:
    """A loopback endpoint that records each POST and answers with ``statuses`` in turn
    (200 once they run out); ``answered`` counts the answers sent to their last byte."""

    statuses: list[int] = field(default_factory=list)
    posts: list[Delivery] = field(default_factory=list)
    answered: int = 0
    changed: threading.Condition = field(default_factory=threading.Condition)
    url: str = ""

    @property
    def port(self) -> int:
        return int(self.url.split(":")[2].split("/")[0])

    def wait(self, count: int) -> list[Delivery]:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.posts) >= count, 30), self.posts
            return list(self.posts)


@contextmanager
def receiving(
    *statuses: int, hold: threading.Event | None = None, drip: threading.Event | None = None
) -> Iterator[Receiver]:
    """``hold``: answer nothing until it is set; ``drip``: send the status and one byte of
    the body, and the rest only once it is set."""
    receiver = Receiver(list(statuses))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with receiver.changed:
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                receiver.posts.append(Delivery(dict(self.headers.items()), body))
                receiver.changed.notify_all()
            if hold is not None:
                hold.wait(60)
            body = b"accepted, slowly" if drip is not None else b""
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if drip is not None:
                self.wfile.write(body[:1])
                self.wfile.flush()
                drip.wait(60)
                self.wfile.write(body[1:])
            with receiver.changed:
                receiver.answered += 1
                receiver.changed.notify_all()

    server = _QuietServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/sleuth"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


def verified(delivery: Delivery) -> dict[str, Any]:
    """The payload, once its signature checks out the way docs/server.md tells receivers."""
    stamp = delivery.headers["X-Sleuth-Timestamp"]
    mac = hmac.new(SECRET.encode(), stamp.encode() + b"." + delivery.body, hashlib.sha256)
    assert hmac.compare_digest(delivery.headers["X-Sleuth-Signature"], "sha256=" + mac.hexdigest())
    assert abs(time.time() - int(stamp)) < 300
    assert delivery.headers["Content-Type"] == "application/json"
    return delivery.json()

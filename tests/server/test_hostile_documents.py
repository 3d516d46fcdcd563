"""``sleuth serve`` keeps answering while it reads a hostile document.

A parser that turns slow on a hostile body must not hold the server's GIL: the document
is read in a worker process, under ``SLEUTH_DOCUMENT_TIMEOUT``, while every other route
answers. Events order the test: the page server says when it has sent the body.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import httpx

from loopback import SearxngWeb
from server.harness import ServerProcess

Launch = Callable[..., ServerProcess]

# A heading whose run of spaces made the old title pattern backtrack cubically (holding
# the GIL for hours), then Markdown that any parser needs long, linear work to read.
HOSTILE = ("# a" + " " * 6000 + "b\n\nWhere a < b, " + "![" * 1_000_000).encode()


def test_healthz_answers_while_a_hostile_document_is_read(launch: Launch, web: SearxngWeb) -> None:
    served = threading.Event()

    def notes(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "text/markdown; charset=utf-8")
        request.send_header("Content-Length", str(len(HOSTILE)))
        request.end_headers()
        request.wfile.write(HOSTILE)
        request.wfile.flush()
        served.set()

    url = web.site.add("/notes.md", handler=notes)
    server = launch(SLEUTH_DOCUMENT_TIMEOUT="3")
    fetched = threading.Event()
    answers: list[httpx.Response] = []

    def fetch() -> None:
        try:
            answers.append(server.post("/api/v1/fetch", {"url": url}))
        finally:
            fetched.set()

    reader = threading.Thread(target=fetch, daemon=True)
    reader.start()
    assert served.wait(60), "the page server never sent the document"
    health = server.get("/healthz", token=None)
    assert health.status_code == 200
    assert not fetched.is_set(), "the document was read before /healthz could be asked"
    assert fetched.wait(60)
    reader.join()
    # The document's own time limit ends its reading, and the server says so.
    assert answers[0].status_code == 504
    assert answers[0].json()["code"] == "TIMEOUT"
    assert server.get("/healthz", token=None).status_code == 200

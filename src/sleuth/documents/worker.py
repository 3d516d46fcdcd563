"""PDFs and text documents are read in a child process, so a hostile one can neither
hang nor crash sleuth.

PDFium is native code reading untrusted files, and a text parser that turns slow on a
hostile body holds the GIL (every route of ``sleuth serve`` with it). Each document is
parsed by a worker process (``python -m sleuth.documents.worker``) that the parent kills
when it overruns ``SLEUTH_DOCUMENT_TIMEOUT`` or dies; a crash or a hang costs that one
document a typed outcome (``corrupt_document`` or ``timeout``), never the CLI, the
server or MCP, and the parent waits for it without holding the GIL.

Workers are kept and reused: starting one costs an interpreter and PDFium's load (the
bench measures both), while a request to a warm worker costs a pipe round trip. A
killed worker is simply not reused. The protocol is two lengths, a JSON header and the
document's bytes in; a length and a JSON record out.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from sleuth.extract import Extraction

_HEADER = struct.Struct("!II")
_REPLY = struct.Struct("!I")
_PIPE_ROOM = 16_000  # under the smallest common pipe buffer (16 KiB on macOS, 64 KiB on Linux)
_MEMORY_LIMIT = 4 * 1024**3  # address space of one worker: a bomb fails there, not here


class WorkerFailed(Exception):
    """The worker died or broke the protocol while reading this document."""


class WorkerTimeout(Exception):
    """The worker overran the time limit and was killed."""


class _Worker:
    def __init__(self) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sleuth.documents.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            env=env,
        )

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()

    def call(self, request: dict[str, Any], data: bytes, timeout: float) -> dict[str, Any]:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        header = json.dumps(request).encode()
        failure: list[BaseException] = []

        def send() -> None:
            try:
                stdin = self.process.stdin
                assert stdin is not None
                stdin.write(_HEADER.pack(len(header), len(data)) + header)
                stdin.write(data)
                stdin.flush()
            except (OSError, ValueError) as exc:  # the worker died or was killed
                failure.append(exc)

        writer = threading.Thread(target=send, daemon=True)
        if len(data) + len(header) < _PIPE_ROOM:
            send()  # fits the empty pipe: the write cannot block, no thread needed
        else:
            writer.start()  # the worker reads while we write, or the deadline ends it
        deadline = time.monotonic() + timeout
        try:
            size = _REPLY.unpack(self._read(_REPLY.size, deadline))[0]
            reply = json.loads(self._read(size, deadline))
        except WorkerTimeout:
            self.kill()
            raise
        except (WorkerFailed, ValueError, OSError) as exc:
            self.kill()
            raise WorkerFailed(str(exc) or "the worker stopped") from None
        finally:
            if writer.is_alive():
                writer.join(timeout=1.0)
        if failure or not isinstance(reply, dict):
            self.kill()
            raise WorkerFailed("the worker broke the protocol")
        return reply

    def _read(self, size: int, deadline: float) -> bytes:
        stdout = self.process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        chunks: list[bytes] = []
        needed = size
        while needed:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerTimeout
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                raise WorkerTimeout
            chunk = os.read(fd, min(needed, 1 << 20))
            if not chunk:
                raise WorkerFailed("the worker exited (a crash while parsing)")
            chunks.append(chunk)
            needed -= len(chunk)
        return b"".join(chunks)


class _Pool:
    """Warm workers, at most ``size`` documents parsed at once."""

    def __init__(self, size: int) -> None:
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size)

    def run(self, request: dict[str, Any], data: bytes, timeout: float) -> dict[str, Any]:
        with self._slots:
            with self._lock:
                worker = self._idle.pop() if self._idle else None
            if worker is None or not worker.alive():
                try:
                    worker = _Worker()
                except OSError as exc:
                    raise WorkerFailed(f"the PDF reader could not start: {exc}") from None
            reply = worker.call(request, data, timeout)  # a failed worker is killed, not kept
            with self._lock:
                self._idle.append(worker)
            return reply

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()


POOL = _Pool(max(1, min(4, os.cpu_count() or 1)))
atexit.register(POOL.close)


def parse_pdf(data: bytes, *, markdown: bool, max_pages: int, timeout: float) -> dict[str, Any]:
    """The record of :func:`sleuth.documents.pdf.read_pdf`, computed in a worker."""
    request = {"markdown": markdown, "max_pages": max_pages}
    return POOL.run(request, data, timeout)


def checked(
    work: Callable[[], dict[str, Any]], *, what: str, timeout: float, url: str | None
) -> dict[str, Any]:
    """A worker's record, its failures raised as the typed errors of their outcome
    (``timeout`` past the limit, ``corrupt_document`` when the worker died on it)."""
    from sleuth.errors import CorruptDocument, FetchTimeout

    where = f"{url}: " if url else ""
    try:
        return work()
    except WorkerTimeout:
        raise FetchTimeout(
            f"{where}reading the {what} took longer than {timeout:g} s",
            url=url,
            hint="raise SLEUTH_DOCUMENT_TIMEOUT if the document is legitimate",
            retryable=False,
        ) from None
    except WorkerFailed as exc:
        raise CorruptDocument(f"{where}the {what} could not be read: {exc}", url=url) from None


def read_text(
    data: bytes,
    kind: str,
    *,
    output: str = "text",
    content_type: str | None = None,
    timeout: float = 10.0,
    url: str | None = None,
) -> Extraction:
    """A text-family document (:mod:`sleuth.documents.textual`) read in a worker under
    ``timeout``; failures raise their typed error.

    Text is untrusted input too: a parser gone slow on a hostile body (a backtracking
    pattern holds the GIL, and with it every route of ``sleuth serve``) costs that one
    document a ``timeout`` outcome, never the other callers.
    """
    from sleuth.errors import CorruptDocument, TooLarge
    from sleuth.extract import Extraction

    def said(message: str) -> str:
        return f"{url}: {message}" if url else message

    request = {"type": "text", "kind": kind, "output": output, "content_type": content_type}
    record = checked(
        lambda: POOL.run(request, data, timeout), what="document", timeout=timeout, url=url
    )
    outcome = str(record.get("outcome"))
    reason = record.get("reason")
    if outcome == "too_large":
        raise TooLarge(said(str(reason)), url=url)
    if outcome not in ("ok", "empty_extraction"):
        raise CorruptDocument(said(str(reason or "the document could not be read")), url=url)
    title = record.get("title")
    return Extraction(
        title if isinstance(title, str) else None,
        str(record.get("text") or ""),
        dict(record.get("metadata") or {}),
        "ok" if outcome == "ok" else "empty_extraction",
        reason if isinstance(reason, str) else None,
        str(record.get("method") or f"text/{kind}"),
    )


# -- The worker's side --


def _read_exact(stream: BinaryIO, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _limit_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_LIMIT, _MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):  # not on this platform: the timeout still holds
        pass


def _handle(request: dict[str, Any], data: bytes) -> dict[str, Any]:
    """One document's record; each reader is imported when first needed (a worker that
    reads only text never loads PDFium)."""
    if request.get("type") == "text":
        from sleuth.documents.textual import text_record

        return text_record(data, request)
    from sleuth.documents.pdf import read_pdf

    return read_pdf(data, markdown=bool(request["markdown"]), max_pages=int(request["max_pages"]))


def main() -> None:
    """Serve documents until the parent closes the pipe."""
    _limit_memory()
    # Native code may print; only the protocol may use the reply pipe.
    reply = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    while True:
        try:
            header_size, data_size = _HEADER.unpack(_read_exact(requests, _HEADER.size))
            request = json.loads(_read_exact(requests, header_size))
            data = _read_exact(requests, data_size)
        except EOFError:
            return
        text = request.get("type") == "text"
        what = "document" if text else "PDF"
        try:
            record = _handle(request, data)
        except MemoryError:
            reason = f"the {what} needs more memory than allowed"
            record = {"outcome": "too_large", "reason": reason}
        except Exception as exc:  # the parser failed on this file: it is broken
            reason = f"the {what} could not be read: {exc}"
            record = {"outcome": "corrupt_document", "reason": reason}
        payload = json.dumps(record, ensure_ascii=False).encode()
        reply.write(_REPLY.pack(len(payload)) + payload)
        reply.flush()


if __name__ == "__main__":
    main()

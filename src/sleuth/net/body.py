"""Read a response body within limits, decompressing it ourselves in bounded steps.

httpx's own decoders inflate a whole chunk at once, so a 10 KB gzip bomb can
ask for gigabytes. Here every decompressor is asked for at most ``_STEP``
bytes at a time and the totals are checked after every step: memory stays
near the limit whatever the server sends.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Protocol

import brotli
import httpx

from sleuth.errors import NetworkError, TooLarge, UnsupportedType

_STEP = 64 * 1024
_GZIP_OR_ZLIB = zlib.MAX_WBITS | 32  # zlib detects which header it got
_ZLIB = zlib.MAX_WBITS
_RAW_DEFLATE = -zlib.MAX_WBITS


class _Stage(Protocol):
    name: str

    def feed(self, data: bytes) -> None: ...

    def pull(self, limit: int) -> bytes:
        """Up to about ``limit`` bytes of output; empty when more input is needed."""
        ...


class _ZlibStage:
    """gzip, or deflate in either of its wire forms (zlib-wrapped or raw)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._pending = b""
        self._inflater: zlib._Decompress | None = None
        self._done = False

    def feed(self, data: bytes) -> None:
        if not self._done:
            self._pending += data

    def pull(self, limit: int) -> bytes:
        if self._done:
            return b""
        if self._inflater is None:
            if len(self._pending) < 2:
                return b""
            self._inflater = zlib.decompressobj(self._wbits())
        out = self._inflater.decompress(self._pending, limit)
        self._pending = self._inflater.unconsumed_tail
        if self._inflater.eof:  # anything after the end of the stream is ignored
            self._done, self._pending = True, b""
        return out

    def _wbits(self) -> int:
        if self.name != "deflate":
            return _GZIP_OR_ZLIB
        # RFC 1950: a zlib header is a deflate method nibble and a multiple of 31.
        head = self._pending
        is_zlib = head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
        return _ZLIB if is_zlib else _RAW_DEFLATE


class _BrotliStage:
    name = "br"

    def __init__(self) -> None:
        self._pending = b""
        self._decoder = brotli.Decompressor()

    def feed(self, data: bytes) -> None:
        self._pending += data

    def pull(self, limit: int) -> bytes:
        if self._decoder.is_finished():
            self._pending = b""
            return b""
        data = b""
        if self._decoder.can_accept_more_data():  # else it still holds output to give
            if not self._pending:
                return b""
            data, self._pending = self._pending, b""
        out: bytes = self._decoder.process(data, output_buffer_limit=limit)
        return out


def _stages(encodings: list[str], url: str) -> list[_Stage]:
    """Decoders in the order to apply them: the last encoding applied comes off first."""
    stages: list[_Stage] = []
    for token in reversed([e.strip().lower() for e in encodings]):
        if token in ("gzip", "x-gzip", "deflate"):
            stages.append(_ZlibStage("deflate" if token == "deflate" else "gzip"))
        elif token == "br":
            stages.append(_BrotliStage())
        elif token not in ("", "identity"):
            raise UnsupportedType(
                f"{url} uses content-encoding {token!r}",
                hint="sleuth decodes gzip, deflate and br",
                url=url,
            )
    return stages


class _Full(Exception):
    """A truncating read has all the bytes it may keep."""


class _LimitedBody:
    """Counts wire bytes and every decoder's output; past a limit, raises TooLarge
    or, when truncating, stops with what fits."""

    def __init__(
        self, response: httpx.Response, max_bytes: int, max_decoded_bytes: int, truncate: bool
    ) -> None:
        self._url = str(response.request.url)
        self._max_bytes, self._max_decoded = max_bytes, max_decoded_bytes
        self._truncate = truncate
        declared = response.headers.get("Content-Length", "")
        if not truncate and declared.isdigit() and int(declared) > max_bytes:
            raise TooLarge(
                f"{self._url} declares {declared} bytes, more than the limit of {max_bytes}",
                url=self._url,
            )
        encodings = response.headers.get_list("Content-Encoding", split_commas=True)
        self._stages = _stages(encodings, self._url)
        self._produced = [0] * (len(self._stages) + 1)  # per stage, then the final output
        self._wire = 0
        self._parts: list[bytes] = []

    def feed(self, raw: bytes) -> None:
        self._wire += len(raw)
        if self._wire > self._max_bytes:
            if self._truncate:
                raise _Full
            raise TooLarge(f"{self._url} sent more than {self._max_bytes} bytes", url=self._url)
        self._parts.extend(self._decode(0, raw))

    def result(self) -> bytes:
        return b"".join(self._parts)

    def _decode(self, index: int, data: bytes) -> Iterator[bytes]:
        if index == len(self._stages):
            room = self._max_decoded - self._produced[index]
            if self._truncate and len(data) > room:
                self._produced[index] += room
                yield data[:room]
                raise _Full
            self._count(index, len(data))
            yield data
            return
        stage = self._stages[index]
        stage.feed(data)
        while True:
            try:
                chunk = stage.pull(_STEP)
            except (zlib.error, brotli.error) as exc:
                raise NetworkError(
                    f"{self._url} sent a corrupt {stage.name} body: {exc}",
                    url=self._url,
                    retryable=False,
                ) from None
            if not chunk:
                return
            self._count(index, len(chunk))
            yield from self._decode(index + 1, chunk)

    def _count(self, index: int, size: int) -> None:
        self._produced[index] += size
        if self._produced[index] > self._max_decoded:
            if self._truncate:
                raise _Full
            raise TooLarge(
                f"{self._url} decompresses to more than {self._max_decoded} bytes",
                url=self._url,
            )


async def read_body(
    response: httpx.Response, *, max_bytes: int, max_decoded_bytes: int, truncate: bool = False
) -> bytes:
    """The decoded body of a streamed response (``client.stream(...)``), within both limits.

    Raises TooLarge past a limit (before reading anything when Content-Length
    already says so), UnsupportedType for an unknown content-encoding and
    NetworkError for a corrupt compressed body. With ``truncate`` it returns
    the first ``max_decoded_bytes`` instead (robots.txt wants that).
    """
    body = _LimitedBody(response, max_bytes, max_decoded_bytes, truncate)
    try:
        async for chunk in response.aiter_raw():
            body.feed(chunk)
    except _Full:
        pass
    return body.result()


def read_body_sync(
    response: httpx.Response, *, max_bytes: int, max_decoded_bytes: int, truncate: bool = False
) -> bytes:
    """The blocking twin of :func:`read_body`."""
    body = _LimitedBody(response, max_bytes, max_decoded_bytes, truncate)
    try:
        for chunk in response.iter_raw():
            body.feed(chunk)
    except _Full:
        pass
    return body.result()

"""A cache in a directory, shared by every sleuth process that points at it.

Each entry is one file, ``<dir>/<h[:2]>/<h>`` where ``h`` is the sha256 of the
key, holding a fixed header (magic, expiry, length, CRC-32) and the value.
Writes go to a temporary file that is renamed into place, so readers see the
old entry or the new one, never half of either; the CRC turns a torn write
after a power cut into a miss, which is why no fsync is needed.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import struct
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import NamedTuple

from sleuth.cache.base import Cache, CacheStats
from sleuth.cache.counter import decode_counter, encode_counter
from sleuth.errors import CacheError

_MAGIC = b"SLC1"
_HEADER = struct.Struct(">4sdQI")  # magic, expires at (unix time, 0 = never), length, crc32
_SUBDIR = re.compile(r"[0-9a-f]{2}")
_ENTRY = re.compile(r"[0-9a-f]{64}")
_TEMP = re.compile(r"\.sleuth-.*\.tmp")
_TEMP_PREFIX, _TEMP_SUFFIX = ".sleuth-", ".tmp"
# Never deleted: removing it while another process holds the lock would let a
# third process lock a fresh file and run alongside it.
_LOCK_NAME = ".sleuth-lock"


class _Entry(NamedTuple):
    value: bytes
    expires: float | None


class _Header(NamedTuple):
    expires: float | None
    length: int
    crc: int


def _parse_header(blob: bytes) -> _Header | None:
    if len(blob) < _HEADER.size:
        return None
    magic, expires, length, crc = _HEADER.unpack_from(blob)
    if magic != _MAGIC:
        return None
    return _Header(expires or None, length, crc)


def _decode(blob: bytes) -> _Entry | None:
    """The entry in ``blob``, or None when it is not a whole, intact entry."""
    header = _parse_header(blob)
    if header is None or len(blob) != _HEADER.size + header.length:
        return None
    value = blob[_HEADER.size :]
    if zlib.crc32(value) != header.crc:
        return None
    return _Entry(value, header.expires)


class FileCache(Cache):
    """One file per key; counters are locked with ``flock`` across processes."""

    name = "file"

    def __init__(self, directory: Path | str, *, clock: Callable[[], float] = time.time) -> None:
        self.directory = Path(directory).expanduser()
        self._clock = clock
        self._hits = 0
        self._misses = 0

    def _path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        return self.directory / digest[:2] / digest

    def _expiry(self, ttl: float | None) -> float | None:
        return self._clock() + ttl if ttl and ttl > 0 else None

    def _expired(self, expires: float | None) -> bool:
        return expires is not None and expires <= self._clock()

    def _peek(self, path: Path) -> tuple[_Entry | None, bool]:
        """The live entry at ``path``, and whether the file there is stale and should go."""
        try:
            blob = path.read_bytes()
        except FileNotFoundError:
            return None, False
        except OSError:
            return None, True
        entry = _decode(blob)
        if entry is None or self._expired(entry.expires):
            return None, True
        return entry, False

    def _read(self, path: Path) -> _Entry | None:
        entry, stale = self._peek(path)
        if stale:
            # Check again under the lock: an ``incr`` may have just replaced it.
            # Removal is housekeeping; a read-only directory still serves reads.
            with suppress(CacheError), self._locked():
                if self._peek(path)[1]:
                    with suppress(OSError):
                        path.unlink()
        return entry

    @contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            handle = (self.directory / _LOCK_NAME).open("ab")
        except OSError as exc:
            raise self._error("lock", exc) from exc
        with handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            yield

    def _write(self, path: Path, value: bytes, expires: float | None) -> None:
        header = _HEADER.pack(_MAGIC, expires or 0.0, len(value), zlib.crc32(value))
        temp: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, temp = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=_TEMP_SUFFIX, dir=path.parent)
            with os.fdopen(fd, "wb") as handle:
                handle.write(header)
                handle.write(value)
            os.replace(temp, path)
            temp = None
        except OSError as exc:
            raise self._error("write", exc) from exc
        finally:
            if temp is not None:
                with suppress(OSError):
                    os.unlink(temp)

    def _error(self, action: str, exc: OSError) -> CacheError:
        return CacheError(
            f"cannot {action} the file cache in {self.directory}: {exc.strerror or exc}",
            hint="check free space and permissions there, or set SLEUTH_CACHE_DIR",
        )

    def _files(self) -> Iterator[tuple[Path, bool]]:
        """Every file sleuth made here, and whether it is an entry (else a temp file)."""
        try:
            subdirs = [d for d in self.directory.iterdir() if _SUBDIR.fullmatch(d.name)]
        except FileNotFoundError:
            return
        except OSError as exc:
            raise self._error("list", exc) from exc
        for subdir in subdirs:
            with suppress(OSError):  # not a folder, gone, or not ours to read
                for path in subdir.iterdir():
                    if _ENTRY.fullmatch(path.name) and path.name.startswith(subdir.name):
                        yield path, True
                    elif _TEMP.fullmatch(path.name):
                        yield path, False

    async def get(self, key: str) -> bytes | None:
        entry = self._read(self._path(key))
        if entry is None:
            self._misses += 1
            return None
        self._hits += 1
        return entry.value

    async def set(self, key: str, value: bytes, ttl: float | None = None) -> None:
        self._write(self._path(key), bytes(value), self._expiry(ttl))

    async def delete(self, key: str) -> None:
        try:
            self._path(key).unlink(missing_ok=True)
        except OSError as exc:
            raise self._error("delete from", exc) from exc

    async def incr(self, key: str, ttl: float, amount: int = 1) -> int:
        path = self._path(key)
        with self._locked():
            entry = self._peek(path)[0]
            if entry is None:
                count, expires = amount, self._expiry(ttl)
            else:
                count = decode_counter(key, entry.value) + amount
                expires = entry.expires if entry.expires is not None else self._expiry(ttl)
            self._write(path, encode_counter(count), expires)
        return count

    async def clear(self) -> int:
        removed = 0
        for path, is_entry in list(self._files()):
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise self._error("clear", exc) from exc
            removed += is_entry
        for subdir in self.directory.glob("[0-9a-f][0-9a-f]"):
            with suppress(OSError):  # kept when something else lives in it
                subdir.rmdir()
        return removed

    async def stats(self) -> CacheStats:
        entries = size = 0
        for path, is_entry in self._files():
            if not is_entry:
                continue
            try:
                with path.open("rb") as handle:
                    header = _parse_header(handle.read(_HEADER.size))
                    file_size = os.fstat(handle.fileno()).st_size
            except OSError:
                continue
            if header is None or file_size != _HEADER.size + header.length:
                continue
            if not self._expired(header.expires):
                entries += 1
                size += file_size
        return CacheStats(
            backend=self.name,
            entries=entries,
            size_bytes=size,
            hits=self._hits,
            misses=self._misses,
            location=str(self.directory),
        )

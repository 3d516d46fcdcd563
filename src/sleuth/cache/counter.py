"""How counters are stored: decimal ASCII, the format Redis ``INCR`` uses.

Every backend reads and writes the same format, so ``get`` on a counter key
returns the same bytes whichever backend holds it.
"""

from __future__ import annotations

from sleuth.errors import CacheError


def encode_counter(count: int) -> bytes:
    return str(count).encode("ascii")


def decode_counter(key: str, raw: bytes) -> int:
    """The count stored at ``key``; a non-counter value there is the caller's bug."""
    try:
        return int(raw)
    except ValueError:
        raise CacheError(
            f"cache key {key!r} holds a value that is not a counter",
            hint="use separate keys for counters and values",
            retryable=False,
        ) from None

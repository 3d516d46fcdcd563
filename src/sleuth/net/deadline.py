"""One deadline for a whole fetch: lookup, connect, headers and body together.

Per-operation timeouts let a server that trickles one byte every few seconds
hold a fetch forever; a deadline around everything does not.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import httpx

from sleuth.errors import FetchTimeout


@asynccontextmanager
async def deadline(seconds: float, *, url: str | None = None) -> AsyncIterator[None]:
    """Cancel the block after ``seconds`` and raise FetchTimeout; httpx timeouts become one too."""
    what = url or "the fetch"
    try:
        with anyio.fail_after(seconds):
            yield
    except TimeoutError:
        raise FetchTimeout(
            f"{what} did not finish within {seconds:g}s",
            url=url,
            hint="try again, or raise SLEUTH_FETCH_DEADLINE, the time allowed for a whole fetch",
        ) from None
    except httpx.TimeoutException as exc:
        # Name the limit that fired: raising the overall deadline cannot help a read timeout.
        limit, meaning = _LIMITS.get(type(exc), ("SLEUTH_READ_TIMEOUT", "a pause"))
        raise FetchTimeout(
            f"{what} timed out: {meaning} outlasted {limit}",
            url=url,
            hint=f"try again, or raise {limit}",
        ) from None


_LIMITS: dict[type[httpx.TimeoutException], tuple[str, str]] = {
    httpx.ConnectTimeout: ("SLEUTH_CONNECT_TIMEOUT", "opening the connection"),
    httpx.ReadTimeout: ("SLEUTH_READ_TIMEOUT", "waiting for the server's next bytes"),
    httpx.WriteTimeout: ("SLEUTH_READ_TIMEOUT", "sending the request"),
    httpx.PoolTimeout: ("SLEUTH_CONNECT_TIMEOUT", "waiting for a free connection"),
}

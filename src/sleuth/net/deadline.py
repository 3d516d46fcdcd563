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
        raise FetchTimeout(f"{what} did not finish within {seconds:g}s", url=url) from None
    except httpx.TimeoutException as exc:
        raise FetchTimeout(f"{what} timed out: {str(exc) or type(exc).__name__}", url=url) from None

"""The contract every search provider meets, and the plumbing they all share.

A provider turns a :class:`SearchQuery` into :class:`SearchHit` objects over
an ``httpx.AsyncClient`` the chain gives it, and reports failure only as
``sleuth.errors`` classes so the chain can tell a bad key from a busy server.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, ClassVar, Literal

import anyio
import httpx

from sleuth.config import NetSettings, SearchSettings
from sleuth.errors import (
    FetchTimeout,
    HTTPStatusError,
    NetworkError,
    ProviderAuthError,
    RateLimited,
    SearchError,
    TooLarge,
)
from sleuth.net import read_body
from sleuth.websearch.models import SearchHit, SearchQuery

Bucket = Literal["day", "week", "month", "year"]
_BUCKETS: tuple[tuple[int, Bucket], ...] = ((1, "day"), (7, "week"), (31, "month"), (366, "year"))
_EXACT: dict[int, Bucket] = {
    1: "day",
    7: "week",
    30: "month",
    31: "month",
    365: "year",
    366: "year",
}


@dataclass(frozen=True)
class SearchReply:
    """A provider's answer, read in full within the size limits."""

    status: int
    encoding: str
    body: bytes

    @property
    def text(self) -> str:
        try:
            return self.body.decode(self.encoding, errors="replace")
        except LookupError:  # a charset Python does not know
            return self.body.decode("utf-8", errors="replace")


class SearchProvider(ABC):
    """One search backend. Subclasses set ``name`` and implement the three members below.

    Third-party providers register a subclass under the ``sleuth.search_providers``
    entry-point group; the chain builds it with the effective settings' ``search`` section
    (keys, endpoints, timeout: ``self.settings``) and ``net`` section (body caps: ``self.net``).
    """

    name: ClassVar[str]
    # What to tell a person whose key is refused.
    key_hint: ClassVar[str] = ""

    def __init__(self, settings: SearchSettings, net: NetSettings) -> None:
        self.settings = settings
        self.net = net

    @abstractmethod
    def is_configured(self, settings: SearchSettings) -> bool:
        """True when the key or endpoint this provider needs is set."""

    @property
    @abstractmethod
    def trusted_urls(self) -> list[str]:
        """Operator-configured endpoints the network guard should let this provider reach."""

    @abstractmethod
    async def search(self, query: SearchQuery, client: httpx.AsyncClient) -> list[SearchHit]:
        """Hits in the provider's order (ranks from 1); raise sleuth errors on failure."""

    async def send(
        self, client: httpx.AsyncClient, method: str, url: str, **kw: Any
    ) -> SearchReply:
        """One request, size-capped and time-boxed, with failures turned into sleuth errors.

        Messages name the provider, never the URL: some providers carry the key in it.
        """
        seconds = self.settings.search_timeout
        try:
            with anyio.fail_after(seconds):
                async with client.stream(method, url, **kw) as response:
                    body = await read_body(
                        response,
                        max_bytes=self.net.max_bytes,
                        max_decoded_bytes=self.net.max_decoded_bytes,
                    )
        except (TimeoutError, httpx.TimeoutException):
            raise FetchTimeout(
                f"{self.name} did not answer within {seconds:g}s",
                hint="try again, or raise SLEUTH_SEARCH_TIMEOUT",
            ) from None
        except TooLarge:
            raise TooLarge(f"{self.name} sent more than SLEUTH_MAX_BYTES allows") from None
        except httpx.HTTPError as exc:
            raise NetworkError(
                f"{self.name} could not be reached: {exc or type(exc).__name__}",
                hint="check the network or the provider's endpoint setting",
            ) from None
        return SearchReply(response.status_code, response.charset_encoding or "utf-8", body)

    def check_status(self, response: SearchReply) -> None:
        """Map an unhappy status to the error the chain acts on."""
        status = response.status
        if status < 300:
            return
        if status in (401, 403):
            raise ProviderAuthError(
                f"{self.name} refused the credentials (HTTP {status})",
                provider=self.name,
                hint=self.key_hint or None,
            )
        if status == 429:
            raise RateLimited(f"{self.name} is rate limiting sleuth (HTTP 429)")
        raise HTTPStatusError(f"{self.name} answered HTTP {status}", status=status)

    def parse_json(self, response: SearchReply) -> dict[str, Any]:
        try:
            data = json.loads(response.body)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise SearchError(
                f"{self.name} answered with something other than a JSON object",
                provider=self.name,
                hint="check that the endpoint setting points at the provider's API",
            )
        return data


def dict_items(value: object) -> list[dict[str, Any]]:
    """The objects in a JSON list, ignoring anything else a provider put there."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def recency_bucket(days: int) -> Bucket | None:
    """The narrowest coarse range (day/week/month/year) that still covers ``days``."""
    return next((name for limit, name in _BUCKETS if days <= limit), None)


def exact_bucket(days: int) -> Bucket | None:
    """The coarse range that means exactly ``days``, if there is one."""
    return _EXACT.get(days)


def date_range(days: int) -> tuple[date, date]:
    """``(start, end)`` of the last ``days`` days, in UTC, for providers that take dates."""
    end = datetime.now(UTC).date()
    return end - timedelta(days=days), end


def with_site_operators(query: SearchQuery) -> str:
    """The query text with ``site:``/``-site:`` for providers without domain parameters."""
    parts = [query.query]
    if len(query.site_include) == 1:
        parts.append(f"site:{query.site_include[0]}")
    elif query.site_include:
        parts.append("(" + " OR ".join(f"site:{s}" for s in query.site_include) + ")")
    parts.extend(f"-site:{s}" for s in query.site_exclude)
    return " ".join(parts)

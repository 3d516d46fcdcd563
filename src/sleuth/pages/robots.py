"""robots.txt (RFC 9309) for fetches an agent asks for.

An unreachable robots.txt (5xx, timeout, network error) means "disallow
everything"; an unavailable one (4xx) means "allow everything". The file is
fetched through the same guarded client as pages and cached per origin.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import urlsplit

import httpx
from protego import Protego

from sleuth.cache.base import Cache, cache_key, get_json, set_json
from sleuth.errors import NetworkError, RobotsDisallowed
from sleuth.log import event
from sleuth.net import deadline, read_body
from sleuth.net.sites import Sites, used

ROBOTS_MAX_BYTES = 512 * 1024  # RFC 9309 §2.5: parse at least the first 500 KiB
UNREACHABLE_TTL = 300.0  # a 5xx or timeout is asked again after minutes, not a day
PRODUCT_TOKEN = "sleuth"
# The Content Signals Policy's uses; other keys are kept as given, within these bounds.
SIGNAL_KEYS = ("search", "ai-input", "ai-train")
MAX_SIGNALS = 16
MAX_SIGNAL_CHARS = 40


def content_signals(body: str, user_agent: str = PRODUCT_TOKEN) -> dict[str, str]:
    """The ``Content-Signal`` lines of a robots.txt that apply to ``user_agent``.

    A line belongs to the user-agent group it sits in (RFC 9309 groups: consecutive
    ``User-agent`` lines open one). The groups naming ``user_agent`` apply, else the
    ``*`` groups; a line above every group applies to all. When a key is given twice
    the more restrictive value (``no``) stands, so no ordering can loosen a refusal.
    Keys and yes/no are read in any case; a pair that is not ``key=value`` is skipped.
    """
    token = user_agent.lower()
    every: list[str] = []  # lines before the first group
    groups: list[tuple[set[str], list[str]]] = []
    agents: set[str] | None = None
    lines: list[str] = []
    opening = False
    for raw in body.splitlines():
        line = raw.split("#", 1)[0].strip()
        field, colon, value = line.partition(":")
        if not colon:
            continue
        field, value = field.strip().lower(), value.strip()
        if field == "user-agent":
            if not opening:
                agents, lines = set(), []
                groups.append((agents, lines))
                opening = True
            assert agents is not None
            agents.add(value.lower())
            continue
        opening = False
        if field == "content-signal":
            (lines if agents is not None else every).append(value)
    chosen = [ls for names, ls in groups if token in names]
    if not chosen:
        chosen = [ls for names, ls in groups if "*" in names]
    found: dict[str, str] = {}
    for value in [*every, *(v for ls in chosen for v in ls)]:
        for pair in value.split(","):
            key, equals, said = pair.partition("=")
            key, said = key.strip().lower(), said.strip()
            if not equals or not key or not said:
                continue
            key, said = key[:MAX_SIGNAL_CHARS], said[:MAX_SIGNAL_CHARS]
            if said.lower() in ("yes", "no"):
                said = said.lower()
            elif key in SIGNAL_KEYS:
                continue  # a known use is yes or no, nothing else
            if key not in found and len(found) >= MAX_SIGNALS:
                continue
            if found.get(key) != "no":
                found[key] = said
    return found


@dataclass(frozen=True)
class RobotsPolicy:
    verdict: str  # "rules" | "allow_all" | "disallow_all"
    body: str = ""
    unreachable: bool = False

    @cached_property
    def content_signals(self) -> dict[str, str]:
        """What the site says of the uses of its content, for sleuth (see the function)."""
        return content_signals(self.body) if self.verdict == "rules" else {}

    @cached_property
    def _parser(self) -> Protego:
        return Protego.parse(self.body)

    def allows(self, url: str, user_agent: str = PRODUCT_TOKEN) -> bool:
        if self.verdict == "allow_all":
            return True
        if self.verdict == "disallow_all":
            return False
        return bool(self._parser.can_fetch(url, user_agent))


def robots_url(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}/robots.txt"


class RobotsChecker:
    """Answers "may sleuth fetch this URL?" with one robots.txt request per origin."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        cache: Cache,
        *,
        ttl: float,
        deadline_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        sites: Sites | None = None,
    ) -> None:
        self._client = client
        self._sites = sites or Sites()
        self._cache = cache
        self._ttl = ttl
        self._deadline = deadline_seconds
        self._clock = clock
        self._policies: dict[str, tuple[RobotsPolicy, float]] = {}

    async def check(self, url: str, *, refresh: bool = False) -> None:
        """Raise RobotsDisallowed unless robots.txt lets sleuth fetch ``url``.

        When the host cannot be reached at all, the network error itself is
        raised: saying "robots.txt forbids it" would send a person the wrong way.
        """
        policy = await self.policy(url, refresh=refresh)
        if policy.allows(url):
            return
        host = urlsplit(url).netloc
        if policy.unreachable:
            raise RobotsDisallowed(
                f"robots.txt of {host} answered with a server error, which RFC 9309 "
                f"treats as disallowing everything; try again in a few minutes",
                url=url,
            )
        raise RobotsDisallowed(f"robots.txt of {host} disallows {url}", url=url)

    async def policy(self, url: str, *, refresh: bool = False) -> RobotsPolicy:
        location = robots_url(url)
        known = self._policies.get(location)
        if not refresh and known is not None and known[1] > self._clock():
            return known[0]
        # Read with the operator's credentials, robots.txt is kept apart (see net.sites).
        mine = self._sites.fingerprint(location)
        key = cache_key("robots", location, *(mine,) if mine else ())
        stored = None if refresh else await get_json(self._cache, key)
        if isinstance(stored, dict):
            policy = RobotsPolicy(
                stored.get("verdict", "disallow_all"),
                stored.get("body", ""),
                bool(stored.get("unreachable", False)),
            )
            ttl = self._ttl
        else:
            policy, credentials = await self._download(location)
            ttl = min(self._ttl, UNREACHABLE_TTL) if policy.unreachable else self._ttl
            stored = {
                "verdict": policy.verdict,
                "body": policy.body,
                "unreachable": policy.unreachable,
            }
            if credentials <= {mine}:  # not another origin's, through a redirect
                await set_json(self._cache, key, stored, ttl)
        self._policies[location] = (policy, self._clock() + ttl)
        return policy

    async def _download(self, location: str) -> tuple[RobotsPolicy, set[str]]:
        """4xx allows all; 5xx disallows all (RFC 9309 §2.3.1); no answer raises. With
        the policy, the fingerprints of the credentials its requests carried."""
        try:
            async with (
                deadline(self._deadline, url=location),
                self._client.stream("GET", location) as response,
            ):
                credentials = used([response])
                if 400 <= response.status_code < 500:
                    return RobotsPolicy("allow_all"), credentials
                if response.status_code >= 500:
                    return RobotsPolicy("disallow_all", unreachable=True), credentials
                raw = await read_body(
                    response,
                    max_bytes=ROBOTS_MAX_BYTES * 4,
                    max_decoded_bytes=ROBOTS_MAX_BYTES,
                    truncate=True,
                )
                body = raw.decode("utf-8", errors="replace")
                return RobotsPolicy("rules", body), credentials
        except httpx.TooManyRedirects:
            return RobotsPolicy("allow_all"), set()  # RFC 9309 §2.3.1.2: past 5 hops
        except httpx.HTTPError as exc:
            event("robots_unreachable", url=location, error=type(exc).__name__)
            raise NetworkError(f"{location} could not be fetched: {exc}", url=location) from None

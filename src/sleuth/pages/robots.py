"""robots.txt (RFC 9309) for fetches an agent asks for.

An unreachable robots.txt (5xx, timeout, network error) means "disallow
everything"; an unavailable one (4xx) means "allow everything". The file is
fetched through the same guarded client as pages and cached per origin.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
from protego import Protego

from sleuth.cache.base import Cache, cache_key, get_json, set_json
from sleuth.errors import BlockedError, SleuthError
from sleuth.log import event
from sleuth.net.body import read_body

ROBOTS_MAX_BYTES = 512 * 1024  # RFC 9309 asks parsers to read at least 500 KiB
PRODUCT_TOKEN = "sleuth"


@dataclass(frozen=True)
class RobotsPolicy:
    verdict: str  # "rules" | "allow_all" | "disallow_all"
    body: str = ""

    def allows(self, url: str, user_agent: str = PRODUCT_TOKEN) -> bool:
        if self.verdict == "allow_all":
            return True
        if self.verdict == "disallow_all":
            return False
        return bool(Protego.parse(self.body).can_fetch(url, user_agent))


def robots_url(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}/robots.txt"


class RobotsChecker:
    """Answers "may sleuth fetch this URL?" with one robots.txt request per origin."""

    def __init__(self, client: httpx.AsyncClient, cache: Cache, *, ttl: float) -> None:
        self._client = client
        self._cache = cache
        self._ttl = ttl
        self._policies: dict[str, RobotsPolicy] = {}

    async def allowed(self, url: str) -> bool:
        return (await self.policy(url)).allows(url)

    async def policy(self, url: str) -> RobotsPolicy:
        location = robots_url(url)
        if location in self._policies:
            return self._policies[location]
        key = cache_key("robots", location)
        stored = await get_json(self._cache, key)
        if isinstance(stored, dict):
            policy = RobotsPolicy(stored.get("verdict", "disallow_all"), stored.get("body", ""))
        else:
            policy = await self._download(location)
            await set_json(
                self._cache, key, {"verdict": policy.verdict, "body": policy.body}, self._ttl
            )
        self._policies[location] = policy
        return policy

    async def _download(self, location: str) -> RobotsPolicy:
        try:
            async with self._client.stream("GET", location) as response:
                if 400 <= response.status_code < 500:
                    policy = RobotsPolicy("allow_all")
                elif response.status_code >= 500:
                    policy = RobotsPolicy("disallow_all")
                else:
                    raw = await read_body(
                        response, max_bytes=ROBOTS_MAX_BYTES, max_decoded_bytes=ROBOTS_MAX_BYTES
                    )
                    policy = RobotsPolicy("rules", raw.decode("utf-8", errors="replace"))
        except BlockedError:
            raise
        except (httpx.HTTPError, SleuthError) as exc:
            # Unreachable: RFC 9309 §2.3.1.4 says assume complete disallow.
            event("robots_unreachable", url=location, error=type(exc).__name__)
            policy = RobotsPolicy("disallow_all")
        return policy

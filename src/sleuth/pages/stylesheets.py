"""A page's linked style sheets, read as a browser reads them before it paints.

What a page hides is often written in a sheet it links (``<link rel="stylesheet">``,
``@import``), from its own host or another. Each sheet is read through the same path as
a page, for the same caller: the guard (lookup included) and robots.txt at every hop,
the cache (a site's pages share their sheets, so a crawl reads each once), and byte
limits of its own. The page's deadline bounds the whole read, and a browser waits for
a slow sheet before it paints, so sleuth does too, up to ``SLEUTH_STYLESHEET_TIMEOUT``.

A sheet that could not be read is listed with the outcome why. One that answered an
HTTP error or the wrong content type hides nothing in a browser either (``INERT``); for
any other, what it hides is unknown, and the fetcher lets the browser judge the page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urljoin

import httpx

from sleuth.cache.base import Cache, cache_key, get_json, set_json
from sleuth.config import FetchSettings, NetSettings, StyleSettings
from sleuth.documents import media_type
from sleuth.errors import FetchTimeout, HTTPStatusError, NetworkError, SleuthError, UnsupportedType
from sleuth.extract.styles import (
    MAX_IMPORT_DEPTH,
    Styles,
    base_url,
    decode_sheet,
    linked_sheets,
    parse_imports,
)
from sleuth.log import event
from sleuth.net.body import read_body
from sleuth.net.sites import Sites, used

# Outcomes after which a browser applies nothing from the sheet either.
INERT = frozenset(("http_error", "unsupported_type"))
_CSS_TYPES = frozenset(("text/css", "", "application/octet-stream", "text/plain"))
ACCEPT_CSS = "text/css,*/*;q=0.1"

Admit = Callable[[str], Awaitable[None]]


class SheetReader:
    """Reads the sheets of one page for one caller (``admit``: the guard and robots.txt
    as they apply to that caller, raising a SleuthError when the URL is refused)."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        cache: Cache,
        admit: Admit,
        *,
        styles: StyleSettings,
        fetching: FetchSettings,
        net: NetSettings,
        sites: Sites | None = None,
    ) -> None:
        self._styles = styles
        self._sites = sites or Sites()
        # The fingerprints of the operator's credentials the sheets were read with.
        self.credentials: set[str] = set()
        self._ttl = fetching.cache_ttl
        self._redirects = net.max_redirects
        self._client = client
        self._cache = cache
        self._admit = admit
        self._texts: dict[str, str] = {}
        self._unread: list[dict[str, Any]] = []
        self._seen: set[str] = set()

    async def read(self, html: str, page_url: str, seconds: float) -> Styles:
        """Every sheet the page links or imports (four levels deep), within ``seconds``."""
        limits = self._styles
        wave = linked_sheets(html, page_url)
        base = base_url(html, page_url)
        pending: dict[asyncio.Task[None], str] = {}
        try:
            async with asyncio.timeout(max(seconds, 0.0)):
                for depth in range(MAX_IMPORT_DEPTH + 1):
                    todo = [url for url in dict.fromkeys(wave) if url not in self._seen]
                    room = limits.max_stylesheets - len(self._seen)
                    for url in todo[max(room, 0) :]:
                        self._seen.add(url)
                        self._unread.append({"url": url, "reason": "too_large"})
                    todo = todo[: max(room, 0)]
                    if not todo:
                        break
                    self._seen.update(todo)
                    pending = {asyncio.ensure_future(self._one(url)): url for url in todo}
                    await asyncio.gather(*pending)
                    pending = {}
                    if depth == MAX_IMPORT_DEPTH:
                        break
                    wave = [
                        urljoin(url, item.url)
                        for url in todo
                        if url in self._texts
                        for item in parse_imports(self._texts[url])
                    ]
        except TimeoutError:
            for task, url in pending.items():
                task.cancel()
                if not task.done() or url not in self._texts:
                    self._unread.append({"url": url, "reason": "timeout"})
            await asyncio.gather(*pending, return_exceptions=True)
        return Styles(base, self._texts.get, self._unread)

    async def _one(self, url: str) -> None:
        try:
            self._texts[url] = await self._sheet(url)
        except SleuthError as error:
            self._unread.append({"url": url, "reason": error.code})
            event("stylesheet_unread", url=url, outcome=error.code)
        except (httpx.InvalidURL, ValueError):
            self._unread.append({"url": url, "reason": "usage_error"})

    async def _sheet(self, url: str) -> str:
        if httpx.URL(url).scheme not in ("http", "https"):
            raise UnsupportedType(f"{url} is not an http or https style sheet", url=url)
        await self._admit(url)
        mine = self._sites.fingerprint(url)  # read with credentials: kept apart
        key = cache_key("sheet", url, *(mine,) if mine else ())
        stored = await get_json(self._cache, key)
        if isinstance(stored, dict) and isinstance(stored.get("text"), str):
            hops = [hop for hop in stored.get("via") or [] if isinstance(hop, str) and hop != url]
            for hop in hops:
                await self._admit(hop)
            if stored.get("credentials"):
                self.credentials.add(str(mine))
            return str(stored["text"])
        credentials: set[str] = set()
        text, via = await self._download(url, credentials)
        self.credentials |= credentials
        if credentials <= {mine}:  # not another origin's, through a redirect
            value = {"text": text, "via": via, "credentials": bool(credentials)}
            await set_json(self._cache, key, value, self._ttl)
        return text

    async def _download(self, url: str, credentials: set[str]) -> tuple[str, list[str]]:
        request = self._client.build_request("GET", url, headers={"Accept": ACCEPT_CSS})
        via: list[str] = []
        try:
            for hop in range(self._redirects + 1):
                via.append(str(request.url))
                if hop:
                    await self._admit(str(request.url))
                response = await self._client.send(request, stream=True, follow_redirects=False)
                credentials |= used([response])
                try:
                    if response.next_request is not None:
                        request = response.next_request
                        continue
                    if response.status_code >= 400:
                        raise HTTPStatusError(
                            f"{url} answered HTTP {response.status_code}",
                            status=response.status_code,
                            url=url,
                        )
                    declared = response.headers.get("content-type")
                    if media_type(declared) not in _CSS_TYPES:
                        raise UnsupportedType(f"{url} is {media_type(declared)}, not CSS", url=url)
                    limit = self._styles.max_stylesheet_bytes
                    body = await read_body(response, max_bytes=limit, max_decoded_bytes=limit)
                    return decode_sheet(body, declared), via
                finally:
                    await response.aclose()
        except httpx.TimeoutException:
            raise FetchTimeout(f"reading {url} timed out", url=url) from None
        except httpx.HTTPError as exc:
            raise NetworkError(f"{url} could not be fetched: {exc}", url=url) from None
        raise NetworkError(f"{url} redirected more than {self._redirects} times", url=url)

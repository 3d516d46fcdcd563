"""The operator's site credentials (``[[sites]]``), sent to exactly their origin.

They are attached in one place, :class:`CredentialTransport`, which wraps the transport of
the session's page client only, so every request that client sends (each redirect hop,
robots.txt, a style sheet, a sitemap, each request of the browser) is decided afresh by
its own URL: scheme, host and port equal to the entry's, or nothing. The request the
caller built is never changed, so nothing added here follows a redirect. Search
providers and models get their clients elsewhere, without this transport.

What a read used is told by the responses (:func:`used`): a fingerprint of the entry (a
hash, never the secret), which the caches put in their keys so a page read with
credentials is never served to a caller without them.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Sequence
from http.cookiejar import Cookie

import httpx

from sleuth.config import SiteEntry
from sleuth.net.guard import Origin
from sleuth.net.hosts import parse_host

# The extension a response carries when credentials went with its request.
MARK = "sleuth.credentials"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: httpx.URL) -> Origin | None:
    if url.scheme not in _DEFAULT_PORTS:
        return None
    try:
        host = parse_host(url.raw_host.decode("latin-1"))
    except ValueError:
        return None
    return url.scheme, host, _DEFAULT_PORTS[url.scheme] if url.port is None else url.port


class Site:
    """One entry, resolved: its origin, headers, cookies and fingerprint."""

    def __init__(self, entry: SiteEntry) -> None:
        origin = _origin(httpx.URL(entry.origin))
        assert origin is not None  # the config checked the scheme
        self.origin = origin
        self.headers = entry.header_values
        self.cookies = entry.cookies
        whole = {
            "origin": entry.origin,
            "headers": sorted(self.headers.items()),
            "cookies": sorted(
                (c.domain, c.path, c.name, c.value or "", c.secure, c.expires or 0)
                for c in self.cookies
            ),
        }
        digest = hashlib.sha256(json.dumps(whole, sort_keys=True).encode("utf-8"))
        self.fingerprint = digest.hexdigest()[:32]

    def cookie_header(self, url: httpx.URL, now: float) -> str | None:
        """The cookies whose domain, path, secure flag and expiry match ``url`` (which is
        this entry's origin), longest path first, as RFC 6265 orders them."""
        host = url.host.lower()
        path = url.path or "/"
        chosen = [
            cookie
            for cookie in self.cookies
            if _domain_matches(cookie, host)
            and _path_matches(cookie.path or "/", path)
            and (not cookie.secure or url.scheme == "https")
            and not (cookie.expires and cookie.expires <= now)  # 0 or none: a session cookie
        ]
        chosen.sort(key=lambda cookie: len(cookie.path or "/"), reverse=True)
        pairs = [c.name if c.value is None else f"{c.name}={c.value}" for c in chosen]
        return "; ".join(pairs) or None


def _domain_matches(cookie: Cookie, host: str) -> bool:
    """A host-only cookie goes to its host; a ``.domain`` one to it and its subdomains."""
    domain = cookie.domain.lower()
    if domain.startswith("."):
        bare = domain[1:]
        return host == bare or host.endswith(domain)
    return host == domain


def _path_matches(cookie_path: str, path: str) -> bool:
    if path == cookie_path:
        return True
    return path.startswith(cookie_path) and (
        cookie_path.endswith("/") or path[len(cookie_path)] == "/"
    )


class Sites:
    """The session's entries by exact origin; empty when the operator set none."""

    def __init__(self, entries: Iterable[SiteEntry] = ()) -> None:
        self._by_origin = {site.origin: site for site in map(Site, entries)}

    def __bool__(self) -> bool:
        return bool(self._by_origin)

    def site(self, url: httpx.URL | str) -> Site | None:
        if not self._by_origin:
            return None
        try:
            origin = _origin(httpx.URL(url))
        except httpx.InvalidURL:
            return None
        return None if origin is None else self._by_origin.get(origin)

    def fingerprint(self, url: httpx.URL | str) -> str | None:
        """What a cache key holds for ``url``: the hash of the entry for its origin."""
        site = self.site(url)
        return site.fingerprint if site is not None else None


def used(responses: Sequence[httpx.Response]) -> set[str]:
    """The fingerprints of the credentials sent for these responses (and their own
    followed redirects)."""
    found: set[str] = set()
    for response in responses:
        for one in (*response.history, response):
            mark = one.extensions.get(MARK)
            if isinstance(mark, str):
                found.add(mark)
    return found


class CredentialTransport(httpx.AsyncBaseTransport):
    """``inner`` with each request to an entry's origin sent with that entry's headers
    and matching cookies; every other request goes as it was built."""

    def __init__(self, inner: httpx.AsyncBaseTransport, sites: Sites) -> None:
        self.inner = inner
        self._sites = sites

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        site = self._sites.site(request.url)
        if site is None:
            return await self.inner.handle_async_request(request)
        headers = request.headers.copy()
        for name, value in site.headers.items():
            headers[name] = value  # the operator's value, whatever the page asked for
        cookies = site.cookie_header(request.url, time.time())
        if cookies:
            given = headers.get("cookie")
            headers["Cookie"] = f"{given}; {cookies}" if given else cookies
        sent = httpx.Request(
            request.method,
            request.url,
            headers=headers,
            stream=request.stream,
            extensions=request.extensions,
        )
        response = await self.inner.handle_async_request(sent)
        response.extensions = {**response.extensions, MARK: site.fingerprint}
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

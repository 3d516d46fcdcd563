"""Which URLs belong to a crawl: the start's host, its registrable domain, or a path prefix.

``domain`` uses the public suffix list the ``tld`` package ships (read offline, never
downloaded), so ``docs.example.co.uk`` and ``www.example.co.uk`` share a crawl while
``other.co.uk`` does not. ``--include``/``--exclude`` are shell globs on the path
(with the query, when the pattern has a ``?``).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from sleuth.crawl.urls import canonical
from sleuth.errors import Ref, UsageError

ScopeKind = Literal["host", "domain", "prefix"]
SCOPES: tuple[ScopeKind, ...] = ("host", "domain", "prefix")
_IP = re.compile(r"^[\d.]+$|^\[.*\]$")


def registrable_domain(host: str) -> str:
    """``example.co.uk`` for ``a.b.example.co.uk``; an address or a bare name stays itself."""
    if _IP.match(host) or "." not in host:
        return host
    from tld import get_fld  # the bundled suffix list loads on first use only

    found = get_fld(host, fix_protocol=True, fail_silently=True)
    return str(found) if found else host


@dataclass(frozen=True)
class Scope:
    """The crawl's boundary, fixed by its start URL and options."""

    start: str
    kind: ScopeKind = "host"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    _domain: str = field(init=False, default="")
    _prefix: str = field(init=False, default="")

    def __post_init__(self) -> None:
        if self.kind not in SCOPES:
            raise UsageError(
                f"unknown scope {self.kind!r}",
                hint="use {scope}",
                refs={"scope": Ref("scope_kinds", words='scope: "host", "domain" or "prefix"')},
            )
        start = canonical(self.start)
        if start is None:
            raise UsageError(f"{self.start!r} is not an http(s) URL", hint="pass an absolute URL")
        object.__setattr__(self, "start", start)
        parts = urlsplit(start)
        object.__setattr__(self, "_domain", registrable_domain(parts.hostname or ""))
        object.__setattr__(self, "_prefix", parts.path[: parts.path.rfind("/") + 1] or "/")

    @property
    def prefix(self) -> str:
        return self._prefix

    def describe(self) -> dict[str, object]:
        """What identifies the crawl besides its start URL."""
        return {
            "scope": self.kind,
            "include": sorted(self.include),
            "exclude": sorted(self.exclude),
        }

    def contains(self, url: str) -> bool:
        """True for a canonical URL inside the boundary, before include/exclude."""
        parts = urlsplit(url)
        start = urlsplit(self.start)
        if self.kind == "domain":
            host = parts.hostname or ""
            return host == self._domain or host.endswith("." + self._domain)
        if parts.netloc.lower() != start.netloc.lower():  # http and https of a host: one site
            return False
        if self.kind == "prefix":
            return parts.path.startswith(self._prefix)
        return True

    def allows(self, url: str) -> bool:
        """In the boundary and through the path filters."""
        if not self.contains(url):
            return False
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        if self.include and not any(_matches(target, pattern) for pattern in self.include):
            return False
        return not any(_matches(target, pattern) for pattern in self.exclude)


def _matches(target: str, pattern: str) -> bool:
    path = target if "?" in pattern else target.split("?", 1)[0]
    return fnmatch.fnmatchcase(path, pattern)

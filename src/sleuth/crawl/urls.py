"""Canonical URLs: one spelling per page, so a crawl reads it once and a map lists it once.

Lower-case scheme and host, no default port, no fragment, dot segments resolved, known
tracking parameters and session identifiers dropped and the rest sorted. The code lives
with link extraction (:mod:`sleuth.extract.links`), beneath the crawler, which reads it
from here.

A canonical URL may still be one the HTTP client refuses to parse (``1.2.3.256``, the
octal ``0177.0.0.1``): :func:`unusable` says why, so a site's bad URL is a note, never
a crash.
"""

from __future__ import annotations

import httpx

from sleuth.extract.links import canonical


def unusable(url: str) -> str | None:
    """Why the HTTP client cannot request ``url``, or None when it can."""
    try:
        httpx.URL(url).host  # noqa: B018  # parsing is the check
    except (httpx.InvalidURL, ValueError) as exc:
        return str(exc) or type(exc).__name__
    return None


__all__ = ["canonical", "unusable"]

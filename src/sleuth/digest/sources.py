"""Which sources to trust first: official and primary publishers, then recent ones.

A source's *prior* is a multiplier around 1.0 that ranking applies to its
passages; page selection adds the search engine's own order and a bonus for
pages already in the cache (they cost nothing to read).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

from sleuth.digest.tokenize import STOP_WORDS, words
from sleuth.websearch.urls import domain_of, on_site

_RECENT = re.compile(
    r"\b(latest|newest|recent(ly)?|current(ly)?|today|now|upcoming|this (week|month|year)|"
    r"new (version|release)|just released|changelog|release notes)\b",
    re.IGNORECASE,
)
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_OFFICIAL_SUFFIXES = (".gov", ".edu", ".mil", ".int")
_OFFICIAL_SECOND_LEVEL = frozenset({"gov", "edu", "ac", "go", "gouv", "gob", "govt", "mil"})
_DOC_LABELS = frozenset(
    {"docs", "doc", "developer", "developers", "dev", "learn", "api", "reference", "help", "spec"}
)
_REFERENCE_HOSTS = frozenset(
    [
        "readthedocs.io",
        "readthedocs.org",
        "pypi.org",
        "npmjs.com",
        "crates.io",
        "docs.rs",
        "pkg.go.dev",
        "developer.mozilla.org",
        "rfc-editor.org",
        "datatracker.ietf.org",
        "ietf.org",
        "w3.org",
        "whatwg.org",
        "python.org",
        "wikipedia.org",
        "iso.org",
    ]
)
_CODE_HOSTS = frozenset({"github.com", "gitlab.com", "codeberg.org", "bitbucket.org", "sr.ht"})
_LOW_VALUE_HOSTS = frozenset(
    [
        "pinterest.com",
        "quora.com",
        "facebook.com",
        "instagram.com",
        "tiktok.com",
        "x.com",
        "twitter.com",
        "linkedin.com",
        "w3schools.com",
        "geeksforgeeks.org",
        "tutorialspoint.com",
        "javatpoint.com",
        "medium.com",
        "slideshare.net",
        "scribd.com",
    ]
)
_DOC_PATH = re.compile(r"/(docs?|documentation|reference|manual|api|spec|guide)(/|$)", re.I)
_GENERIC_LABELS = frozenset({"www", "com", "org", "net", "io", "dev", "co", "uk", "de", "app"})


def parse_date(value: str | None) -> datetime | None:
    """A timezone-aware date from ISO 8601 or anything starting with ``YYYY-MM-DD``."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        match = _DATE.search(value)
        if not match:
            return None
        try:
            parsed = datetime(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def wants_recent(question: str) -> bool:
    """Whether the question asks for the newest state of things."""
    return bool(_RECENT.search(question))


def _matches_host(domain: str, hosts: frozenset[str]) -> bool:
    return any(on_site(domain, host) for host in hosts)


def _names(question: str) -> set[str]:
    return {w for w in words(question) if len(w) >= 3 and w not in STOP_WORDS and not w.isdigit()}


def _names_match(names: set[str], parts: Sequence[str]) -> bool:
    for part in parts:
        pieces = set(re.split(r"[-_.]", part)) | {part}
        if names & pieces or any(len(n) >= 4 and n in part for n in names):
            return True
    return False


def authority(url: str, question: str) -> float:
    """How primary a source looks, about -0.4 (social, content farm) to +0.9."""
    domain = domain_of(url)
    labels = domain.split(".")
    path = urlsplit(url).path
    score = 0.0
    if domain.endswith(_OFFICIAL_SUFFIXES) or (
        len(labels) >= 2 and labels[-2] in _OFFICIAL_SECOND_LEVEL
    ):
        score += 0.35
    if labels[0] in _DOC_LABELS and len(labels) > 2:
        score += 0.25
    elif _DOC_PATH.search(path):
        score += 0.1
    if _matches_host(domain, _REFERENCE_HOSTS):
        score += 0.15
    if _matches_host(domain, _LOW_VALUE_HOSTS):
        score -= 0.4
    names = _names(question)
    own = [label for label in labels[:-1] if label not in _GENERIC_LABELS | _DOC_LABELS]
    if _matches_host(domain, _CODE_HOSTS):
        own = [segment.lower() for segment in path.split("/")[1:3] if segment]
    if names and _names_match(names, own):
        score += 0.4
    return score


def recency(published: str | None, *, now: datetime | None = None) -> float:
    """A bonus for fresh pages, a small malus for pages older than two years."""
    date = parse_date(published)
    if date is None:
        return 0.0
    age_days = max(0.0, ((now or datetime.now(UTC)) - date).total_seconds() / 86400)
    return 0.4 * math.exp(-age_days / 180) - (0.15 if age_days > 730 else 0.0)


def source_prior(
    url: str, question: str, published: str | None = None, *, now: datetime | None = None
) -> float:
    """The multiplier ranking applies to every passage of this source."""
    bonus = authority(url, question)
    if wants_recent(question):
        bonus += recency(published, now=now)
    return min(1.8, max(0.6, 1.0 + bonus))


@dataclass(frozen=True, slots=True)
class PageCandidate:
    """A search result that may be read."""

    url: str
    title: str = ""
    published: str | None = None
    rank: int = 0
    cached: bool = False


def choose_pages(
    candidates: Sequence[PageCandidate], question: str, *, max_pages: int, spares: int
) -> list[PageCandidate]:
    """The pages to read, best first: ``max_pages`` to start with, then spares.

    The engine's order counts most; authority, freshness and a cached copy
    move a page up. Distinct sites are preferred so one site cannot fill the
    digest, but a site may repeat when nothing else is left.
    """

    def value(candidate: PageCandidate) -> float:
        rank_score = 1.0 / (1.0 + 0.25 * candidate.rank)
        cached_bonus = 0.15 if candidate.cached else 0.0
        prior = source_prior(candidate.url, question, candidate.published)
        return rank_score + prior - 1.0 + cached_bonus

    ordered = sorted(candidates, key=value, reverse=True)
    seen: set[str] = set()
    first: list[PageCandidate] = []
    rest: list[PageCandidate] = []
    for candidate in ordered:
        domain = domain_of(candidate.url)
        (rest if domain in seen else first).append(candidate)
        seen.add(domain)
    return (first + rest)[: max_pages + spares]

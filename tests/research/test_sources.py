"""Source preference: official and primary first, fresh when asked, cached is cheap."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sleuth.digest.sources import (
    PageCandidate,
    authority,
    choose_pages,
    parse_date,
    recency,
    source_prior,
    wants_recent,
)

NOW = datetime(2025, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("official", "other", "question"),
    [
        (
            "https://www.python-httpx.org/advanced/timeouts/",
            "https://blog.example.com/httpx",
            "httpx timeout",
        ),
        (
            "https://docs.python.org/3/library/asyncio.html",
            "https://example.com/asyncio",
            "asyncio tasks",
        ),
        (
            "https://github.com/encode/httpx/issues/1",
            "https://github.com/someone/notes",
            "httpx bug",
        ),
        ("https://www.nasa.gov/missions/artemis", "https://example.com/artemis", "artemis mission"),
        ("https://cs.stanford.edu/course", "https://example.com/course", "compiler course"),
        ("https://www.gov.uk/vat-rates", "https://example.co.uk/vat", "uk vat rates"),
        ("https://example.com/article", "https://www.pinterest.com/pin/1", "anything"),
        ("https://example.com/docs/config", "https://example.com/blog/config", "config"),
    ],
)
def test_primary_sources_rank_above_others(official: str, other: str, question: str) -> None:
    assert authority(official, question) > authority(other, question)


def test_name_in_domain_needs_the_name_in_the_question() -> None:
    url = "https://www.djangoproject.com/start/"
    assert authority(url, "django forms") > authority(url, "flask forms")


def test_latest_questions_are_detected() -> None:
    assert wants_recent("What is the latest Python release?")
    assert wants_recent("current LTS of Node")
    assert not wants_recent("how does BM25 work")


def test_fresh_pages_win_only_when_recency_is_asked_for() -> None:
    new = "2025-05-20"
    old = "2019-01-01T00:00:00Z"
    url = "https://example.com/a"
    assert source_prior(url, "latest release", new, now=NOW) > source_prior(
        url, "latest release", old, now=NOW
    )
    assert source_prior(url, "how it works", new, now=NOW) == source_prior(
        url, "how it works", old, now=NOW
    )


def test_recency_bonus_decays_and_old_pages_get_a_malus() -> None:
    assert recency("2025-05-31", now=NOW) > recency("2025-01-01", now=NOW) > 0
    assert recency("2020-01-01", now=NOW) < 0
    assert recency(None, now=NOW) == 0.0
    assert recency("not a date", now=NOW) == 0.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-03-05", datetime(2024, 3, 5, tzinfo=UTC)),
        ("2024-03-05T10:00:00Z", datetime(2024, 3, 5, 10, tzinfo=UTC)),
        ("2024-03-05T10:00:00+02:00", datetime(2024, 3, 5, 8, tzinfo=UTC)),
        ("published 2024-03-05 by staff", datetime(2024, 3, 5, tzinfo=UTC)),
        ("2024-13-45", None),
        ("yesterday", None),
        (None, None),
    ],
)
def test_parse_date(value: str | None, expected: datetime | None) -> None:
    assert parse_date(value) == expected


def test_prior_is_bounded() -> None:
    for url in ("https://docs.python.org/x", "https://www.pinterest.com/x"):
        assert 0.6 <= source_prior(url, "python docs latest", "2025-05-31", now=NOW) <= 1.8


def test_choose_pages_keeps_engine_order_for_equal_sources() -> None:
    found = [PageCandidate(f"https://site{i}.example/page", rank=i) for i in range(6)]
    chosen = choose_pages(found, "question", max_pages=3, spares=2)
    assert [c.url for c in chosen] == [c.url for c in found[:5]]


def test_choose_pages_promotes_official_pages() -> None:
    found = [
        PageCandidate("https://farm.example/httpx-tips", rank=0),
        PageCandidate("https://other.example/httpx", rank=1),
        PageCandidate("https://www.python-httpx.org/", rank=2),
    ]
    chosen = choose_pages(found, "httpx timeouts", max_pages=1, spares=0)
    assert [c.url for c in chosen] == ["https://www.python-httpx.org/"]


def test_a_cached_page_beats_its_uncached_neighbour() -> None:
    found = [
        PageCandidate("https://a.example/x", rank=1),
        PageCandidate("https://b.example/x", rank=2, cached=True),
    ]
    chosen = choose_pages(found, "question", max_pages=1, spares=0)
    assert [c.url for c in chosen] == ["https://b.example/x"]
    uncached = [PageCandidate(c.url, rank=c.rank) for c in found]
    assert choose_pages(uncached, "question", max_pages=1, spares=0)[0].url == found[0].url


def test_choose_pages_prefers_distinct_sites_but_fills_with_repeats() -> None:
    found = [
        PageCandidate("https://a.example/1", rank=0),
        PageCandidate("https://a.example/2", rank=1),
        PageCandidate("https://b.example/1", rank=2),
    ]
    chosen = choose_pages(found, "q", max_pages=2, spares=1)
    assert [c.url for c in chosen] == [
        "https://a.example/1",
        "https://b.example/1",
        "https://a.example/2",
    ]

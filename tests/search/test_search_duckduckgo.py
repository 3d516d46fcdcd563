"""DuckDuckGo over its real wire format: HTML and lite pages, ads, redirects, rate limits."""

from __future__ import annotations

import pytest

from search.payloads import (
    DDG_ANOMALY,
    DDG_CHANGED_LAYOUT,
    DDG_HTML,
    DDG_LITE,
    DDG_NO_RESULTS,
    PYTHON_DOCS,
    REALPYTHON,
)
from search.wire import Reply, sections
from sleuth.errors import HTTPStatusError, RateLimited, SearchError
from sleuth.net import make_client
from sleuth.websearch import SearchQuery
from sleuth.websearch.providers.duckduckgo import DuckDuckGoProvider, target_of


async def run(provider: DuckDuckGoProvider, query: SearchQuery):  # type: ignore[no-untyped-def]
    async with make_client(provider.net, trusted_urls=provider.trusted_urls) as client:
        return await provider.search(query, client)


async def test_html_page_parses_titles_snippets_and_decodes_redirects(wire, make_settings, sleep):
    wire.on("/html/", Reply(body=DDG_HTML))
    provider = DuckDuckGoProvider(*sections(make_settings()), sleep=sleep)
    hits = await run(provider, SearchQuery(query="python 3.13"))

    assert [h.url for h in hits[:2]] == [PYTHON_DOCS, REALPYTHON]
    first = hits[0]
    assert first.title == "What's New In Python 3.13 — Python 3.13.1 documentation"
    assert first.snippet == (
        "This article explains the new features in Python 3.13, compared to 3.12. "
        "& more: the new interactive interpreter."
    )
    assert (first.rank, first.domain, first.provider) == (1, "docs.python.org", "duckduckgo")
    assert (
        hits[1].snippet == "In this tutorial, you'll learn about the new features in Python 3.13."
    )
    # The ad is gone; no result points back at DuckDuckGo.
    assert all("duckduckgo.com" not in h.url for h in hits)
    assert all("Enroll" not in h.title for h in hits)
    assert wire.to("/lite/") == []


async def test_request_carries_query_region_recency_and_safe_search(wire, make_settings, sleep):
    wire.on("/html/", Reply(body=DDG_HTML))
    provider = DuckDuckGoProvider(*sections(make_settings()), sleep=sleep)
    await run(
        provider,
        SearchQuery(
            query="asyncio timeout",
            region="de",
            recency_days=5,
            safe_search="strict",
            site_include=["docs.python.org"],
            site_exclude=["w3schools.com", "geeksforgeeks.org"],
        ),
    )
    await run(provider, SearchQuery(query="x", region="us", recency_days=400, safe_search="off"))
    first, second = (r.form for r in wire.to("/html/"))
    assert wire.to("/html/")[0].method == "POST"
    assert first == {
        "q": "asyncio timeout site:docs.python.org -site:w3schools.com -site:geeksforgeeks.org",
        "kl": "de-de",
        "kp": "1",
        "df": "w",  # 5 days: the narrowest range that still covers them
    }
    assert second == {"q": "x", "kl": "us-en", "kp": "-2"}  # over a year: no date filter


@pytest.mark.parametrize(
    ("days", "df"), [(1, "d"), (2, "w"), (7, "w"), (8, "m"), (31, "m"), (90, "y"), (366, "y")]
)
async def test_recency_maps_to_the_covering_range(wire, make_settings, sleep, days, df):
    wire.on("/html/", Reply(body=DDG_HTML))
    await run(
        DuckDuckGoProvider(*sections(make_settings()), sleep=sleep),
        SearchQuery(query="q", recency_days=days),
    )
    assert wire.to("/html/")[0].form["df"] == df


async def test_lite_page_is_the_second_path_when_html_fails(wire, make_settings, sleep):
    wire.on("/html/", Reply(500, "upstream error"))
    wire.on("/lite/", Reply(body=DDG_LITE))
    hits = await run(
        DuckDuckGoProvider(*sections(make_settings()), sleep=sleep),
        SearchQuery(query="python 3.13"),
    )

    assert [(h.rank, h.title, h.url) for h in hits] == [
        (1, "What's New In Python 3.13", PYTHON_DOCS),
        (2, "PEP 719 – Python 3.13 Release Schedule", "https://peps.python.org/pep-0719/"),
    ]
    assert hits[0].snippet == "The new features in Python 3.13, compared to 3.12."
    assert wire.to("/lite/")[0].form["q"] == "python 3.13"
    assert sleep.delays == []  # a 500 is not a rate limit: no backoff


async def test_lite_page_is_used_when_the_html_layout_no_longer_parses(wire, make_settings, sleep):
    wire.on("/html/", Reply(body=DDG_CHANGED_LAYOUT))
    wire.on("/lite/", Reply(body=DDG_LITE))
    hits = await run(
        DuckDuckGoProvider(*sections(make_settings()), sleep=sleep), SearchQuery(query="q")
    )
    assert [h.url for h in hits] == [PYTHON_DOCS, "https://peps.python.org/pep-0719/"]


async def test_an_honest_no_results_page_is_empty_without_asking_lite(wire, make_settings, sleep):
    wire.on("/html/", Reply(body=DDG_NO_RESULTS))
    hits = await run(
        DuckDuckGoProvider(*sections(make_settings()), sleep=sleep), SearchQuery(query="zzqx")
    )
    assert hits == []
    assert wire.to("/lite/") == []


async def test_unreadable_pages_on_both_paths_are_a_search_error(wire, make_settings, sleep):
    wire.on("/html/", Reply(body=DDG_CHANGED_LAYOUT))
    wire.on("/lite/", Reply(body=DDG_CHANGED_LAYOUT))
    with pytest.raises(SearchError, match="layout may have changed") as caught:
        await run(
            DuckDuckGoProvider(*sections(make_settings()), sleep=sleep), SearchQuery(query="q")
        )
    assert caught.value.retryable is False


async def test_202_is_retried_with_exponential_backoff_then_succeeds(wire, make_settings, sleep):
    wire.on("/html/", Reply(202, ""), Reply(202, ""), Reply(body=DDG_HTML))
    provider = DuckDuckGoProvider(*sections(make_settings()), retries=2, backoff=0.25, sleep=sleep)
    hits = await run(provider, SearchQuery(query="q"))

    assert hits[0].url == PYTHON_DOCS
    assert len(wire.to("/html/")) == 3
    assert len(sleep.delays) == 2
    first, second = sleep.delays
    assert 0.25 <= first <= 0.25 * 1.5  # base, plus up to 50 % jitter
    assert 0.5 <= second <= 0.5 * 1.5  # doubled


async def test_persistent_rate_limit_is_reported_after_bounded_retries(wire, make_settings, sleep):
    wire.on("/html/", Reply(202, ""))
    wire.on("/lite/", Reply(202, ""))
    provider = DuckDuckGoProvider(*sections(make_settings()), retries=2, backoff=0.01, sleep=sleep)
    with pytest.raises(RateLimited, match="HTTP 202 after 3 tries") as caught:
        await run(provider, SearchQuery(query="q"))
    assert caught.value.retryable is True
    assert len(wire.to("/html/")) == 3
    assert len(wire.to("/lite/")) == 1
    assert len(sleep.delays) == 2


async def test_bot_check_page_counts_as_a_rate_limit(wire, make_settings, sleep):
    wire.on("/html/", Reply(body=DDG_ANOMALY))
    wire.on("/lite/", Reply(body=DDG_ANOMALY))
    provider = DuckDuckGoProvider(*sections(make_settings()), retries=1, backoff=0.01, sleep=sleep)
    with pytest.raises(RateLimited, match="bot-check page"):
        await run(provider, SearchQuery(query="q"))
    assert len(sleep.delays) == 1


async def test_html_error_is_reported_when_lite_fails_too(wire, make_settings, sleep):
    wire.on("/html/", Reply(503, "maintenance"))
    wire.on("/lite/", Reply(502, "bad gateway"))
    with pytest.raises(HTTPStatusError, match="HTTP 503") as caught:
        await run(
            DuckDuckGoProvider(*sections(make_settings()), sleep=sleep), SearchQuery(query="q")
        )
    assert caught.value.status == 503
    assert caught.value.retryable is True


@pytest.mark.parametrize(
    ("href", "target"),
    [
        (
            "//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fp%3Fx%3D1%26y%3D2&rut=abc",
            "https://a.example/p?x=1&y=2",
        ),
        (
            "https://duckduckgo.com/l/?rut=abc&uddg=https%3A%2F%2Fb.example%2F%25E2%2598%2583",
            "https://b.example/%E2%98%83",
        ),
        ("https://duckduckgo.com/y.js?ad_domain=x.example&u3=https%3A%2F%2Fx.example", None),
        ("https://duckduckgo.com/?q=more", None),
        ("https://plain.example/page", "https://plain.example/page"),
        ("", None),
    ],
)
def test_target_of(href: str, target: str | None) -> None:
    assert target_of(href) == target

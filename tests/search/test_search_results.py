"""URL normalisation, text cleaning and deduplication: the parts every provider shares."""

from __future__ import annotations

import pytest

from sleuth.websearch import SearchHit, SearchQuery, normalize_url
from sleuth.websearch.results import RawHit, finalize, make_hits, plain_text
from sleuth.websearch.urls import domain_of, is_web_url


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTPS://Docs.Python.ORG/3/", "https://docs.python.org/3"),
        ("https://example.com", "https://example.com/"),
        ("https://example.com/", "https://example.com/"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),
        ("https://example.com/a#section-2", "https://example.com/a"),
        ("https://example.com/a?utm_source=x&utm_medium=y&id=7", "https://example.com/a?id=7"),
        ("https://example.com/a?UTM_Campaign=x&id=7", "https://example.com/a?id=7"),
        ("https://example.com/a?fbclid=1&gclid=2&dclid=3&msclkid=4", "https://example.com/a"),
        ("https://example.com/a?mc_cid=1&mc_eid=2&_ga=3&yclid=4&igshid=5", "https://example.com/a"),
        ("https://example.com/a?ref_src=twsrc&q=python", "https://example.com/a?q=python"),
        # Kept parameters keep their order and their exact spelling.
        ("https://example.com/s?q=a+b&page=2&utm_term=x", "https://example.com/s?q=a+b&page=2"),
        ("https://example.com/s?q=a%20b&x=%2F", "https://example.com/s?q=a%20b&x=%2F"),
        ("https://example.com/docs/?utm_source=x#top", "https://example.com/docs"),
        ("https://EXAMPLE.com./path", "https://example.com/path"),
        ("https://[2001:DB8::1]:443/x", "https://[2001:db8::1]/x"),
    ],
)
def test_normalize_url(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


def test_normalize_url_is_idempotent() -> None:
    once = normalize_url("HTTPS://WWW.Example.com:443/a/b/?utm_source=x&b=2&a=1#frag")
    assert normalize_url(once) == once
    assert once == "https://www.example.com/a/b?b=2&a=1"


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("https://www.python.org/downloads/", "python.org"),
        ("https://Docs.Python.org/3/", "docs.python.org"),
        ("http://wwwhat.example/", "wwwhat.example"),
    ],
)
def test_domain_of(url: str, domain: str) -> None:
    assert domain_of(url) == domain


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("What&#x27;s New In <b>Python</b> <b>3.13</b>", "What's New In Python 3.13"),
        ("Welcome to <b>Python</b>.org", "Welcome to Python.org"),
        ("a &amp;lt;b&amp;gt; tag", "a &lt;b&gt; tag"),
        ("line one<br>line two<p>para</p>", "line one line two para"),
        ("  spaced \n\t out  ", "spaced out"),
        (None, ""),
    ],
)
def test_plain_text(raw: object, expected: str) -> None:
    assert plain_text(raw) == expected


def test_make_hits_drops_rows_without_a_web_link_and_ranks_densely() -> None:
    hits = make_hits(
        "test",
        [
            RawHit("Mail", "mailto:someone@example.com"),
            RawHit("<b>A</b>", "https://a.example/x", "snip &amp; more", "2024-01-01"),
            RawHit("No URL", None),
            RawHit("", "https://www.b.example/"),
            RawHit("Script", "javascript:alert(1)"),
        ],
    )
    assert [(h.rank, h.title, h.domain) for h in hits] == [
        (1, "A", "a.example"),
        (2, "b.example", "b.example"),  # an empty title falls back to the domain
    ]
    assert hits[0].snippet == "snip & more"
    assert hits[0].published == "2024-01-01"
    assert hits[1].published is None


@pytest.mark.parametrize(
    ("url", "valid"),
    [
        ("https://example.com/a?b=c", True),
        ("HTTP://Example.com", True),
        ("http://127.0.0.1:8080/x", True),
        ("http://[2001:db8::1]/x", True),
        ("https://bücher.example/", True),
        ("http://999.1.1.1/x", False),  # an IPv4 part out of range
        ("http://exa mple.com/x", False),
        ("https://example.com/a b", False),
        ("http://[bad/x", False),  # urlsplit itself refuses this
        ("http://[::zz]/x", False),
        ("http://example.com:99999/", False),
        ("http://example.com:port/", False),
        ("http://bad_host!.example/", False),
        ("http:///path-only", False),
        ("//example.com/x", False),
        ("ftp://example.com/x", False),
        ("example.com/x", False),
        ("", False),
    ],
)
def test_is_web_url(url: str, valid: bool) -> None:
    assert is_web_url(url) is valid


def test_make_hits_drops_rows_whose_url_no_fetch_would_take() -> None:
    hits = make_hits(
        "test",
        [
            RawHit("Out of range", "http://999.1.1.1/x"),
            RawHit("Spaced host", "http://exa mple.com/x"),
            RawHit("Broken literal", "http://[bad/x"),
            RawHit("Good", " https://good.example/page "),
        ],
    )
    assert [(h.rank, h.url, h.domain) for h in hits] == [
        (1, "https://good.example/page", "good.example")
    ]


def _hit(rank: int, url: str, title: str) -> SearchHit:
    return SearchHit(
        rank=rank, title=title, url=url, domain=domain_of(url), snippet="", provider="test"
    )


def test_finalize_dedupes_on_the_normalised_url_keeping_the_best_rank() -> None:
    hits = [
        _hit(2, "https://example.com/a?utm_source=feed", "Second copy"),
        _hit(1, "https://Example.com/a/", "First copy"),
        _hit(3, "https://example.com/a#part", "Third copy"),
        _hit(4, "https://example.com/b", "Other page"),
    ]
    result = finalize(hits, SearchQuery(query="q"))
    assert [(h.rank, h.title) for h in result] == [(1, "First copy"), (2, "Other page")]


def test_finalize_collapses_near_duplicate_titles_on_one_domain() -> None:
    hits = [
        _hit(1, "https://news.example/story?id=1", "Rust 1.80 released with LazyCell and more"),
        _hit(2, "https://news.example/amp/story-1", "Rust 1.80 released with LazyCell and more!"),
        _hit(3, "https://news.example/story?id=2", "Rust 1.80 released with LazyCell"),
        _hit(4, "https://news.example/other", "Go 1.23 released"),
    ]
    result = finalize(hits, SearchQuery(query="q"))
    # id=2 shares 6 of 8 distinct words (0.75): similar, but not a near-duplicate.
    assert [h.url for h in result] == [
        "https://news.example/story?id=1",
        "https://news.example/story?id=2",
        "https://news.example/other",
    ]


def test_finalize_collapses_syndicated_copies_but_not_generic_titles_across_sites() -> None:
    hits = [
        _hit(1, "https://a.example/post", "How the new interpreter works in detail"),
        _hit(2, "https://mirror.example/copy", "How the New Interpreter Works in Detail"),
        _hit(3, "https://a.example/", "Home"),
        _hit(4, "https://b.example/", "Home"),
    ]
    result = finalize(hits, SearchQuery(query="q"))
    assert [h.url for h in result] == [
        "https://a.example/post",
        "https://a.example/",
        "https://b.example/",
    ]


def test_finalize_applies_site_filters_and_the_result_cap() -> None:
    hits = [
        _hit(i, f"https://{host}/{i}", f"page {i} about {host}")
        for i, host in enumerate(
            [
                "docs.python.org",
                "python.org",
                "evil.python.org.example",
                "peps.python.org",
                "spam.python.org",
                "www.python.org",
                "notpython.org",
            ],
            start=1,
        )
    ]
    query = SearchQuery(
        query="q", site_include=["python.org"], site_exclude=["spam.python.org"], max_results=3
    )
    result = finalize(hits, query)
    assert [(h.rank, h.domain) for h in result] == [
        (1, "docs.python.org"),
        (2, "python.org"),
        (3, "peps.python.org"),
    ]


def test_query_caps_results_and_normalises_sites_and_region() -> None:
    query = SearchQuery(
        query="  python \n 3.13 ",
        max_results=50,
        site_include=["https://www.Python.org/about", "python.org", "docs.python.org"],
        region="US-EN",
    )
    assert query.query == "python 3.13"
    assert query.max_results == 10
    assert query.site_include == ["python.org", "docs.python.org"]
    assert (query.region, query.country, query.language) == ("us-en", "us", "en")
    assert SearchQuery(query="q", region="wt-wt").region is None
    assert SearchQuery(query="q", region="de").language is None


@pytest.mark.parametrize(
    "bad",
    [
        {"query": "   "},
        {"query": "q", "max_results": 0},
        {"query": "q", "recency_days": 0},
        {"query": "q", "region": "united states"},
        {"query": "q", "safe_search": "on"},
    ],
)
def test_query_rejects_bad_input(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):  # pydantic's ValidationError is a ValueError
        SearchQuery.model_validate(bad)

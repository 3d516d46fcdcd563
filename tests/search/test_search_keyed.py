"""Brave, Tavily, SerpApi and SearXNG against loopback servers speaking their JSON APIs."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from search.payloads import (
    BRAVE_RESULTS,
    PYTHON_DOCS,
    SEARXNG_PAYLOAD,
    SERPAPI_PAYLOAD,
    TAVILY_PAYLOAD,
    brave_payload,
)
from search.wire import Reply, json_reply, sections
from sleuth.errors import (
    HTTPStatusError,
    ProviderAuthError,
    RateLimited,
    SearchError,
    TooLarge,
)
from sleuth.net import make_client
from sleuth.websearch import SearchProvider, SearchQuery
from sleuth.websearch.providers.brave import BraveProvider
from sleuth.websearch.providers.searxng import SearxngProvider
from sleuth.websearch.providers.serpapi import SerpApiProvider
from sleuth.websearch.providers.tavily import TavilyProvider


async def run(provider: SearchProvider, query: SearchQuery):  # type: ignore[no-untyped-def]
    async with make_client(provider.net, trusted_urls=provider.trusted_urls) as client:
        return await provider.search(query, client)


def utc_today() -> date:
    return datetime.now(UTC).date()


def assert_range(value: str, days: int, around: set[date]) -> None:
    start, end = (date.fromisoformat(part) for part in value.split("to"))
    assert end in around
    assert end - start == timedelta(days=days)


# --- Brave -----------------------------------------------------------------------------------


async def test_brave_sends_key_header_and_parses_web_results(wire, make_settings):
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    provider = BraveProvider(*sections(make_settings(brave_api_key="BSA-test-key")))
    hits = await run(
        provider,
        SearchQuery(query="python 3.13", max_results=25, region="de-de", safe_search="strict"),
    )

    (request,) = wire.to("/brave")
    assert request.method == "GET"
    assert request.header("X-Subscription-Token") == "BSA-test-key"
    assert request.header("Accept") == "application/json"
    assert request.query == {
        "q": "python 3.13",
        "count": "10",  # capped
        "safesearch": "strict",
        "country": "DE",
        "search_lang": "de",
    }
    assert [(h.rank, h.title, h.url) for h in hits] == [
        (1, "What’s New In Python 3.13", PYTHON_DOCS),
        (2, "Python 3.13 release", "https://www.python.org/downloads/release/python-3130/"),
    ]
    assert hits[0].snippet == "This article explains the new features in Python 3.13 & more."
    assert hits[0].published == "2024-10-07T00:00:00"  # page_age wins over the human "age"
    assert hits[1].published == "2 weeks ago"
    assert {h.provider for h in hits} == {"brave"}


@pytest.mark.parametrize(("days", "freshness"), [(1, "pd"), (7, "pw"), (30, "pm"), (365, "py")])
async def test_brave_named_freshness(wire, make_settings, days, freshness):
    wire.on("/brave", json_reply(brave_payload([])))
    await run(
        BraveProvider(*sections(make_settings(brave_api_key="k"))),
        SearchQuery(query="q", recency_days=days),
    )
    assert wire.to("/brave")[0].query["freshness"] == freshness


@pytest.mark.parametrize("days", [3, 14, 90])
async def test_brave_other_day_counts_become_a_date_range(wire, make_settings, days):
    wire.on("/brave", json_reply(brave_payload([])))
    before = utc_today()
    await run(
        BraveProvider(*sections(make_settings(brave_api_key="k"))),
        SearchQuery(query="q", recency_days=days),
    )
    assert_range(wire.to("/brave")[0].query["freshness"], days, {before, utc_today()})


async def test_brave_site_filters_become_query_operators(wire, make_settings):
    wire.on("/brave", json_reply(brave_payload([])))
    await run(
        BraveProvider(*sections(make_settings(brave_api_key="k"))),
        SearchQuery(
            query="httpx timeout",
            site_include=["python-httpx.org", "github.com"],
            site_exclude=["stackoverflow.com"],
        ),
    )
    assert wire.to("/brave")[0].query["q"] == (
        "httpx timeout (site:python-httpx.org OR site:github.com) -site:stackoverflow.com"
    )


@pytest.mark.parametrize("status", [401, 403])
async def test_brave_refused_key_is_provider_auth(wire, make_settings, status):
    wire.on(
        "/brave",
        json_reply(
            {
                "type": "ErrorResponse",
                "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "status": status},
            },
            status,
        ),
    )
    with pytest.raises(ProviderAuthError, match=f"HTTP {status}") as caught:
        await run(
            BraveProvider(*sections(make_settings(brave_api_key="wrong"))), SearchQuery(query="q")
        )
    assert caught.value.code == "provider_auth"
    assert caught.value.retryable is False
    assert "BRAVE_API_KEY" in caught.value.hint


async def test_brave_429_and_5xx_are_retryable(wire, make_settings):
    provider = BraveProvider(*sections(make_settings(brave_api_key="k")))
    wire.on("/brave", json_reply({"error": {"code": "RATE_LIMITED"}}, 429))
    with pytest.raises(RateLimited):
        await run(provider, SearchQuery(query="q"))
    wire.on("/brave", Reply(502, "<html>bad gateway</html>"))
    with pytest.raises(HTTPStatusError) as caught:
        await run(provider, SearchQuery(query="q"))
    assert caught.value.retryable is True


async def test_brave_non_json_answer_is_a_search_error(wire, make_settings):
    wire.on("/brave", Reply(200, "<html>captive portal</html>"))
    with pytest.raises(SearchError, match="other than a JSON object"):
        await run(
            BraveProvider(*sections(make_settings(brave_api_key="k"))), SearchQuery(query="q")
        )


# --- Tavily ----------------------------------------------------------------------------------


async def test_tavily_posts_json_with_bearer_key_and_domain_lists(wire, make_settings):
    wire.on("/tavily", json_reply(TAVILY_PAYLOAD))
    provider = TavilyProvider(*sections(make_settings(tavily_api_key="tvly-dev-abc123")))
    hits = await run(
        provider,
        SearchQuery(
            query="python jit",
            max_results=12,
            site_include=["python.org"],
            site_exclude=["pinterest.com"],
            recency_days=7,
        ),
    )

    (request,) = wire.to("/tavily")
    assert request.method == "POST"
    assert request.header("Authorization") == "Bearer tvly-dev-abc123"
    assert request.header("Content-Type") == "application/json"
    body = request.json
    assert body["query"] == "python jit"  # domains travel as parameters, not operators
    assert body["max_results"] == 10
    assert body["include_domains"] == ["python.org"]
    assert body["exclude_domains"] == ["pinterest.com"]
    assert body["time_range"] == "week"
    assert "api_key" not in body
    assert [(h.rank, h.url, h.provider) for h in hits] == [
        (1, PYTHON_DOCS, "tavily"),
        (2, "https://tonybaloney.github.io/posts/python-gets-a-jit.html", "tavily"),
    ]
    assert hits[1].published == "Mon, 08 Jan 2024 00:00:00 GMT"


@pytest.mark.parametrize(
    ("days", "field", "value"),
    [
        (1, "time_range", "day"),
        (31, "time_range", "month"),
        (366, "time_range", "year"),
        (3, "start_date", 3),
        (45, "start_date", 45),
    ],
)
async def test_tavily_recency(wire, make_settings, days, field, value):
    wire.on("/tavily", json_reply(TAVILY_PAYLOAD))
    before = utc_today()
    await run(
        TavilyProvider(*sections(make_settings(tavily_api_key="k"))),
        SearchQuery(query="q", recency_days=days),
    )
    body = wire.to("/tavily")[0].json
    if field == "start_date":
        assert "time_range" not in body
        start = date.fromisoformat(body["start_date"])
        assert start + timedelta(days=value) in {before, utc_today()}
    else:
        assert body[field] == value


@pytest.mark.parametrize(
    ("status", "error"), [(401, ProviderAuthError), (432, RateLimited), (433, RateLimited)]
)
async def test_tavily_errors(wire, make_settings, status, error):
    wire.on("/tavily", json_reply({"detail": {"error": "nope"}}, status))
    with pytest.raises(error):
        await run(
            TavilyProvider(*sections(make_settings(tavily_api_key="k"))), SearchQuery(query="q")
        )


# --- SerpApi ---------------------------------------------------------------------------------


async def test_serpapi_query_parameters_and_organic_results(wire, make_settings):
    wire.on("/serpapi", json_reply(SERPAPI_PAYLOAD))
    provider = SerpApiProvider(*sections(make_settings(serpapi_api_key="serp-secret")))
    hits = await run(
        provider,
        SearchQuery(
            query="python 3.13",
            max_results=20,
            region="us-en",
            safe_search="strict",
            recency_days=30,
            site_exclude=["w3schools.com"],
        ),
    )
    (request,) = wire.to("/serpapi")
    assert request.query == {
        "engine": "google",
        "q": "python 3.13 -site:w3schools.com",
        "api_key": "serp-secret",
        "num": "10",
        "tbs": "qdr:m",
        "gl": "us",
        "hl": "en",
        "safe": "active",
    }
    assert [(h.rank, h.title, h.published) for h in hits] == [
        (1, "What's New In Python 3.13", "Oct 7, 2024"),
        (2, "Python Release Python 3.13.0", None),
    ]


@pytest.mark.parametrize(
    ("days", "tbs"),
    [(1, "qdr:d"), (7, "qdr:w"), (30, "qdr:m"), (365, "qdr:y"), (3, "qdr:d3"), (90, "qdr:d90")],
)
async def test_serpapi_tbs(wire, make_settings, days, tbs):
    wire.on("/serpapi", json_reply(SERPAPI_PAYLOAD))
    await run(
        SerpApiProvider(*sections(make_settings(serpapi_api_key="k"))),
        SearchQuery(query="q", recency_days=days),
    )
    assert wire.to("/serpapi")[0].query["tbs"] == tbs


async def test_serpapi_moderate_safe_search_sends_nothing_and_off_sends_off(wire, make_settings):
    wire.on("/serpapi", json_reply(SERPAPI_PAYLOAD))
    provider = SerpApiProvider(*sections(make_settings(serpapi_api_key="k")))
    await run(provider, SearchQuery(query="q"))
    await run(provider, SearchQuery(query="q", safe_search="off"))
    first, second = wire.to("/serpapi")
    assert "safe" not in first.query
    assert second.query["safe"] == "off"


async def test_serpapi_no_results_is_empty_but_other_errors_raise(wire, make_settings):
    provider = SerpApiProvider(*sections(make_settings(serpapi_api_key="k")))
    wire.on(
        "/serpapi",
        json_reply(
            {
                "search_metadata": {"status": "Success"},
                "error": "Google hasn't returned any results for this query.",
            }
        ),
    )
    assert await run(provider, SearchQuery(query="zzqx")) == []
    wire.on("/serpapi", json_reply({"error": "Your searches for the month are exhausted."}))
    with pytest.raises(SearchError, match="exhausted"):
        await run(provider, SearchQuery(query="q"))
    wire.on(
        "/serpapi",
        json_reply(
            {
                "error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"
            },
            401,
        ),
    )
    with pytest.raises(ProviderAuthError):
        await run(provider, SearchQuery(query="q"))


async def test_oversized_answer_is_too_large_and_the_message_keeps_the_key_out(wire, make_settings):
    padding = [{"title": "x" * 200, "link": f"https://e.example/{i}"} for i in range(50)]
    wire.on("/serpapi", json_reply({**SERPAPI_PAYLOAD, "organic_results": padding}))
    provider = SerpApiProvider(
        *sections(make_settings(serpapi_api_key="serp-secret", max_bytes=4096))
    )
    with pytest.raises(TooLarge) as caught:
        await run(provider, SearchQuery(query="q"))
    assert "serpapi sent more than" in str(caught.value)
    assert "serp-secret" not in str(caught.value)
    assert caught.value.url is None


# --- SearXNG ---------------------------------------------------------------------------------


async def test_searxng_json_format_and_parameters(wire, make_settings):
    wire.on("/search", json_reply(SEARXNG_PAYLOAD))
    provider = SearxngProvider(*sections(make_settings(searxng_url=wire.url("/"))))
    assert provider.trusted_urls == [wire.url("/search")]
    hits = await run(
        provider,
        SearchQuery(
            query="python 3.13",
            region="us-en",
            recency_days=10,
            safe_search="off",
            site_include=["python.org"],
        ),
    )
    (request,) = wire.to("/search")
    assert request.query == {
        "q": "python 3.13 site:python.org",
        "format": "json",
        "safesearch": "0",
        "pageno": "1",
        "time_range": "month",
        "language": "en-US",
    }
    assert [h.url for h in hits] == [
        PYTHON_DOCS,
        "https://www.python.org/downloads/release/python-3130/?utm_campaign=x",
        "https://www.python.org/downloads/release/python-3130",
    ]  # the provider reports all; the chain dedupes
    assert hits[1].published == "2024-10-07T00:00:00"


@pytest.mark.parametrize(("safe", "level"), [("off", "0"), ("moderate", "1"), ("strict", "2")])
async def test_searxng_safe_search_levels(wire, make_settings, safe, level):
    wire.on("/search", json_reply(SEARXNG_PAYLOAD))
    await run(
        SearxngProvider(*sections(make_settings(searxng_url=wire.url("/search")))),
        SearchQuery(query="q", safe_search=safe),
    )
    assert wire.to("/search")[0].query["safesearch"] == level


async def test_searxng_403_explains_how_to_enable_json(wire, make_settings):
    wire.on("/search", Reply(403, "<html><body><h1>Forbidden</h1></body></html>"))
    with pytest.raises(SearchError) as caught:
        await run(
            SearxngProvider(*sections(make_settings(searxng_url=wire.url("")))),
            SearchQuery(query="q"),
        )
    assert type(caught.value) is SearchError  # not an auth problem: there is no key
    assert "search.formats" in caught.value.hint
    assert "settings.yml" in caught.value.hint
    assert caught.value.retryable is False

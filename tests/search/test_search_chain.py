"""The chain: order, fallback, cooldown, auth failures, cache, budget and logging."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest

from search.payloads import BRAVE_RESULTS, DDG_HTML, PYTHON_DOCS, TAVILY_PAYLOAD, brave_payload
from search.wire import Reply, json_reply, refusing_port
from sleuth.cache import FileCache, RedisCache
from sleuth.errors import (
    ConfigError,
    ProviderAuthError,
    RateLimited,
    SearchBudgetExhausted,
    SearchError,
    SearchUnavailable,
)
from sleuth.websearch import ProviderHealth, SearchQuery, attempts_of
from sleuth.websearch.providers.duckduckgo import DuckDuckGoProvider
from webs import chain_of


def outcomes(response_or_attempts) -> list[tuple[str, str, str | None]]:  # type: ignore[no-untyped-def]
    attempts = getattr(response_or_attempts, "providers_tried", response_or_attempts)
    return [(a.name, a.outcome, a.error_code) for a in attempts]


@pytest.fixture
def closed_port() -> Iterator[int]:
    sock = refusing_port()
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


# --- order and configuration -------------------------------------------------------------------


def test_default_order_is_configured_keyed_providers_then_duckduckgo(make_settings, cache):
    assert chain_of(make_settings(), cache).names == ["duckduckgo"]
    settings = make_settings(
        searxng_url="http://127.0.0.1:1/", brave_api_key="b", serpapi_api_key="s"
    )
    assert chain_of(settings, cache).names == ["brave", "serpapi", "searxng", "duckduckgo"]
    # An empty key is no key.
    assert chain_of(make_settings(tavily_api_key=""), cache).names == ["duckduckgo"]


def test_explicit_list_wins_and_may_leave_out_duckduckgo(make_settings, cache):
    settings = make_settings(search_providers="serpapi, Brave", brave_api_key="b")
    assert chain_of(settings, cache).names == ["serpapi", "brave"]
    assert chain_of(settings, cache, providers=["duckduckgo"]).names == ["duckduckgo"]


def test_unknown_provider_is_a_config_error_listing_known_names(make_settings, cache):
    with pytest.raises(ConfigError, match="unknown search provider 'bing'") as caught:
        chain_of(make_settings(search_providers=["bing"]), cache)
    for name in ("brave", "tavily", "serpapi", "searxng", "duckduckgo"):
        assert name in caught.value.hint


async def test_unavailable_only_when_no_listed_provider_is_configured(make_settings, cache, wire):
    chain = chain_of(make_settings(search_providers=["brave", "tavily"]), cache)
    with pytest.raises(SearchUnavailable, match="web search unavailable") as caught:
        await chain.search(SearchQuery(query="q"))
    assert caught.value.code == "search_unavailable"
    assert wire.requests == []


async def test_unconfigured_listed_provider_is_skipped(make_settings, cache, wire, health):
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(search_providers=["tavily", "brave"], brave_api_key="k")
    async with chain_of(settings, cache, health=health) as chain:
        response = await chain.search(SearchQuery(query="q"))
    assert outcomes(response) == [("tavily", "skipped", "config_error"), ("brave", "ok", None)]


# --- fallback ------------------------------------------------------------------------------------


async def test_fallback_past_refused_connection_and_500(
    make_settings, cache, wire, health, closed_port, caplog
):
    caplog.set_level(logging.INFO, logger="sleuth")
    wire.on("/tavily", Reply(500, "internal error"))
    wire.on("/html/", Reply(body=DDG_HTML))
    settings = make_settings(
        brave_api_key="k",
        brave_url=f"http://127.0.0.1:{closed_port}/res/v1/web/search",
        tavily_api_key="k",
    )
    async with chain_of(settings, cache, health=health) as chain:
        assert chain.names == ["brave", "tavily", "duckduckgo"]
        response = await chain.search(SearchQuery(query="python 3.13"))

    assert outcomes(response) == [
        ("brave", "error", "network_error"),
        ("tavily", "error", "http_error"),
        ("duckduckgo", "ok", None),
    ]
    assert response.results[0].url == PYTHON_DOCS
    assert {h.provider for h in response.results} == {"duckduckgo"}
    assert all(a.latency_ms >= 0 and not a.cached for a in response.providers_tried)
    # The duplicate '#summary' row of the page is gone and ranks are dense.
    assert [h.rank for h in response.results] == [1, 2]

    calls = [r for r in caplog.records if r.getMessage() == "search_call"]
    errors = [r for r in caplog.records if r.getMessage() == "search_error"]
    assert len(calls) == 1
    assert calls[0].fields["provider"] == "duckduckgo"
    assert calls[0].fields["fallback_used"] is True
    assert calls[0].fields["result_count"] == 2
    assert [e.fields["provider"] for e in errors] == ["brave", "tavily"]
    assert errors[1].fields["error_code"] == "http_error"


async def test_slow_provider_times_out_and_the_next_answers(make_settings, cache, wire, health):
    release = threading.Event()
    wire.on("/brave", Reply(stall=release, body="{}", content_type="application/json"))
    wire.on("/html/", Reply(body=DDG_HTML))
    settings = make_settings(brave_api_key="k", search_timeout=0.2)
    try:
        async with chain_of(settings, cache, health=health) as chain:
            response = await chain.search(SearchQuery(query="q"))
    finally:
        release.set()
    assert outcomes(response) == [("brave", "error", "timeout"), ("duckduckgo", "ok", None)]
    assert "brave did not answer within 0.2s" in (response.providers_tried[0].message or "")


async def test_empty_answer_falls_through_and_all_empty_is_an_empty_response(
    make_settings, cache, wire, health
):
    wire.on("/brave", json_reply(brave_payload([])))
    wire.on("/tavily", json_reply(TAVILY_PAYLOAD))
    settings = make_settings(brave_api_key="k", tavily_api_key="k", search_providers="brave,tavily")
    async with chain_of(settings, cache, health=health) as chain:
        response = await chain.search(SearchQuery(query="q"))
        assert outcomes(response) == [("brave", "empty", None), ("tavily", "ok", None)]

        wire.on("/tavily", json_reply({**TAVILY_PAYLOAD, "results": []}))
        nothing = await chain.search(SearchQuery(query="nothing at all"))
    assert nothing.results == []
    assert outcomes(nothing) == [("brave", "empty", None), ("tavily", "empty", None)]


async def test_a_crashing_provider_costs_only_itself(make_settings, cache, wire, health):
    class Broken(DuckDuckGoProvider):
        name = "broken"

        async def search(self, query, client):  # type: ignore[no-untyped-def]
            raise KeyError("web")

    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(brave_api_key="k")
    async with chain_of(
        settings, cache, providers=[Broken(settings.search, settings.net), "brave"], health=health
    ) as chain:
        response = await chain.search(SearchQuery(query="q"))
    assert outcomes(response) == [("broken", "error", "search_error"), ("brave", "ok", None)]
    assert "KeyError" in (response.providers_tried[0].message or "")


async def test_every_provider_failing_raises_with_the_attempts(
    make_settings, cache, wire, health, closed_port
):
    wire.on("/tavily", Reply(503, "maintenance"))
    settings = make_settings(
        brave_api_key="k",
        brave_url=f"http://127.0.0.1:{closed_port}/",
        tavily_api_key="k",
        search_providers="brave,tavily",
    )
    async with chain_of(settings, cache, health=health) as chain:
        with pytest.raises(SearchError) as caught:
            await chain.search(SearchQuery(query="q"))
    error = caught.value
    assert type(error) is SearchError
    assert error.retryable is True
    assert "brave: brave could not be reached" in error.message
    assert "tavily: tavily answered HTTP 503" in error.message
    assert "try again in 30 s" in error.hint
    assert outcomes(attempts_of(error)) == [
        ("brave", "error", "network_error"),
        ("tavily", "error", "http_error"),
    ]


# --- cooldown ------------------------------------------------------------------------------------


async def test_rate_limited_duckduckgo_cools_down_and_is_retried_later(
    make_settings, cache, wire, clock, health, sleep
):
    wire.on("/html/", Reply(202, ""))
    wire.on("/lite/", Reply(202, ""))
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(brave_api_key="k")
    ddg = DuckDuckGoProvider(settings.search, settings.net, retries=2, backoff=0.01, sleep=sleep)
    async with chain_of(settings, cache, providers=[ddg, "brave"], health=health) as chain:
        first = await chain.search(SearchQuery(query="one"))
        assert outcomes(first) == [("duckduckgo", "error", "rate_limited"), ("brave", "ok", None)]
        assert len(sleep.delays) == 2  # backed off between the three HTML tries
        assert len(wire.to("/html/")) == 3

        # While cooling down, DuckDuckGo is not contacted at all.
        clock.advance(29)
        second = await chain.search(SearchQuery(query="two"))
        assert outcomes(second) == [
            ("duckduckgo", "cooldown", "rate_limited"),
            ("brave", "ok", None),
        ]
        assert "cooling down for 1 s" in (second.providers_tried[0].message or "")
        assert len(wire.to("/html/")) == 3

        # After the pause it is tried again; failing again doubles the pause.
        clock.advance(2)
        third = await chain.search(SearchQuery(query="three"))
        assert outcomes(third)[0] == ("duckduckgo", "error", "rate_limited")
        assert len(wire.to("/html/")) == 6
        clock.advance(31)
        fourth = await chain.search(SearchQuery(query="four"))
        assert outcomes(fourth)[0] == ("duckduckgo", "cooldown", "rate_limited")

        # Once it recovers, a success closes the breaker.
        wire.on("/html/", Reply(body=DDG_HTML))
        clock.advance(30)
        fifth = await chain.search(SearchQuery(query="five"))
        assert outcomes(fifth) == [("duckduckgo", "ok", None)]
        assert health.cooling("duckduckgo") == 0


async def test_cooldown_is_shared_by_chains_with_the_same_health(
    make_settings, cache, wire, health, sleep
):
    wire.on("/html/", Reply(202, ""))
    wire.on("/lite/", Reply(202, ""))
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(brave_api_key="k")
    ddg = DuckDuckGoProvider(settings.search, settings.net, retries=0, sleep=sleep)
    async with chain_of(settings, cache, providers=[ddg, "brave"], health=health) as chain:
        await chain.search(SearchQuery(query="one"))
    async with chain_of(settings, cache, providers=["duckduckgo", "brave"], health=health) as again:
        response = await again.search(SearchQuery(query="two"))
    assert outcomes(response)[0] == ("duckduckgo", "cooldown", "rate_limited")


async def test_bad_key_is_provider_auth_and_not_retried(make_settings, cache, wire, health):
    wire.on("/brave", json_reply({"error": {"code": "SUBSCRIPTION_TOKEN_INVALID"}}, 401))
    wire.on("/html/", Reply(body=DDG_HTML))
    settings = make_settings(brave_api_key="wrong")
    async with chain_of(settings, cache, health=health) as chain:
        first = await chain.search(SearchQuery(query="one"))
        second = await chain.search(SearchQuery(query="two"))
    assert outcomes(first) == [("brave", "error", "provider_auth"), ("duckduckgo", "ok", None)]
    assert outcomes(second) == [("brave", "cooldown", "provider_auth"), ("duckduckgo", "ok", None)]
    assert len(wire.to("/brave")) == 1
    assert health.cooling("brave") == 600  # a refused key will not fix itself: longest pause


async def test_only_provider_with_bad_key_raises_provider_auth(make_settings, cache, wire, health):
    wire.on("/brave", json_reply({"error": "invalid"}, 403))
    settings = make_settings(brave_api_key="wrong", search_providers=["brave"])
    async with chain_of(settings, cache, health=health) as chain:
        with pytest.raises(ProviderAuthError) as caught:
            await chain.search(SearchQuery(query="q"))
    assert caught.value.exit_code == 31
    # The library's words name no command; the CLI spells the way to the settings.
    assert caught.value.hint == "check the provider settings on the server"
    from sleuth.commands.output import error_text

    assert "sleuth config show" in error_text(caught.value)


def test_health_pauses_grow_and_are_capped(clock):
    health = ProviderHealth(clock=clock, base=30, cap=600)
    busy = RateLimited("busy")
    assert [health.failed("p", busy) for _ in range(7)] == [30, 60, 120, 240, 480, 600, 600]
    assert health.cooling("p") == 600
    clock.advance(599)
    assert health.cooling("p") == 1
    health.succeeded("p")
    assert health.cooling("p") == 0
    assert health.failed("p", busy) == 30
    assert health.failed("q", ProviderAuthError("no")) == 600
    assert health.last_error("q") == "provider_auth"


# --- cache and budget ----------------------------------------------------------------------------


async def test_cached_response_is_marked_and_does_not_call_providers(
    make_settings, cache, wire, health, caplog
):
    caplog.set_level(logging.INFO, logger="sleuth")
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(brave_api_key="k", search_providers=["brave"])
    async with chain_of(settings, cache, health=health) as chain:
        first = await chain.search(SearchQuery(query="python 3.13"))
        again = await chain.search(SearchQuery(query="  python   3.13 "))
        different = await chain.search(SearchQuery(query="python 3.13", recency_days=7))
    assert len(wire.to("/brave")) == 2  # the third differs in recency, so it is not a hit
    assert again.results == first.results
    assert [(a.name, a.outcome, a.cached) for a in again.providers_tried] == [("brave", "ok", True)]
    assert different.providers_tried[0].cached is False
    cached_calls = [
        r for r in caplog.records if r.getMessage() == "search_call" and r.fields["cached"]
    ]
    assert len(cached_calls) == 1


async def test_zero_cache_ttl_turns_caching_off(make_settings, cache, wire, health):
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(brave_api_key="k", search_providers=["brave"], search_cache_ttl=0)
    async with chain_of(settings, cache, health=health) as chain:
        await chain.search(SearchQuery(query="q"))
        again = await chain.search(SearchQuery(query="q"))
    assert again.providers_tried[0].cached is False
    assert len(wire.to("/brave")) == 2


async def test_budget_counts_provider_searches_not_cache_hits(make_settings, cache, wire, health):
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(brave_api_key="k", search_providers=["brave"], searches_per_hour=2)
    async with chain_of(settings, cache, health=health) as chain:
        await chain.search(SearchQuery(query="one"))
        for _ in range(3):
            await chain.search(SearchQuery(query="one"))  # cache hits are free
        await chain.search(SearchQuery(query="two"))
        with pytest.raises(SearchBudgetExhausted) as caught:
            await chain.search(SearchQuery(query="three"))
    assert caught.value.exit_code == 33
    assert "budget (2 per hour) is spent" in caught.value.message
    assert len(wire.to("/brave")) == 2


async def test_budget_renews_with_the_next_hour(make_settings, cache, wire, health, clock):
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    clock.now = 7_200.0
    settings = make_settings(brave_api_key="k", search_providers=["brave"], searches_per_hour=1)
    async with chain_of(settings, cache, health=health, clock=clock) as chain:
        await chain.search(SearchQuery(query="one"))
        with pytest.raises(SearchBudgetExhausted, match="renews in about 60 min"):
            await chain.search(SearchQuery(query="two"))
        clock.advance(3_600)
        response = await chain.search(SearchQuery(query="two"))
    assert response.results


@pytest.fixture(params=["file", pytest.param("redis", marks=pytest.mark.redis)])
def shared_caches(request, tmp_path):  # type: ignore[no-untyped-def]
    """Two cache objects over one store, as two sleuth processes would have."""
    if request.param == "file":
        yield FileCache(tmp_path), FileCache(tmp_path)
        return
    from redis_server import running_redis

    with running_redis() as server:
        yield RedisCache(server.url, prefix="t:"), RedisCache(server.url, prefix="t:")


async def test_budget_is_shared_by_caches_over_one_store(
    make_settings, wire, health, shared_caches
):
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(brave_api_key="k", search_providers=["brave"], searches_per_hour=3)
    first_cache, second_cache = shared_caches
    try:
        async with (
            chain_of(settings, first_cache, health=health) as one,
            chain_of(settings, second_cache, health=health) as two,
        ):
            await one.search(SearchQuery(query="a"))
            await two.search(SearchQuery(query="b"))
            # The store is shared, so the other process's result is a free cache hit...
            hit = await two.search(SearchQuery(query="a"))
            assert hit.providers_tried[0].cached is True
            await one.search(SearchQuery(query="c"))
            # ...and the fourth provider search, from either process, is over budget.
            with pytest.raises(SearchBudgetExhausted):
                await two.search(SearchQuery(query="d"))
    finally:
        await first_cache.aclose()
        await second_cache.aclose()
    assert len(wire.to("/brave")) == 3


async def test_clients_are_made_once_per_chain_and_reuse_connections(
    make_settings, cache, wire, health
):
    wire.on("/brave", json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(brave_api_key="k", search_providers=["brave"])
    async with chain_of(settings, cache, health=health) as chain:
        for query in ("one", "two", "three"):
            await chain.search(SearchQuery(query=query))
    peers = {r.peer for r in wire.to("/brave")}
    assert len(wire.to("/brave")) == 3
    assert len(peers) == 1  # one keep-alive connection, so one client


async def test_a_search_that_asks_no_provider_spends_no_budget(
    make_settings, cache, wire, health, clock
):
    wire.on("/brave", Reply(503, "maintenance"), json_reply(brave_payload(BRAVE_RESULTS)))
    settings = make_settings(brave_api_key="k", search_providers=["brave"], searches_per_hour=2)
    async with chain_of(settings, cache, health=health, clock=clock) as chain:
        with pytest.raises(SearchError, match="HTTP 503"):
            await chain.search(SearchQuery(query="one"))  # spends 1
        with pytest.raises(SearchError, match="cooling down") as cooling:
            await chain.search(SearchQuery(query="two"))  # nobody asked: free
        assert outcomes(attempts_of(cooling.value)) == [("brave", "cooldown", "http_error")]
        clock.advance(30)
        response = await chain.search(SearchQuery(query="three"))  # spends the 2nd
    assert outcomes(response) == [("brave", "ok", None)]
    assert len(wire.to("/brave")) == 2

"""Prices per model and provider, and budgets per session and per day."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from search.wire import Wire, json_reply
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.errors import BudgetExceeded, ConfigError
from sleuth.llm.budget import Budget
from sleuth.llm.models import Usage
from sleuth.llm.pricing import load_prices
from sleuth.net import Clients

PRICES = load_prices()


def test_a_dated_snapshot_finds_its_family_by_longest_prefix() -> None:
    assert PRICES.price("gpt-5-mini-2025-08-07") == PRICES.price("gpt-5-mini")
    assert PRICES.price("gpt-5-mini") != PRICES.price("gpt-5")
    assert PRICES.price("models/gemini-2.5-flash-lite") == PRICES.price("gemini-2.5-flash-lite")
    assert PRICES.price("llama3.1:8b") is None


def test_openai_counts_cached_tokens_inside_the_input() -> None:
    usage = Usage(input_tokens=1_000_000, cached_tokens=400_000, output_tokens=100_000)
    cost = PRICES.cost("openai", "gpt-5-mini", usage, local=False)
    assert cost == pytest.approx(0.6 * 0.25 + 0.4 * 0.025 + 0.1 * 2.0)


def test_native_searches_are_billed_per_provider() -> None:
    usage = Usage(
        input_tokens=1_400_000, cached_tokens=400_000, output_tokens=0, web_search_requests=3
    )
    cost = PRICES.cost("anthropic", "claude-sonnet-4-5-20250929", usage, local=False)
    assert cost == pytest.approx(3.0 + 0.4 * 0.3 + 3 * 10.0 / 1000)
    gemini = PRICES.cost("gemini", "gemini-2.5-flash", Usage(web_search_requests=2), local=False)
    assert gemini == pytest.approx(2 * 35.0 / 1000)


def test_reasoning_is_billed_once_inside_output() -> None:
    usage = Usage(output_tokens=200_000, reasoning_tokens=100_000)
    assert PRICES.cost("gemini", "gemini-2.5-flash", usage, local=False) == pytest.approx(0.5)


def test_local_servers_cost_nothing_and_unknown_models_get_the_high_estimate() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert PRICES.cost("openai", "gpt-5", usage, local=True) == 0.0
    assert PRICES.cost("openai", "mystery-model", usage, local=False) == pytest.approx(30.0)
    assert PRICES.cost("openai", "mystery-model", usage, local=False) > PRICES.cost(
        "openai", "gpt-5", usage, local=False
    )


def test_a_price_file_replaces_the_table(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"models": {"house-model": {"input": 1, "output": 2}}}))
    table = load_prices(path)
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert table.cost("openai", "house-model", usage, local=False) == pytest.approx(3.0)
    assert table.cost("openai", "other-model", usage, local=False) is None  # no estimate given
    path.write_text(json.dumps({"models": {"house-model": {"output": 2}}}))
    with pytest.raises(ConfigError, match="malformed"):
        load_prices(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_prices(tmp_path / "missing.json")


async def test_the_session_budget_stops_the_next_call() -> None:
    budget = Budget(MemoryCache(), session_usd=0.01, daily_usd=0)
    await budget.check()
    await budget.charge(0.004)
    await budget.check()
    await budget.charge(0.007)
    with pytest.raises(BudgetExceeded, match=r"session budget of \$0\.01"):
        await budget.check()


async def test_the_daily_budget_is_shared_through_the_cache() -> None:
    cache = MemoryCache()
    first = Budget(cache, session_usd=0, daily_usd=1.0)
    second = Budget(cache, session_usd=0, daily_usd=1.0)
    await first.charge(0.6)
    await second.check()
    await second.charge(0.5)
    assert await first.spent_today() == pytest.approx(1.1)
    with pytest.raises(BudgetExceeded, match="daily LLM budget"):
        await first.check()
    assert BudgetExceeded("x").exit_code == 53


@pytest.mark.redis
async def test_two_processes_share_the_daily_budget_through_redis() -> None:
    from redis_server import running_redis
    from sleuth.cache import open_cache
    from sleuth.config import Settings

    with running_redis() as server:
        settings = Settings(cache="redis", redis_url=server.url)
        first_cache, second_cache = open_cache(settings.caching), open_cache(settings.caching)
        try:
            await first_cache.clear()
            first = Budget(first_cache, session_usd=0, daily_usd=0.5)
            second = Budget(second_cache, session_usd=0, daily_usd=0.5)
            await first.charge(0.3)
            await second.charge(0.3)
            assert await first.spent_today() == pytest.approx(0.6)
            with pytest.raises(BudgetExceeded):
                await first.check()
            assert (await first_cache.stats()).backend == "redis"
        finally:
            await first_cache.aclose()
            await second_cache.aclose()


async def test_an_unlisted_cloud_model_is_estimated_and_still_stopped_by_the_budget(
    wire: Wire, llm_settings: Callable[..., Settings]
) -> None:
    from dataclasses import replace

    from llm import payloads_openai
    from sleuth.llm import ChatRequest, Message, open_provider
    from sleuth.llm.meter import Meter

    body = json.loads(payloads_openai.answer("ok").body)
    body["model"] = "house-llm-7b"  # a model no price table lists
    wire.on(payloads_openai.PATH, json_reply(body))
    settings = llm_settings("openai", llm_session_budget_usd=0.001)
    provider, config = open_provider(settings.llm, Clients(settings.net))
    cloud = replace(config, local=False)  # as if the server were a paid API
    meter = Meter.open(provider, cloud, settings.llm, MemoryCache())
    request = ChatRequest([Message("user", "q")])
    await meter.complete(request)
    assert meter.estimated
    assert meter.cost == pytest.approx((93 * 5.0 + 1024 * 0.5 + 46 * 25.0) / 1_000_000)
    with pytest.raises(BudgetExceeded):
        await meter.complete(request)
    assert len(wire.to(payloads_openai.PATH)) == 1  # the second call never left
    await provider.aclose()

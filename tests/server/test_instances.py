"""Two ``sleuth serve`` processes and one real ``redis-server``, all on loopback: what one
instance spends or stores, the other sees; and losing Redis mid-run fails no request.

The model stands for a paid cloud API (its calls cost money, so the daily budget
fills): a loopback server speaking OpenAI's Chat Completions, reached under a
cloud-looking host name that the server processes resolve to 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from llm import payloads_openai
from redis_server import RedisServer, running_redis
from search.wire import Wire
from server.harness import OTHER_TOKEN, TOKEN, SearxngWeb, ServerProcess
from server.hostmap_env import cloud_model_env

pytestmark = pytest.mark.redis

Launch = Callable[..., ServerProcess]
LIMITED = "tok-charlie-5a0b11"  # spends the rate limit
STEADY = "tok-delta-93e7c2"  # keeps asking while Redis goes away
RATE = 30  # per token per day, shared through Redis
SUGGESTION = {"slug": "nimbus", "title": "Nimbus", "description": "", "tags": ["http", "client"]}


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    with running_redis() as server:
        yield server


@pytest.fixture
def pair(launch: Launch, redis: RedisServer, wire: Wire, tmp_path: Path) -> list[ServerProcess]:
    wire.on("/v1" + payloads_openai.PATH, payloads_openai.answer(json.dumps(SUGGESTION)))
    env = {
        **cloud_model_env(wire, tmp_path, daily_usd="0.000001"),
        "SLEUTH_CACHE": "redis",
        "SLEUTH_REDIS_URL": redis.url,
        "SLEUTH_RATE_LIMIT": f"{RATE}/day",
        "SLEUTH_API_TOKENS": ",".join((TOKEN, OTHER_TOKEN, LIMITED, STEADY)),
    }
    return [launch(**env), launch(**env)]


def test_two_instances_share_one_redis_and_outlive_it(
    pair: list[ServerProcess], redis: RedisServer, web: SearxngWeb, wire: Wire
) -> None:
    first, second = pair
    page = web.site.origin + "/docs/timeouts"

    # A page fetched through one is a cache hit through the other.
    assert first.post("/api/v1/fetch", {"url": page}).json()["cache"] == "miss"
    assert second.post("/api/v1/fetch", {"url": page}).json()["cache"] == "hit"
    assert web.page_paths() == ["/docs/timeouts"]

    # A rate limit spent on one is spent on both.
    spent = [server.post("/api/v1/search", {"query": "nimbus"}, token=LIMITED) for server in pair]
    for _ in range(RATE // 2 - 1):
        spent += [s.post("/api/v1/search", {"query": "nimbus"}, token=LIMITED) for s in pair]
    assert [r.status_code for r in spent] == [200] * RATE
    for server in pair:
        refused = server.post("/api/v1/search", {"query": "nimbus"}, token=LIMITED)
        assert refused.status_code == 429
        assert refused.json()["code"] == "TOO_MANY_REQUESTS"
    assert first.post("/api/v1/search", {"query": "nimbus"}, token=OTHER_TOKEN).status_code == 200

    # A daily LLM budget spent on one stops the other.
    assert first.post("/api/v1/links/suggest", {"url": page}).json() == SUGGESTION
    stopped = second.post("/api/v1/links/suggest", {"url": page})
    assert stopped.status_code == 429
    assert stopped.json()["code"] == "BUDGET_EXCEEDED"
    assert len(wire.requests) == 1

    # Redis goes away mid-run: every request still succeeds, each instance on its own memory.
    # The caller sends one request per ticket, so the test decides how many go before, during
    # and after the kill without racing the rate limit.
    statuses: list[tuple[str, int]] = []
    progress = threading.Condition()
    tickets = threading.Semaphore(0)
    done = threading.Event()

    def steady() -> None:
        with httpx.Client(headers={"Authorization": f"Bearer {STEADY}"}, timeout=60) as client:
            turn = 0
            while tickets.acquire(timeout=120) and not done.is_set():
                server = pair[turn % 2]
                body = {"url": page} if turn % 3 else {"query": "nimbus"}
                route = "/api/v1/fetch" if turn % 3 else "/api/v1/search"
                reply = client.post(server.url + route, json=body)
                with progress:
                    statuses.append((route, reply.status_code))
                    progress.notify_all()
                turn += 1

    def sent(count: int) -> None:
        with progress:
            assert progress.wait_for(lambda: len(statuses) >= count, 60), statuses

    caller = threading.Thread(target=steady)
    caller.start()
    tickets.release(4)
    sent(4)
    tickets.release(4)  # these four are under way while Redis dies
    redis.stop()
    tickets.release(8)
    sent(16)
    done.set()
    tickets.release()
    caller.join(60)
    assert [status for _, status in statuses] == [200] * 16, statuses

    for server in pair:
        # Each says once why results stopped being shared.
        fallbacks = server.wait_events("cache_fallback", 1)
        assert len(fallbacks) == 1, server.log
        assert fallbacks[0]["backend"] == "redis"
        assert fallbacks[0]["fallback"] == "memory"
        ready = server.get("/readyz", token=None)
        assert ready.status_code == 503
        assert ready.json()["cache"]["reachable"] is False
        assert ready.json()["cache"]["fallback"] is True
        assert server.get("/healthz", token=None).status_code == 200
        # Now per instance: a page is a miss once on each, then a hit on that one.
        other = web.site.origin + "/blog/nimbus"
        assert server.post("/api/v1/fetch", {"url": other}).json()["cache"] == "miss"
        assert server.post("/api/v1/fetch", {"url": other}).json()["cache"] == "hit"
    assert web.page_paths().count("/blog/nimbus") == 2

"""Policy before the cache, between ``sleuth serve`` instances that share a cache.

Two instances share one real ``redis-server`` or one cache directory; one may
reach the loopback site (its allowlist holds 127.0.0.1), the other has no
allowlist. A page the first stored is refused by the second, through the fetch
route and through research, and still served from the cache by the first. A
page a person stored with ``--ignore-robots`` never reaches an HTTP client,
since the server always obeys robots.txt. Everything runs on loopback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from redis_server import RedisServer, running_redis
from server.harness import QUESTION, SearxngWeb, ServerProcess

Launch = Callable[..., ServerProcess]
NO_ALLOWLIST = {"SLEUTH_ALLOW_HOSTS": ""}
INTERNAL = [
    "The internal Nimbus runbook says the default timeout of five seconds must never be "
    "raised for the billing cluster, whatever the partners ask for in the evening rush.",
    "Operators who need longer calls open a change request and wait for the weekly review, "
    "where the platform team decides case by case and writes the decision down.",
]


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    with running_redis() as server:
        yield server


def shared_cache(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> dict[str, str]:
    if kind == "redis":
        redis: RedisServer = request.getfixturevalue("redis")
        return {"SLEUTH_CACHE": "redis", "SLEUTH_REDIS_URL": redis.url}
    return {"SLEUTH_CACHE": "file", "SLEUTH_CACHE_DIR": str(tmp_path / "shared-cache")}


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis", "file"])
def test_an_instance_without_the_allowlist_is_refused_what_another_cached(
    kind: str, launch: Launch, web: SearxngWeb, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    cache = shared_cache(kind, tmp_path, request)
    inside = launch(**cache)
    outside = launch(**cache, **NO_ALLOWLIST)
    page = web.site.origin + "/docs/timeouts"

    first = inside.post("/api/v1/fetch", {"url": page})
    assert (first.status_code, first.json()["cache"]) == (200, "miss")
    refused = outside.post("/api/v1/fetch", {"url": page})
    assert refused.status_code == 403
    assert refused.json()["code"] == "BLOCKED"
    assert "five seconds" not in refused.text
    decimal = page.replace("127.0.0.1", "2130706433")  # the same address, spelt as one number
    assert outside.post("/api/v1/fetch", {"url": decimal}).status_code == 403
    again = inside.post("/api/v1/fetch", {"url": page})
    assert (again.status_code, again.json()["cache"]) == (200, "hit")
    assert again.json()["text"] == first.json()["text"]
    assert web.page_paths() == ["/docs/timeouts"]


@pytest.mark.redis
def test_research_on_an_instance_without_the_allowlist_reads_nothing_from_the_cache(
    launch: Launch, web: SearxngWeb, redis: RedisServer
) -> None:
    cache = {"SLEUTH_CACHE": "redis", "SLEUTH_REDIS_URL": redis.url}
    inside = launch(**cache)
    outside = launch(**cache, **NO_ALLOWLIST)
    body = {"question": QUESTION, "max_pages": 2}

    read = inside.post("/api/v1/research", body).json()
    assert read["meta"]["fetched_pages"] == 2
    assert any("five seconds" in bullet["text"] for bullet in read["bullets"])
    pages_read = web.page_paths()

    answer = outside.post("/api/v1/research", body)  # a digest that says why it is empty
    assert answer.status_code == 200
    assert "five seconds" not in answer.text
    digest = answer.json()
    assert (digest["bullets"], digest["citations"]) == ([], [])
    assert digest["meta"]["fetched_pages"] == 0
    blocked = [error["url"] for error in digest["errors"] if error["code"] == "blocked"]
    assert sorted(blocked) == sorted(result["url"] for result in web.results)
    assert web.page_paths() == pages_read  # nothing was fetched either
    again = inside.post("/api/v1/research", body).json()
    assert again["meta"]["cache_hits"] >= 2


def test_a_page_stored_with_ignore_robots_never_reaches_an_http_client(
    launch: Launch, web: SearxngWeb, tmp_path: Path
) -> None:
    url = web.page("/private/runbook", "Nimbus runbook", INTERNAL)  # listed in the search
    cache = {"SLEUTH_CACHE": "file", "SLEUTH_CACHE_DIR": str(tmp_path / "shared-cache")}
    person = {
        **{k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")},
        **web.env(tmp_path),
        **cache,
    }
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "fetch", url, "--ignore-robots", "--json"],
        capture_output=True,
        text=True,
        env=person,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "billing cluster" in done.stdout
    server = launch(**cache)

    refused = server.post("/api/v1/fetch", {"url": url})
    assert refused.status_code == 403
    assert refused.json()["code"] == "ROBOTS_DISALLOWED"
    assert "billing cluster" not in refused.text

    digest = server.post("/api/v1/research", {"question": QUESTION, "max_pages": 3}).json()
    assert url not in [citation["url"] for citation in digest["citations"]]
    assert not any("billing cluster" in bullet["text"] for bullet in digest["bullets"])
    assert web.page_paths().count("/private/runbook") == 1  # the person's fetch only

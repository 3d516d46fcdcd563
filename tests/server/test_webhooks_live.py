"""Crawl jobs' webhooks with real ``sleuth serve`` processes sharing a real Redis: each job's
end arrives once, signed, whichever instance is asked; a private target is refused."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from redis_server import RedisServer, running_redis
from server.harness import SearxngWeb, ServerProcess
from webhook_receiver import SECRET, Receiver, receiving, verified

pytestmark = pytest.mark.redis

Launch = Callable[..., ServerProcess]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as found:
        yield found


@pytest.fixture
def pair(launch: Launch, web: SearxngWeb, receiver: Receiver) -> Iterator[list[ServerProcess]]:
    with running_redis() as redis:
        yield [launch(**_env(web, receiver, redis)) for _ in range(2)]


def _env(web: SearxngWeb, receiver: Receiver, redis: RedisServer) -> dict[str, str]:
    return {
        "SLEUTH_CACHE": "redis",
        "SLEUTH_REDIS_URL": redis.url,
        "SLEUTH_ALLOW_PORTS": f"{web.site.port},{receiver.port}",
        "SLEUTH_WEBHOOK_SECRET": SECRET,
        "SLEUTH_LOG_FORMAT": "json",
        "SLEUTH_LOG_LEVEL": "info",
    }


def test_each_end_arrives_once_signed_and_a_private_target_is_refused(
    pair: list[ServerProcess], web: SearxngWeb, receiver: Receiver
) -> None:
    first, second = pair
    start = web.site.origin + "/docs/timeouts"

    refused = second.post(
        "/api/v1/crawl", {"url": start, "webhook": "http://169.254.169.254/latest/meta-data/"}
    )
    assert refused.status_code == 403
    assert refused.json()["code"] == "BLOCKED"

    done = first.post("/api/v1/crawl", {"url": start, "max_pages": 1, "webhook": receiver.url})
    assert done.status_code == 202, done.text
    job = done.json()["id"]
    (post,) = receiver.wait(1)  # whichever instance's worker ended the job sent it
    sent = verified(post)
    assert (sent["id"], sent["status"], sent["pages"]) == (job, "done", 1)
    assert "Nimbus" not in post.body.decode()
    for server in pair:
        assert server.get(f"/api/v1/crawl/{job}").json()["status"] == "done"

    # A job whose page is stalled, cancelled through the second instance: the job ends
    # once, and its end is posted once, by the process that ended it.
    stall = threading.Event()
    slow = web.site.add("/slow/", "<html><body><a href='/slow/a'>a</a></body></html>", stall=stall)
    try:
        started = first.post("/api/v1/crawl", {"url": slow, "webhook": receiver.url})
        cancel = started.json()["id"]
        with second.client() as client:
            cancelled = client.delete(f"/api/v1/crawl/{cancel}")
        assert cancelled.json()["status"] == "cancelled"
    finally:
        stall.set()
    (_, post) = receiver.wait(2)
    sent = verified(post)
    assert (sent["id"], sent["status"]) == (cancel, "cancelled")
    for server in pair:
        assert server.get(f"/api/v1/crawl/{cancel}").json()["status"] == "cancelled"
    for server in pair:  # stopped, each has drained what it was sending: counts are final
        assert server.stop() == 0
    assert len(receiver.posts) == 2  # each end posted once, by whichever process ended it

"""A crawl job's webhook: signed, once per transition, through the guard, no page text."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sitegen import page, paragraph, tree_site
from starlette.testclient import TestClient
from test_http_jobs import wait_for

from loopback import Site
from redis_server import running_redis
from sleuth import log
from sleuth.cache.memory import MemoryCache
from sleuth.cache.redis import RedisCache
from sleuth.config import Settings
from sleuth.jobs import webhook
from sleuth.server.app import create_app
from sleuth.web import Web
from webhook_receiver import SECRET, Receiver, receiving, verified

PAYLOAD_KEYS = {"id", "status", "pages", "errors", "error_code", "created_at", "updated_at"}


class Delivered(logging.Handler):
    """The ``crawl_webhook`` events, each logged once an attempt is over."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.events: list[dict[str, Any]] = []
        self.changed = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == "crawl_webhook":
            with self.changed:
                self.events.append(dict(getattr(record, "fields", {})))
                self.changed.notify_all()

    def wait_final(self) -> dict[str, Any]:
        """The attempt after which nothing more is sent (sent, or a final refusal)."""

        def final() -> dict[str, Any] | None:
            return next((e for e in self.events if e["outcome"] != "retry"), None)

        with self.changed:
            assert self.changed.wait_for(lambda: final() is not None, 30), self.events
            found = final()
        assert found is not None
        return found


@pytest.fixture
def delivered() -> Iterator[Delivered]:
    handler = Delivered()
    log.LOGGER.addHandler(handler)
    level = log.LOGGER.level
    log.LOGGER.setLevel(logging.INFO)
    yield handler
    log.LOGGER.removeHandler(handler)
    log.LOGGER.setLevel(level)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as found:
        yield found


@pytest.fixture
def make_client(site: Site, receiver: Receiver) -> Iterator[Any]:
    opened: list[TestClient] = []

    def make(**extra: Any) -> TestClient:
        port = receiver.port
        options: dict[str, Any] = {"webhook_secret": SECRET, **extra}
        settings = Settings(  # type: ignore[call-arg]
            allow_hosts=[f"127.0.0.1:{site.port}", f"127.0.0.1:{port}"],
            cache="memory",
            render="never",
            _env_file=None,
            **options,
        )
        client = TestClient(create_app(settings), base_url="http://127.0.0.1:8080")
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)


def test_a_done_job_posts_once_signed_without_page_text(
    site: Site, receiver: Receiver, make_client: Any, delivered: Delivered
) -> None:
    tree_site(site, 4, fanout=3)
    client = make_client()
    started = client.post(
        "/api/v1/crawl", json={"url": site.origin, "max_pages": 3, "webhook": receiver.url}
    )
    assert started.status_code == 202, started.text
    job = started.json()["id"]
    done = wait_for(client, job, "done")
    assert delivered.wait_final()["outcome"] == "sent"
    (post,) = receiver.wait(1)
    assert len(receiver.posts) == 1
    sent = verified(post)
    assert set(sent) == PAYLOAD_KEYS
    assert sent["id"] == job
    assert sent["status"] == "done"
    assert sent["pages"] == done["pages"] == 3
    assert sent["errors"] == 0
    assert sent["error_code"] is None
    text = post.body.decode()
    for seed in range(4):  # no page's words, title or address travel with it
        assert paragraph(seed)[:40] not in text
        assert f"Page {seed}" not in text
    assert site.origin not in text
    # A signature made with another key, or over another body, does not match.
    stamp = int(post.headers["X-Sleuth-Timestamp"])
    assert webhook.sign("another-key", stamp, post.body) != post.headers["X-Sleuth-Signature"]
    tampered = post.body.replace(b'"done"', b'"failed"')
    assert webhook.sign(SECRET, stamp, tampered) != post.headers["X-Sleuth-Signature"]


def test_a_cancelled_job_posts_cancelled_once(
    site: Site, receiver: Receiver, make_client: Any, delivered: Delivered
) -> None:
    stall = threading.Event()
    site.add("/", page("Home", 0, ["/a"]), stall=stall)
    client = make_client()
    try:
        job = client.post("/api/v1/crawl", json={"url": site.origin, "webhook": receiver.url})
        assert job.status_code == 202, job.text
        job_id = job.json()["id"]
        assert client.delete(f"/api/v1/crawl/{job_id}").status_code == 200
        assert delivered.wait_final()["outcome"] == "sent"
    finally:
        stall.set()
    wait_for(client, job_id, "cancelled")
    (post,) = receiver.wait(1)
    sent = verified(post)
    assert (sent["id"], sent["status"], sent["error_code"]) == (job_id, "cancelled", None)
    # Asking to cancel an ended job again sends nothing more.
    assert client.delete(f"/api/v1/crawl/{job_id}").status_code == 200
    assert len(receiver.posts) == 1


def test_a_failed_job_posts_failed_with_its_code_once(
    site: Site,
    receiver: Receiver,
    make_client: Any,
    delivered: Delivered,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sleuth.crawl.crawler import Crawler

    secret_words = "the text of a page that must never leave"

    async def failing(self: Crawler, *args: Any) -> Any:
        raise RuntimeError(secret_words)

    tree_site(site, 3, fanout=2)
    monkeypatch.setattr(Crawler, "_process", failing)
    client = make_client()
    job = client.post("/api/v1/crawl", json={"url": site.origin, "webhook": receiver.url})
    job_id = job.json()["id"]
    wait_for(client, job_id, "failed")
    assert delivered.wait_final()["outcome"] == "sent"
    (post,) = receiver.wait(1)
    sent = verified(post)
    assert (sent["status"], sent["error_code"], sent["pages"]) == ("failed", "internal_error", 0)
    assert secret_words not in post.body.decode()


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",  # a cloud's metadata service
        "http://10.0.0.7/hook",  # a private network
        "http://[fd00::1]/hook",  # a private IPv6 network
        "http://127.0.0.1:9/hook",  # loopback, on a port the operator did not allow
    ],
)
def test_a_webhook_to_a_private_address_is_refused_at_submission(
    site: Site, receiver: Receiver, make_client: Any, target: str
) -> None:
    tree_site(site, 2, fanout=1)
    client = make_client()
    refused = client.post("/api/v1/crawl", json={"url": site.origin, "webhook": target})
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == "BLOCKED"
    # No job started: the site was never asked for a page, and the caller's slot is free.
    assert site.paths() == []
    assert client.post("/api/v1/crawl", json={"url": site.origin}).status_code == 202
    assert receiver.posts == []


def test_a_webhook_without_a_secret_is_a_usage_error(
    site: Site, receiver: Receiver, make_client: Any
) -> None:
    client = make_client(webhook_secret=None)
    refused = client.post("/api/v1/crawl", json={"url": site.origin, "webhook": receiver.url})
    assert refused.status_code == 400
    assert refused.json()["code"] == "USAGE_ERROR"
    assert "SLEUTH_WEBHOOK_SECRET" in refused.json()["error"]
    not_http = make_client().post(
        "/api/v1/crawl", json={"url": site.origin, "webhook": "ftp://127.0.0.1/x"}
    )
    assert not_http.status_code == 400
    assert site.paths() == []


def _record(status: str = "done") -> dict[str, Any]:
    return {
        "id": "job-1",
        "status": status,
        "pages": 2,
        "errors": 1,
        "error": None,
        "created_at": 1.0,
        "updated_at": 2.0,
    }


def _web(receiver: Receiver) -> Web:
    port = receiver.port
    settings = Settings(allow_hosts=[f"127.0.0.1:{port}"], cache="memory", _env_file=None)  # type: ignore[call-arg]
    return Web(settings, MemoryCache())


async def test_a_retry_follows_only_a_failed_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webhook, "BACKOFF", 0.0)
    with receiving(503, 500) as receiver:
        web = _web(receiver)
        try:
            sent = await webhook.deliver(web, MemoryCache(), SECRET, receiver.url, _record())
        finally:
            await web.aclose()
    assert sent is True
    assert len(receiver.posts) == 3  # two failures, then the one that was taken
    for post in receiver.posts:
        assert verified(post) == verified(receiver.posts[0])


async def test_a_refusal_is_final_and_attempts_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(webhook, "BACKOFF", 0.0)
    with receiving(404) as refusing, receiving(*[503] * 10) as failing:
        web = _web(refusing)
        try:
            assert not await webhook.deliver(web, MemoryCache(), SECRET, refusing.url, _record())
        finally:
            await web.aclose()
        web = _web(failing)
        try:
            assert not await webhook.deliver(web, MemoryCache(), SECRET, failing.url, _record())
        finally:
            await web.aclose()
    assert len(refusing.posts) == 1
    assert len(failing.posts) == webhook.ATTEMPTS


async def test_each_transition_is_claimed_once_across_processes_sharing_redis() -> None:
    """Two processes that both see a job end (as two instances or workers would) share
    one Redis: the first to claim the transition posts it, the other sends nothing."""
    with running_redis() as redis, receiving() as receiver:
        caches = [RedisCache(redis.url, prefix="hooks:") for _ in range(2)]
        webs = [_web(receiver) for _ in range(2)]
        try:
            sent = await asyncio.gather(
                *(
                    webhook.deliver(web, cache, SECRET, receiver.url, _record())
                    for web, cache in zip(webs, caches, strict=True)
                )
            )
            again = await webhook.deliver(webs[0], caches[1], SECRET, receiver.url, _record())
            other = await webhook.deliver(
                webs[1], caches[0], SECRET, receiver.url, _record("cancelled")
            )
        finally:
            for web in webs:
                await web.aclose()
            for cache in caches:
                await cache.aclose()
    assert sorted(sent) == [False, True]
    assert again is False
    assert other is True  # another transition is another claim
    assert [verified(post)["status"] for post in receiver.posts] == ["done", "cancelled"]


def test_the_secret_is_masked_in_config_show() -> None:
    from sleuth.config import describe

    settings = Settings(webhook_secret=SECRET, _env_file=None)  # type: ignore[call-arg]
    (shown,) = [value for name, value, _ in describe(settings) if name == "webhook_secret"]
    assert SECRET not in shown
    assert shown.endswith("******")


async def test_an_instance_without_the_secret_sends_nothing() -> None:
    """An instance set up unlike the one that took the job cannot sign: it sends nothing
    rather than an unsigned POST, and leaves the transition unclaimed."""
    cache = MemoryCache()
    with receiving() as receiver:
        web = _web(receiver)
        try:
            assert not await webhook.deliver(web, cache, None, receiver.url, _record())
            assert await webhook.deliver(web, cache, SECRET, receiver.url, _record())
        finally:
            await web.aclose()
    assert len(receiver.posts) == 1
    verified(receiver.posts[0])

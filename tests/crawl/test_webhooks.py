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
from sleuth.config import Settings
from sleuth.jobs import webhook
from sleuth.jobs.crawljob import Pages
from sleuth.jobs.engine import open_engine
from sleuth.jobs.store import Jobs
from sleuth.server.app import create_app
from sleuth.session import AsyncSession
from sleuth.web import Web
from webhook_receiver import SECRET, Receiver, receiving, verified

PAYLOAD_KEYS = {"id", "status", "pages", "errors", "error_code", "created_at", "updated_at"}


class Delivered(logging.Handler):
    """The ``crawl_webhook`` events, each logged once an attempt is over, and the other
    webhook events by name."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.events: list[dict[str, Any]] = []
        self.others: list[tuple[str, int]] = []  # (event, level)
        self.changed = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        name = record.getMessage()
        with self.changed:
            if name == "crawl_webhook":
                self.events.append(dict(getattr(record, "fields", {})))
            elif name.startswith("crawl_webhook_"):
                self.others.append((name, record.levelno))
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


def shut(client: TestClient) -> None:
    """Stop the app (its webhooks under way are drained), so counts taken after it are
    final: a late duplicate would be among them."""
    client.__exit__(None, None, None)
    client.shut = True  # type: ignore[attr-defined]


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
            **options,
        )
        client = TestClient(create_app(settings), base_url="http://127.0.0.1:8080")
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        if not getattr(client, "shut", False):
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
    shut(client)
    (post,) = receiver.posts
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
    # Asking to cancel an ended job again sends nothing more.
    assert client.delete(f"/api/v1/crawl/{job_id}").status_code == 200
    shut(client)
    (post,) = receiver.posts
    sent = verified(post)
    assert (sent["id"], sent["status"], sent["error_code"]) == (job_id, "cancelled", None)


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
    shut(client)
    (post,) = receiver.posts
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
    settings = Settings(allow_hosts=[f"127.0.0.1:{port}"], cache="memory")
    return Web(settings, MemoryCache())


async def test_a_retry_follows_only_a_failed_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webhook, "BACKOFF", 0.0)
    with receiving(503, 500) as receiver:
        web = _web(receiver)
        try:
            sent = await webhook.deliver(web, SECRET, receiver.url, _record())
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
            assert not await webhook.deliver(web, SECRET, refusing.url, _record())
        finally:
            await web.aclose()
        web = _web(failing)
        try:
            assert not await webhook.deliver(web, SECRET, failing.url, _record())
        finally:
            await web.aclose()
    assert len(refusing.posts) == 1
    assert len(failing.posts) == webhook.ATTEMPTS


async def test_each_end_is_posted_once_by_whichever_process_ended_the_job(
    site: Site,
) -> None:
    """Two processes on one Redis both try to end a job (as two instances or workers that
    meet its end would): the store ends it once, and only that process posts. Counted
    after both drained what they were sending."""
    tree_site(site, 1)
    with running_redis() as redis, receiving() as receiver:
        settings = Settings(  # type: ignore[call-arg]
            allow_hosts=[f"127.0.0.1:{site.port}", f"127.0.0.1:{receiver.port}"],
            cache="redis",
            redis_url=redis.url,
            render="never",
            webhook_secret=SECRET,
        )
        async with (
            AsyncSession(settings) as one,
            AsyncSession(settings) as two,
            open_engine(settings) as first_engine,
            open_engine(settings) as second_engine,
        ):
            first = Pages(one, Jobs(first_engine, settings))
            second = Pages(two, Jobs(second_engine, settings))
            options = {"max_pages": 1, "webhook": receiver.url}
            job = (await first.start("client:me", site.origin + "/", options))["id"]
            ended = await asyncio.gather(
                first.jobs.finish(job, "done"),
                second.jobs.finish(job, "done"),
                second.jobs.finish(job, "cancelled"),
            )
            await first.aclose()
            await second.aclose()
    assert sorted(ended) == [False, False, True]
    (post,) = receiver.posts
    assert verified(post)["status"] == ["done", "done", "cancelled"][ended.index(True)]


def test_the_secret_is_masked_in_config_show() -> None:
    from sleuth.config import describe

    settings = Settings(webhook_secret=SECRET)
    (shown,) = [value for name, value, _ in describe(settings) if name == "webhook_secret"]
    assert SECRET not in shown
    assert shown.endswith("******")


async def test_an_instance_without_the_secret_sends_nothing_and_says_so(
    delivered: Delivered,
) -> None:
    """A process set up unlike the one that took the job cannot sign: it sends nothing
    rather than an unsigned POST, and logs the error ``crawl_webhook_unsigned``."""
    with receiving() as receiver:
        web = _web(receiver)
        try:
            assert not await webhook.deliver(web, None, receiver.url, _record())
        finally:
            await web.aclose()
    assert receiver.posts == []
    assert delivered.others == [("crawl_webhook_unsigned", logging.ERROR)]


async def test_a_receiver_dripping_its_answer_holds_nothing() -> None:
    """Only the answer's status is read: a receiver that sends its body a byte at a time
    has not finished answering when the delivery is over."""
    drip = threading.Event()
    with receiving(drip=drip) as receiver:
        web = _web(receiver)
        try:
            assert await webhook.deliver(web, SECRET, receiver.url, _record())
            assert receiver.answered == 0  # its body is still being dripped
        finally:
            drip.set()
            await web.aclose()
    assert len(receiver.posts) == 1


async def test_each_attempt_ends_at_the_fetch_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A receiver that never answers holds each attempt no longer than the fetch deadline
    (far below the read timeout), and the attempts stay bounded."""
    monkeypatch.setattr(webhook, "BACKOFF", 0.0)
    hold = threading.Event()
    with receiving(hold=hold) as receiver:
        settings = Settings(  # type: ignore[call-arg]
            allow_hosts=[f"127.0.0.1:{receiver.port}"],
            cache="memory",
            fetch_deadline=0.2,
            read_timeout=300,
        )
        web = Web(settings, MemoryCache())
        try:
            assert not await webhook.deliver(web, SECRET, receiver.url, _record())
            assert receiver.answered == 0
        finally:
            hold.set()
            await web.aclose()
    assert len(receiver.posts) == webhook.ATTEMPTS


async def test_closing_waits_for_a_webhook_only_the_shutdown_grace(
    site: Site, delivered: Delivered, monkeypatch: pytest.MonkeyPatch
) -> None:
    never = asyncio.Event()  # a delivery that would not end on its own

    async def stuck(*args: Any) -> bool:
        await never.wait()
        return True

    monkeypatch.setattr(webhook, "deliver", stuck)
    tree_site(site, 1)
    settings = Settings(  # type: ignore[call-arg]
        allow_hosts=[f"127.0.0.1:{site.port}"],
        cache="memory",
        render="never",
        webhook_secret=SECRET,
        shutdown_grace=0,
    )
    async with AsyncSession(settings) as session, open_engine(settings) as docket:
        pages = Pages(session, Jobs(docket, settings))
        options = {"max_pages": 1, "webhook": "http://127.0.0.1:9/hook"}
        job = (await pages.start("client:me", site.origin + "/", options))["id"]
        assert await pages.jobs.finish(job, "done")
        async with asyncio.timeout(30):  # a safety net only: it returns at once
            await pages.aclose()
    assert not never.is_set()
    assert delivered.others == [("crawl_webhook_dropped", logging.ERROR)]

"""Crawl jobs over HTTP: start, page through, cancel, and the per-caller limits."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sitegen import page, tree_site
from starlette.testclient import TestClient

from loopback import Site
from sleuth import log
from sleuth.config import Settings
from sleuth.errors import Ref, UsageError
from sleuth.server.app import create_app


@pytest.fixture
def make_client(site: Site) -> Iterator[Any]:
    opened: list[TestClient] = []

    def make(**extra: Any) -> TestClient:
        settings = Settings(  # type: ignore[call-arg]
            allow_hosts=[f"127.0.0.1:{site.port}"],
            cache="memory",
            render="never",
            **extra,
        )
        client = TestClient(create_app(settings), base_url="http://127.0.0.1:8080")
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)
    log.configure()


def wait_for(client: TestClient, job: str, status: str) -> dict[str, Any]:
    """Ask until the job reports ``status`` (each ask is a real request), at most 30 s."""
    give_up = time.monotonic() + 30
    while time.monotonic() < give_up:
        reply = client.get(f"/api/v1/crawl/{job}", params={"limit": 100}).json()
        if reply["status"] == status:
            return dict(reply)
        threading.Event().wait(0.05)
    raise AssertionError(f"job {job} never reached {status}")


def test_a_job_runs_and_its_pages_come_in_pages(site: Site, make_client: Any) -> None:
    tree_site(site, 8, fanout=3)
    client = make_client()
    started = client.post("/api/v1/crawl", json={"url": site.origin, "max_pages": 5})
    assert started.status_code == 202
    job = started.json()["id"]
    assert started.json()["location"] == f"/api/v1/crawl/{job}"
    done = wait_for(client, job, "done")
    assert done["pages"] == 5
    assert done["errors"] == 0
    first = client.get(f"/api/v1/crawl/{job}", params={"limit": 2}).json()
    assert [item["depth"] for item in first["items"]] == [0, 1]
    assert first["next_cursor"] == 2
    rest = client.get(f"/api/v1/crawl/{job}", params={"cursor": 2, "limit": 10}).json()
    assert len(rest["items"]) == 3
    assert rest["next_cursor"] is None
    urls = {item["url"] for item in first["items"] + rest["items"]}
    assert len(urls) == 5
    assert "owner" not in rest
    late = client.delete(f"/api/v1/crawl/{job}")  # an ended job stays as it ended
    assert (late.status_code, late.json()["status"]) == (200, "done")
    assert wait_for(client, job, "done")["pages"] == 5


def _until(check: Any, what: str) -> Any:
    """Ask ``check`` until it answers (each ask reads real state), at most 30 s."""
    give_up = time.monotonic() + 30
    while time.monotonic() < give_up:
        found = check()
        if found:
            return found
        threading.Event().wait(0.05)
    raise AssertionError(f"never: {what}")


def test_a_job_past_its_deadline_ends_once_the_page_being_read_is_in(
    site: Site, make_client: Any
) -> None:
    stall = threading.Event()
    children = ["/held"] + [f"/k{n}" for n in range(20)]  # more than the deadline allows
    site.add("/", page("Home", 0, children))
    site.add("/held", page("Held", 1, []), stall=stall)
    for n in range(20):
        site.add(f"/k{n}", page(f"K{n}", 2 + n, []))
    client = make_client(crawl_job_deadline=3.0)
    job = client.post("/api/v1/crawl", json={"url": site.origin}).json()["id"]

    def read() -> dict[str, Any]:
        return dict(client.get(f"/api/v1/crawl/{job}", params={"limit": 100}).json())

    try:
        _until(lambda: "/held" in site.paths(), "the held page is asked for")
        late = _until(
            lambda: (found := read())["notes"] and "deadline" in found["notes"][-1] and found,
            "a page sees the deadline",
        )
        # Past the deadline, but a page is still being read: the job has not ended.
        assert late["status"] == "running"
        assert site.origin + "/held" not in {item["url"] for item in late["items"]}
    finally:
        stall.set()
    done = wait_for(client, job, "done")
    assert done["next_cursor"] is None
    urls = [item["url"] for item in done["items"]]
    assert site.origin + "/held" in urls  # the page that landed last is in the record
    assert done["pages"] == len(urls) < 1 + len(children)


def test_limits_per_caller_and_cancel(site: Site, make_client: Any) -> None:
    stall = threading.Event()
    site.add("/", page("Home", 0, ["/a"]), stall=stall)
    client = make_client(crawl_jobs_per_token=1, crawl_job_max_pages=50)
    try:
        too_big = client.post("/api/v1/crawl", json={"url": site.origin, "max_pages": 51})
        assert too_big.status_code == 400
        impolite = client.post("/api/v1/crawl", json={"url": site.origin, "delay": 0})
        assert impolite.status_code == 400
        reply = client.post("/api/v1/crawl", json={"url": site.origin})
        assert reply.status_code == 202, reply.text
        job = reply.json()["id"]
        second = client.post("/api/v1/crawl", json={"url": site.origin})
        assert second.status_code == 429
        cancelled = client.delete(f"/api/v1/crawl/{job}")
        assert cancelled.status_code == 200
        assert cancelled.json()["status"] == "cancelled"
    finally:
        stall.set()
    wait_for(client, job, "cancelled")
    again = client.post("/api/v1/crawl", json={"url": site.origin})
    assert again.status_code == 202  # the cancelled job no longer counts
    assert client.get("/api/v1/crawl/nope").status_code == 404


def test_a_refused_start_url_starts_no_job_and_keeps_no_slot(site: Site, make_client: Any) -> None:
    site.add("/", page("Home", 0, []))
    client = make_client(crawl_jobs_per_token=1)
    with_userinfo = site.origin.replace("://", "://someone@")  # the crawl's scope refuses it
    for _ in range(3):
        refused = client.post("/api/v1/crawl", json={"url": with_userinfo})
        assert refused.status_code == 400, refused.text
    reply = client.post("/api/v1/crawl", json={"url": site.origin})
    assert reply.status_code == 202, reply.text  # no refused start holds the one slot
    assert wait_for(client, reply.json()["id"], "done")["pages"] == 1


@pytest.mark.parametrize(
    ("failure", "code", "message"),
    [
        (RuntimeError("a bug"), "internal_error", "the crawl failed unexpectedly"),
        (
            UsageError("widen the {scope}", refs={"scope": Ref("scope")}),
            "usage_error",
            "widen the scope",
        ),
    ],
)
def test_a_job_that_fails_ends_as_failed_in_the_apis_words(
    site: Site,
    make_client: Any,
    monkeypatch: pytest.MonkeyPatch,
    failure: Exception,
    code: str,
    message: str,
) -> None:
    """A failing job ends (it does not stay running until it expires), says why in the
    API's words, and frees its caller's slot for the next job."""
    from sleuth.crawl.crawler import Crawler

    async def failing(self: Crawler, *args: Any) -> Any:
        raise failure

    tree_site(site, 3, fanout=2)
    monkeypatch.setattr(Crawler, "_process", failing)  # a page's reading, wherever it runs
    client = make_client(crawl_jobs_per_token=1)
    first = client.post("/api/v1/crawl", json={"url": site.origin}).json()["id"]
    failed = wait_for(client, first, "failed")
    assert failed["error"]["code"] == code
    assert failed["error"]["message"].startswith(message)
    assert "--" not in failed["error"]["message"]
    second = client.post("/api/v1/crawl", json={"url": site.origin})
    assert second.status_code == 202  # the failed job gave its slot back


def test_several_processes_without_redis_run_no_job_and_say_why(site: Site, tmp_path: Any) -> None:
    # Each process's engine would be its own: a job another process could not read.
    settings = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}"], cache="file", cache_dir=tmp_path, render="never"
    )
    app = create_app(settings, processes=2)
    with TestClient(app, base_url="http://127.0.0.1:8080") as client:
        started = client.post("/api/v1/crawl", json={"url": site.origin})
        read = client.get("/api/v1/crawl/some-job")
        fetched = client.post("/api/v1/fetch", json={"url": site.origin + "/nothing"})
    log.configure()
    for reply in (started, read):
        assert reply.status_code == 503, reply.text
        assert reply.json()["code"] == "CONFIG_ERROR"
        assert "needs the Redis" in reply.json()["error"]
    assert fetched.status_code != 503  # the rest of the API is served as ever
    assert site.paths().count("/") == 0

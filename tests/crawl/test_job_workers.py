"""Crawl jobs on the task engine, with real processes: ``sleuth serve`` instances and
``sleuth worker``s on one real ``redis-server``, crawling a loopback site.

A process is killed with SIGKILL while it reads a page that stalls (the site holds the
answer until the test lets it go), so the test knows what the dead process held. Every
wait is for an event: a line on a process's stderr, a request in the site's log, a job's
status read from a server.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sitegen import tree_site

from loopback import Site
from redis_server import RedisServer, running_redis
from server.harness import TOKEN, ServerProcess, stop_quietly
from sleuth.jobs.worker import NO_SECRET

pytestmark = pytest.mark.redis

WORKER_READY = "sleuth: worker ready on "
LEASE = "2"  # seconds: a dead worker's page comes back this soon


class WorkerProcess(ServerProcess):
    """One ``sleuth worker``, read as a server is; ``wait_ready`` once it takes pages."""

    def __init__(self, env: dict[str, str]) -> None:
        super().__init__(env, command="worker")

    def wait_ready(self, timeout: float = 60) -> WorkerProcess:
        self.wait_line(WORKER_READY, timeout)
        return self


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    with running_redis() as server:
        yield server


@pytest.fixture
def env(site: Site, redis: RedisServer, tmp_path: Path) -> dict[str, str]:
    return {
        "SLEUTH_ALLOW_HOSTS": "127.0.0.1",
        "SLEUTH_ALLOW_PORTS": str(site.port),
        "SLEUTH_CACHE": "redis",
        "SLEUTH_REDIS_URL": redis.url,
        "SLEUTH_RENDER": "never",
        "SLEUTH_API_TOKENS": TOKEN,
        "SLEUTH_WORKER_LEASE": LEASE,
        "SLEUTH_SHUTDOWN_GRACE": "1",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }


@pytest.fixture
def serve(env: dict[str, str]) -> Iterator[Callable[..., ServerProcess]]:
    started: list[ServerProcess] = []

    def start(**extra: str) -> ServerProcess:
        server = ServerProcess({**env, **extra})
        started.append(server)
        return server.wait_ready()

    yield start
    for server in started:
        stop_quietly(server)


@pytest.fixture
def worker(env: dict[str, str]) -> Iterator[Callable[[], WorkerProcess]]:
    started: list[WorkerProcess] = []

    def start() -> WorkerProcess:
        process = WorkerProcess(env)
        started.append(process)
        return process.wait_ready()

    yield start
    for process in started:
        process.stop()


def pages_requested(site: Site) -> list[str]:
    return [path for path in site.paths() if path != "/robots.txt"]


def wait_until(what: str, check: Callable[[], Any], timeout: float = 60) -> Any:
    """Ask ``check`` (a real request each time, or the site's log) until it answers."""
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        found = check()
        if found:
            return found
        threading.Event().wait(0.05)
    raise AssertionError(f"never happened: {what}")


def job_reaching(server: ServerProcess, job: str, status: str) -> dict[str, Any]:
    def look() -> dict[str, Any] | None:
        reply: dict[str, Any] = server.get(f"/api/v1/crawl/{job}", params={"limit": 100}).json()
        return reply if reply["status"] == status else None

    found: dict[str, Any] = wait_until(f"job {job} {status}", look)
    return found


def start_job(server: ServerProcess, site: Site, pages: int, path: str = "/") -> str:
    reply = server.post("/api/v1/crawl", {"url": site.origin + path, "max_pages": pages})
    assert reply.status_code == 202, reply.text
    job: str = reply.json()["id"]
    return job


def assert_each_page_once(site: Site, done: dict[str, Any], pages: int) -> Counter[str]:
    """Every page is in the job once; a page requested twice is one the job calls a reread."""
    assert done["pages"] == pages
    urls = [item["url"] for item in done["items"]]
    assert len(urls) == len(set(urls)) == pages
    assert all(item["outcome"] == "ok" for item in done["items"])
    counts = Counter(pages_requested(site))
    assert set(counts.values()) <= {1, 2}, counts
    twice = sorted(path for path, n in counts.items() if n == 2)
    # A request marked as sent may die with its worker before it reaches the site: it
    # counts as a reread, and there are at most two in flight (the job's concurrency).
    assert len(twice) <= done["rereads"] <= 2, (twice, done["rereads"])
    return counts


def test_a_job_survives_a_kill_of_the_server_that_accepted_it(
    site: Site, serve: Callable[..., ServerProcess]
) -> None:
    tree_site(site, 12, fanout=3)
    stall = threading.Event()
    site.routes["/p/2"].stall = stall
    try:
        first = serve()
        job = start_job(first, site, 12)
        wait_until("the first server reads /p/2", lambda: "/p/2" in pages_requested(site))
        first.kill()  # SIGKILL while it holds /p/2 (and whatever else it had)
    finally:
        stall.set()
    second = serve()  # any instance answers for the job, and works it
    done = job_reaching(second, job, "done")
    counts = assert_each_page_once(site, done, 12)
    assert counts["/p/2"] == 2  # read by the dead server, then again
    assert done["rereads"] >= 1


def test_a_job_survives_a_kill_of_one_of_two_workers(
    site: Site,
    serve: Callable[..., ServerProcess],
    worker: Callable[[], WorkerProcess],
) -> None:
    tree_site(site, 12, fanout=3)
    stall = threading.Event()
    site.routes["/p/1"].stall = stall
    api = serve(SLEUTH_SERVE_WORKER="false")  # it only accepts and answers
    doomed = worker()
    # Set up without the webhook secret, it says it could not sign a job's end.
    assert f"{NO_SECRET}\n" in doomed.lines
    try:
        job = start_job(api, site, 12)
        wait_until("the first worker reads /p/1", lambda: "/p/1" in pages_requested(site))
        worker()  # a second one, then the first dies mid-page
        doomed.kill()
    finally:
        stall.set()
    done = job_reaching(api, job, "done")
    counts = assert_each_page_once(site, done, 12)
    assert counts["/p/1"] == 2
    assert done["rereads"] >= 1


def test_cancel_from_the_other_instance_stops_every_worker(
    site: Site,
    serve: Callable[..., ServerProcess],
    worker: Callable[[], WorkerProcess],
) -> None:
    tree_site(site, 40, fanout=4)
    for n in range(5):
        site.add(f"/other/{n}", f"<html><body><p>Other page {n}.</p></body></html>")
    accepting, other = serve(), serve()
    worker()
    worker()
    job = start_job(accepting, site, 40)
    wait_until("five pages read", lambda: len(pages_requested(site)) >= 5)
    cancelled = other.client().delete(f"/api/v1/crawl/{job}")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    seen = len(site.paths())
    # A later job on the same workers runs to its end: the cancelled job's pages would have
    # come before it, and none did.
    later = start_job(other, site, 1, "/other/0")
    job_reaching(other, later, "done")
    after = site.paths()[seen:]
    assert [path for path in after if not path.startswith("/robots.txt")] == ["/other/0"]
    final = job_reaching(accepting, job, "cancelled")
    assert final["pages"] < 40
    assert accepting.client().delete(f"/api/v1/crawl/{job}").json()["status"] == "cancelled"


def test_a_worker_without_redis_is_a_config_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "worker"],
        env={
            **os.environ,
            "SLEUTH_CACHE": "memory",
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 3
    assert done.stderr.startswith("sleuth: error: sleuth worker needs the Redis")
    assert "SLEUTH_REDIS_URL" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_worker_that_cannot_reach_its_redis_says_so_and_is_never_ready(
    tmp_path: Path,
) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # a loopback port that nothing listens on
    port = closed.getsockname()[1]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "sleuth", "worker"],
            env={
                **os.environ,
                "SLEUTH_CACHE": "redis",
                "SLEUTH_REDIS_URL": f"redis://127.0.0.1:{port}/0",
                "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "XDG_CACHE_HOME": str(tmp_path / "cache"),
            },
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        closed.close()
    assert done.returncode == 4  # cache_error
    assert f"cannot reach the Redis at redis://127.0.0.1:{port}/0" in done.stderr
    assert "ready" not in done.stderr
    assert "Traceback" not in done.stderr


def test_the_per_caller_job_limit_holds_across_instances(
    site: Site, serve: Callable[..., ServerProcess]
) -> None:
    tree_site(site, 3, fanout=2)
    stall = threading.Event()
    site.routes["/"].stall = stall
    try:
        first, second = (serve(SLEUTH_CRAWL_JOBS_PER_TOKEN="1") for _ in range(2))
        job = start_job(first, site, 3)
        refused = second.post("/api/v1/crawl", {"url": site.origin + "/", "max_pages": 3})
        assert refused.status_code == 429
        assert refused.json()["code"] == "TOO_MANY_REQUESTS"
        assert second.client().delete(f"/api/v1/crawl/{job}").json()["status"] == "cancelled"
    finally:
        stall.set()
    assert start_job(second, site, 1, "/p/1")  # the cancelled job gave its slot back

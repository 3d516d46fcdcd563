"""A crawl killed with SIGKILL resumes; two workers on one Redis share a crawl.

Real ``sleuth crawl`` processes, a real loopback site that counts requests per path and
a real ``redis-server``; the kill is triggered by what the server has served. With the
file cache a crawl resumes from its state there; on Redis it is a job on the task engine,
which each ``sleuth crawl`` process works.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from sitegen import page

from loopback import Site, serve
from redis_server import running_redis

PAGES = 30


class CountingSite:
    """A 30-page tree whose handler counts page requests and can hold one of them."""

    def __init__(self, site: Site, hold_at: int | None = None) -> None:
        self.site = site
        self.counts: Counter[str] = Counter()
        self.reached = threading.Event()
        self.hold_at = hold_at
        self._lock = threading.Lock()
        paths = ["/"] + [f"/p/{n}" for n in range(1, PAGES)]
        for n, path in enumerate(paths):
            children = [paths[c] for c in range(n * 3 + 1, n * 3 + 4) if c < PAGES]
            site.add(path, handler=self._handler(page(f"Page {n}", n, children).encode()))

    def _handler(self, body: bytes):  # type: ignore[no-untyped-def]
        def handle(request: BaseHTTPRequestHandler) -> None:
            with self._lock:
                self.counts[request.path] += 1
                served = sum(self.counts.values())
            if served == self.hold_at:
                self.reached.set()
                self.site.release.wait(30)  # held until the test has killed the crawler
            request.send_response(200)
            request.send_header("Content-Type", "text/html")
            request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            request.wfile.write(body)

        return handle


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running


def command(site: Site, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sleuth",
        "crawl",
        site.origin + "/",
        "--json",
        "--max-pages",
        "20",
        "--delay",
        "0",
        "--concurrency",
        "1",
        *extra,
    ]


def resumed(site: Site, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``sleuth crawl --resume`` of the test's crawl, run to its end."""
    return subprocess.run(
        command(site, "--resume"), env=env, capture_output=True, text=True, timeout=120, check=False
    )


def environment(site: Site, **values: str) -> dict[str, str]:
    return {
        **os.environ,
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}",
        "SLEUTH_RENDER": "never",
        **values,
    }


def urls(output: str) -> list[str]:
    return [json.loads(line)["url"] for line in output.splitlines() if line.strip()]


def test_resume_after_kill_9_prints_only_new_records(site: Site, tmp_path: Path) -> None:
    counting = CountingSite(site, hold_at=8)
    env = environment(site, SLEUTH_CACHE="file", SLEUTH_CACHE_DIR=str(tmp_path / "cache"))
    first = subprocess.Popen(command(site), env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert counting.reached.wait(60), "the crawl never reached its 8th page"
        first.send_signal(signal.SIGKILL)
        printed_before, _ = first.communicate(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
        site.release.set()
    before = urls(printed_before)
    assert len(before) == 7  # pages 1-7 printed; the 8th was in flight
    second = resumed(site, env)
    assert second.returncode == 0, second.stderr
    after = urls(second.stdout)
    assert not set(before) & set(after)
    assert len(before) + len(after) == 20  # --max-pages counts both runs
    assert len(set(before + after)) == 20
    # read again: only the page in flight at the kill (its request was held)
    rereads = [path for path, n in counting.counts.items() if n > 1]
    assert len(rereads) <= 1, counting.counts
    assert not {site.origin + path for path in rereads} & set(before)


def live_workers(redis_url: str) -> int:
    """The engine's workers registered in Redis now: what the test waits on before it lets
    the site answer, so both processes work the crawl before its first page is read."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        return sum(int(client.zcard(key)) for key in client.scan_iter(match="sleuth-jobs*workers"))
    finally:
        client.close()


def test_two_workers_on_one_redis_read_each_page_once(site: Site) -> None:
    counting = CountingSite(site, hold_at=1)  # the start page waits for both workers
    with running_redis() as redis:
        env = environment(site, SLEUTH_CACHE="redis", SLEUTH_REDIS_URL=redis.url)
        extra = ("--max-pages", "100", "--delay", "0.05", "--concurrency", "2")
        workers = [
            subprocess.Popen([*command(site), *extra], env=env, stdout=subprocess.PIPE, text=True)
        ]
        printed: list[str] = ["", ""]
        readers: list[threading.Thread] = []
        try:
            assert counting.reached.wait(60), "the first worker never asked for the start page"
            joined = [*command(site, "--resume"), *extra]
            workers.append(subprocess.Popen(joined, env=env, stdout=subprocess.PIPE, text=True))
            for n, worker in enumerate(workers):

                def read(n: int = n, worker: subprocess.Popen[str] = worker) -> None:
                    printed[n] = worker.stdout.read()  # type: ignore[union-attr]

                readers.append(threading.Thread(target=read))
                readers[-1].start()
            while live_workers(redis.url) < 2 and workers[1].poll() is None:
                threading.Event().wait(0.02)
            site.release.set()
            for worker in workers:
                worker.wait(timeout=120)
            for reader in readers:
                reader.join(timeout=30)
        finally:
            site.release.set()
            for worker in workers:
                if worker.poll() is None:
                    worker.kill()
    assert [worker.returncode for worker in workers] == [0, 0]
    assert max(counting.counts.values()) == 1, counting.counts
    assert len(counting.counts) == PAGES
    one, two = urls(printed[0]), urls(printed[1])
    assert len(one) + len(two) == PAGES
    assert not set(one) & set(two)
    assert two, "the second worker took no share"


def crawl_jobs(redis_url: str) -> dict[str, dict[str, str]]:
    """The CLI's crawl jobs in the engine's store: each job's id and its record's fields."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = [
            key for key in client.scan_iter(match="sleuth:crawljob:cli-*") if key.count(":") == 2
        ]
        return {key.split(":")[2]: client.hgetall(key) for key in keys}
    finally:
        client.close()


def engine_env(site: Site, redis_url: str) -> dict[str, str]:
    # A dead process's pages come back to another worker this many seconds after it died.
    return environment(
        site, SLEUTH_CACHE="redis", SLEUTH_REDIS_URL=redis_url, SLEUTH_WORKER_LEASE="2"
    )


def test_on_redis_a_resume_finishes_a_killed_crawl_reading_only_its_held_page_twice(
    site: Site,
) -> None:
    counting = CountingSite(site, hold_at=8)
    with running_redis() as redis:
        env = engine_env(site, redis.url)
        first = subprocess.Popen(command(site), env=env, stdout=subprocess.PIPE, text=True)
        before: list[str] = []
        try:
            assert counting.reached.wait(60), "the crawl never reached its 8th page"
            assert first.stdout is not None
            while len(before) < 7:  # pages 1-7 are in; the 8th is held at the site
                line = first.stdout.readline()
                assert line, "the first crawl ended before printing 7 pages"
                before.append(json.loads(line)["url"])
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            if first.poll() is None:
                first.kill()
            site.release.set()
        second = resumed(site, env)
        jobs = crawl_jobs(redis.url)
    assert second.returncode == 0, second.stderr
    # One job, both processes' pages: the engine's record counts the held page's reread.
    [(job, record)] = jobs.items()
    assert job.startswith("cli-")
    assert (record["final"], record["pages"], record["rereads"]) == ("done", "20", "1")
    after = urls(second.stdout)
    assert not set(before) & set(after)
    assert len(before) + len(after) == 20  # --max-pages counts both processes
    assert len(set(before + after)) == 20
    held = [path for path, n in counting.counts.items() if n > 1]
    assert len(held) == 1, counting.counts  # the page the dead process held, and no other
    assert counting.counts[held[0]] == 2
    assert site.origin + held[0] in after
    assert len(counting.counts) == 20


def test_on_redis_a_crawl_without_resume_reads_again_and_with_it_reads_nothing_new(
    site: Site, tmp_path: Path
) -> None:
    counting = CountingSite(site)
    llms = tmp_path / "llms.txt"
    with running_redis() as redis:
        env = engine_env(site, redis.url)
        runs = [
            subprocess.run(
                command(site, *extra, "--max-pages", "5"),
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            for extra in ((), (), ("--resume", "--llms-txt", str(llms)))
        ]
        jobs = crawl_jobs(redis.url)
    assert [run.returncode for run in runs] == [0, 0, 0], [run.stderr for run in runs]
    first, again, resumed = (urls(run.stdout) for run in runs)
    assert len(first) == len(set(first)) == 5
    assert sorted(again) == sorted(first)  # a new generation: the crawl starts afresh
    assert resumed == []  # the current generation has ended: nothing left to read
    # ... and its llms.txt still lists every page of the crawl
    listed = [url for url in first if f"]({url})" in llms.read_text()]
    assert sorted(listed) == sorted(first)
    # Two generations, each its own job, each done with its five pages.
    assert len(jobs) == 2
    assert {(record["final"], record["pages"]) for record in jobs.values()} == {("done", "5")}
    # The second crawl read its pages again, from the page cache the first one filled.
    assert len(counting.counts) == 5
    assert set(counting.counts.values()) == {1}, counting.counts


QUEUE_A_SERVER_JOB = """
import asyncio, sys
from sleuth.config import Settings
from sleuth.jobs.crawljob import Pages
from sleuth.jobs.engine import open_engine
from sleuth.jobs.store import Jobs
from sleuth.session import AsyncSession

async def main() -> None:
    settings = Settings(
        cache="redis", redis_url=sys.argv[1], render="never", allow_hosts=[sys.argv[3]]
    )
    async with AsyncSession(settings) as session, open_engine(settings) as docket:
        pages = Pages(session, Jobs(docket, settings))
        record = await pages.start("client:someone", sys.argv[2], {"max_pages": 2, "delay": 0.25})
        await pages.aclose()
        print(record["id"])

asyncio.run(main())
"""


def test_on_redis_a_crawl_takes_no_page_of_another_job(site: Site) -> None:
    """The process's worker serves its own crawl's queue: a server's job (another caller's,
    with another guard) waiting for a worker is not read by ``sleuth crawl``."""
    import redis as redis_client

    counting = CountingSite(site)
    site.add("/elsewhere", page("Elsewhere", 99, []))
    with running_redis() as redis:
        queued = subprocess.run(  # a server's job, queued; no server runs a worker
            [
                sys.executable,
                "-c",
                QUEUE_A_SERVER_JOB,
                redis.url,
                site.origin + "/elsewhere",
                f"127.0.0.1:{site.port}",
            ],
            env=environment(site),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        other = queued.stdout.strip()
        done = subprocess.run(
            command(site),
            env=engine_env(site, redis.url),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        jobs = crawl_jobs(redis.url)
        client = redis_client.Redis.from_url(redis.url, decode_responses=True)
        try:
            waiting = client.hget(f"sleuth:crawljob:{other}", "final")
            exists = client.exists(f"sleuth:crawljob:{other}")
        finally:
            client.close()
    assert done.returncode == 0, done.stderr
    assert len(urls(done.stdout)) == 20
    assert "/elsewhere" not in site.paths()  # the other job's page was never read
    assert exists  # ... and that job still waits for a worker of its own
    assert waiting is None
    assert len(jobs) == 1
    assert len(counting.counts) == 20


def test_on_redis_a_crawl_stopped_with_ctrl_c_loses_no_page_to_its_resume(site: Site) -> None:
    counting = CountingSite(site, hold_at=8)
    with running_redis() as redis:
        env = engine_env(site, redis.url)
        first = subprocess.Popen(command(site), env=env, stdout=subprocess.PIPE, text=True)
        try:
            assert counting.reached.wait(60), "the crawl never reached its 8th page"
            first.send_signal(signal.SIGINT)
            printed_before, _ = first.communicate(timeout=60)
        finally:
            if first.poll() is None:
                first.kill()
            site.release.set()
        second = resumed(site, env)
    before, after = urls(printed_before), urls(second.stdout)
    assert first.returncode != 0  # interrupted
    assert second.returncode == 0, second.stderr
    assert not set(before) & set(after)
    assert len(set(before + after)) == 20  # every page printed by one run or the other

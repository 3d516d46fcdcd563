"""Crawl benchmark: pages/s of ``sleuth crawl`` on a generated loopback site of 1,000 pages.

Usage::

    .venv/bin/python bench/crawl.py [--pages 1000] [--delay 0.001]

The site runs in a child process (its own GIL), a tree of pages ten links wide, each a
short article with distinct text. Politeness is tested, not benched: the minimum delay
between requests to the host is set near zero, so the ideal the settings allow is
``1 / delay`` pages/s, and per-host concurrency is the knob. In one run it prints:

* a crawl at per-host concurrency 1, 2 and 8 (memory cache, cold each time), against
  the ideal ``1 / delay`` and against a baseline measured in the same run: the same
  pages read by ``Fetcher.fetch`` alone, without the crawl's frontier, politeness or
  link following, at the same concurrency;
* the concurrency-2 crawl again from the warm cache it filled (no request reaches the
  site);
* ``sleuth crawl`` processes on one real ``redis-server``: one worker, then two (the
  second is the same command with ``--resume``), wall time from start to the last exit.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = [
    "harbour",
    "lamp",
    "keeper",
    "logbook",
    "storm",
    "tide",
    "coast",
    "beacon",
    "signal",
    "ledger",
    "channel",
    "vessel",
    "lantern",
    "reef",
    "current",
    "chart",
    "compass",
    "anchor",
    "pier",
    "gull",
]


def _page(n: int, pages: int, fanout: int) -> bytes:
    children = [c for c in range(n * fanout + 1, n * fanout + fanout + 1) if c < pages]
    links = " ".join(f'<a href="/p/{c}">Page {c}</a>' for c in children)
    paragraphs = "".join(
        "<p>"
        + " ".join(
            f"Entry {n}-{k}-{s} records the "
            + " ".join(WORDS[(n * 7 + k * 3 + s * 5 + w) % len(WORDS)] for w in range(10))
            + "."
            for s in range(4)
        )
        + "</p>"
        for k in range(3)
    )
    return (
        f"<!doctype html><html><head><title>Page {n}</title></head><body>"
        f"<nav>{links}</nav><article><h1>Page {n}</h1>{paragraphs}</article></body></html>"
    ).encode()


def serve(port_file: str, pages: int, fanout: int) -> None:
    """The site, in its own process: ``/`` is page 0, ``/p/N`` page N."""
    bodies = {("/" if n == 0 else f"/p/{n}"): _page(n, pages, fanout) for n in range(pages)}
    bodies["/robots.txt"] = b"User-agent: *\nAllow: /\n"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body in one segment: otherwise Nagle and the client's delayed ACK add
        # 40 ms to every response on loopback and the bench measures the kernel.
        disable_nagle_algorithm = True
        wbufsize = 1 << 16

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            body = bodies.get(self.path)
            self.send_response(200 if body is not None else 404)
            kind = "text/plain" if self.path == "/robots.txt" else "text/html; charset=utf-8"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    Path(port_file).write_text(str(server.server_address[1]))
    server.serve_forever()


@contextmanager
def site(pages: int, fanout: int) -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "port"
        process = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(port_file), "--pages", str(pages)]
        )
        try:
            while not port_file.exists() or not port_file.read_text():
                if process.poll() is not None:
                    sys.exit("the loopback site did not start")
                time.sleep(0.02)
            yield f"http://127.0.0.1:{port_file.read_text()}"
        finally:
            process.terminate()
            process.wait()


@contextmanager
def redis() -> Iterator[str]:
    sys.path.insert(0, str(ROOT / "tests"))
    from redis_server import running_redis

    with running_redis() as server:
        yield server.url


def settings(origin: str, **extra: object) -> object:
    from sleuth.config import Settings

    port = origin.rsplit(":", 1)[1]
    return Settings(
        allow_hosts=[f"127.0.0.1:{port}"],
        cache="memory",
        render="never",
        memory_cache_entries=10_000,
        **extra,  # type: ignore[arg-type]
    )


async def crawl_rate(
    origin: str, pages: int, concurrency: int, delay: float, cache: object
) -> tuple[int, float]:
    from sleuth.crawl.crawler import CrawlOptions
    from sleuth.crawl.run import CrawlRun
    from sleuth.web import Web

    options = CrawlOptions(max_pages=pages, max_depth=10, concurrency=concurrency, delay=delay)
    started = time.perf_counter()
    async with (
        Web(settings(origin), cache) as web,  # type: ignore[arg-type]
        CrawlRun(web, origin, options) as run,
    ):
        count = sum([1 async for record in run if record["outcome"] == "ok"])
    return count, time.perf_counter() - started


async def fetch_rate(origin: str, pages: int, concurrency: int) -> tuple[int, float]:
    """The baseline: the same pages through the one fetch path, nothing else."""
    from sleuth.cache import MemoryCache
    from sleuth.web import Web

    urls = [origin + "/"] + [f"{origin}/p/{n}" for n in range(1, pages)]
    gate = asyncio.Semaphore(concurrency)
    started = time.perf_counter()
    async with Web(
        settings(origin, max_concurrent_fetches=concurrency), MemoryCache(10_000)
    ) as web:
        fetcher = web.fetcher

        async def one(url: str) -> bool:
            async with gate:
                return (await fetcher.fetch(url)).ok

        done = await asyncio.gather(*(one(url) for url in urls))
    return sum(done), time.perf_counter() - started


def cli_workers(
    origin: str, redis_url: str, pages: int, workers: int, delay: float
) -> tuple[int, float]:
    port = origin.rsplit(":", 1)[1]
    env = {
        **os.environ,
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{port}",
        "SLEUTH_CACHE": "redis",
        "SLEUTH_REDIS_URL": redis_url,
        "SLEUTH_RENDER": "never",
    }
    base = [sys.executable, "-m", "sleuth", "crawl", origin, "--max-pages", str(pages)]
    base += ["--max-depth", "10", "--delay", str(delay), "--concurrency", "4"]
    tag = f"/no-such-path-{workers}/*"  # another --exclude names another crawl: cold state
    started = time.perf_counter()
    first = subprocess.Popen([*base, "--exclude", tag], env=env, stdout=subprocess.PIPE, text=True)
    others = []
    lines = 0
    if workers > 1:
        # The others join once the first has started the crawl: its first record says so.
        assert first.stdout is not None
        lines += bool(first.stdout.readline())
        for _ in range(workers - 1):
            others.append(
                subprocess.Popen(
                    [*base, "--exclude", tag, "--resume"],
                    env=env,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
    for process in [first, *others]:
        out, _ = process.communicate()
        lines += len(out.splitlines())
    return lines, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=0.001)
    parser.add_argument("--serve", metavar="PORT_FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    fanout = 10
    if args.serve:
        serve(args.serve, args.pages, fanout)
        return
    from sleuth.cache import MemoryCache

    ideal = 1 / args.delay if args.delay > 0 else float("inf")
    rows: list[tuple[str, int, float, str]] = []
    with site(args.pages, fanout) as origin:
        # One unmeasured run of each first: the first use of sleuth's code paths (imports,
        # compiled patterns) is paid here, not by whichever row comes first.
        asyncio.run(fetch_rate(origin, min(args.pages, 5), 1))
        asyncio.run(crawl_rate(origin, min(args.pages, 5), 1, args.delay, MemoryCache(100)))
        for concurrency in (1, 2, 8):
            base_count, base_time = asyncio.run(fetch_rate(origin, args.pages, concurrency))
            cache = MemoryCache(10_000)
            count, seconds = asyncio.run(
                crawl_rate(origin, args.pages, concurrency, args.delay, cache)
            )
            rate, base_rate = count / seconds, base_count / base_time
            rows.append(
                (
                    f"crawl, concurrency {concurrency}",
                    count,
                    rate,
                    f"{rate / ideal:.2f} of ideal {ideal:,.0f}/s; "
                    f"{rate / base_rate:.2f}x fetch alone ({base_rate:.0f}/s)",
                )
            )
            if concurrency == 2:
                cold = rate
                count, seconds = asyncio.run(crawl_rate(origin, args.pages, 2, args.delay, cache))
                rows.append(
                    (
                        "crawl, warm cache, conc. 2",
                        count,
                        count / seconds,
                        f"{count / seconds / cold:.1f}x the cold crawl",
                    )
                )
        with redis() as redis_url:
            one_count, one_time = cli_workers(origin, redis_url, args.pages, 1, args.delay)
            two_count, two_time = cli_workers(origin, redis_url, args.pages, 2, args.delay)
            rows.append(
                ("sleuth crawl, 1 worker, redis", one_count, one_count / one_time, "baseline")
            )
            rows.append(
                (
                    "sleuth crawl, 2 workers, redis",
                    two_count,
                    two_count / two_time,
                    f"{(two_count / two_time) / (one_count / one_time):.2f}x one worker",
                )
            )
    width = max(len(row[0]) for row in rows)
    print(f"{'run':<{width}}  {'pages':>6}  {'pages/s':>8}  vs")
    for name, count, rate, note in rows:
        print(f"{name:<{width}}  {count:>6}  {rate:>8.1f}  {note}")
    print(
        f"({socket.gethostname()}: {os.cpu_count()} cores; "
        f"site of {args.pages} pages, delay {args.delay}s)"
    )


if __name__ == "__main__":
    main()

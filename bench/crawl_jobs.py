"""Crawl jobs bench: pages/s of HTTP crawl jobs read by 1, 2 and 4 ``sleuth worker``s on one
``redis-server``, against the politeness bound, and what a worker killed mid-crawl costs.

Usage::

    .venv/bin/python bench/crawl_jobs.py [--hosts 8] [--pages 40] [--delay 0.25]

A loopback site runs in a child process on ``--hosts`` ports (each port is a host to the
crawl's politeness), each a tree of ``--pages`` pages. One ``sleuth serve`` accepts a job
per host (``SLEUTH_SERVE_WORKER=false``: it reads nothing itself) and the workers read
them. A host takes at most one request per ``--delay`` (0.25 s is the least an HTTP job
may ask), so the bound is ``hosts / delay`` pages/s however many workers run. For each
worker count it prints pages/s from the first POST to the last job done, against that
bound. Then, with two workers, one is killed (SIGKILL) once a third of the pages are
read; it prints the share of pages the site served twice, and the jobs' ``rereads``.
Each run has its own ``redis-server``, so no page comes from an earlier run's cache.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token-3c9e1f"
FANOUT = 4


def _page(n: int, pages: int) -> bytes:
    children = [c for c in range(n * FANOUT + 1, n * FANOUT + FANOUT + 1) if c < pages]
    links = " ".join(f'<a href="/p/{c}">Page {c}</a>' for c in children)
    text = " ".join(f"Entry {n}-{k} of the harbour logbook, tide {n * 7 + k}." for k in range(20))
    return (
        f"<!doctype html><html><head><title>Page {n}</title></head><body><nav>{links}</nav>"
        f"<article><h1>Page {n}</h1><p>{text}</p></article></body></html>"
    ).encode()


def serve(port_file: str, hosts: int, pages: int) -> None:
    """The site, in its own process: ``hosts`` servers, ``/__counts`` tells each one's
    requests per path."""
    bodies = {("/" if n == 0 else f"/p/{n}"): _page(n, pages) for n in range(pages)}
    bodies["/robots.txt"] = b"User-agent: *\nAllow: /\n"

    def handler() -> type[BaseHTTPRequestHandler]:
        counts: Counter[str] = Counter()
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/__counts":
                    with lock:
                        body = json.dumps(dict(counts)).encode()
                else:
                    with lock:
                        counts[self.path] += 1
                    body = bodies.get(self.path, b"")
                self.send_response(200 if body else 404)
                self.send_header("Content-Length", str(len(body)))
                kind = "text/plain" if self.path == "/robots.txt" else "text/html"
                self.send_header("Content-Type", kind)
                self.end_headers()
                self.wfile.write(body)

        return Handler

    ports = []
    for _ in range(hosts):
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler())
        server.daemon_threads = True
        ports.append(server.server_address[1])
        threading.Thread(target=server.serve_forever, daemon=True).start()
    Path(port_file).write_text(",".join(map(str, ports)))
    threading.Event().wait()


@contextmanager
def site(hosts: int, pages: int) -> Iterator[list[int]]:
    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "ports"
        command = [sys.executable, __file__, "--serve", str(port_file)]
        process = subprocess.Popen([*command, "--hosts", str(hosts), "--pages", str(pages)])
        try:
            while not port_file.exists() or not port_file.read_text():
                if process.poll() is not None:
                    sys.exit("the loopback site did not start")
                time.sleep(0.02)
            yield [int(port) for port in port_file.read_text().split(",")]
        finally:
            process.terminate()
            process.wait()


class Process:
    """A sleuth process whose stderr is read line by line, to wait for its ready line."""

    def __init__(self, args: list[str], env: dict[str, str], ready: str) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sleuth", *args],
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        while True:
            line = self.lines.get(timeout=60)
            if not line:
                sys.exit(f"sleuth {args[0]} exited before it was ready")
            if line.startswith(ready):
                self.first = line[len(ready) :].split()[0]
                return

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)
        self.lines.put("")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _counts(port: int) -> Counter[str]:
    return Counter(httpx.get(f"http://127.0.0.1:{port}/__counts").json())


def run(
    ports: list[int], workers: int, pages: int, delay: float, kill_at: float | None = None
) -> dict[str, Any]:
    """Jobs for every host, read by ``workers`` workers; with ``kill_at``, one worker is
    killed once that share of the pages is read."""
    sys.path.insert(0, str(ROOT / "tests"))
    from redis_server import running_redis

    with running_redis() as redis, ExitStack() as stack, tempfile.TemporaryDirectory() as home:
        env = {
            "SLEUTH_ALLOW_HOSTS": "127.0.0.1",
            "SLEUTH_ALLOW_PORTS": ",".join(map(str, ports)),
            "SLEUTH_CACHE": "redis",
            "SLEUTH_REDIS_URL": redis.url,
            "SLEUTH_RENDER": "never",
            "SLEUTH_API_TOKENS": TOKEN,
            "SLEUTH_CRAWL_JOBS_PER_TOKEN": str(len(ports)),
            "SLEUTH_SERVE_WORKER": "false",
            "SLEUTH_WORKER_LEASE": "5",
            "XDG_CONFIG_HOME": f"{home}/config",
            "XDG_CACHE_HOME": f"{home}/cache",
        }
        server = Process(["serve", "--port", "0"], env, "sleuth: serving on ")
        stack.callback(server.stop)
        started = [Process(["worker"], env, "sleuth: worker ready on ") for _ in range(workers)]
        for process in started:
            stack.callback(process.stop)
        api = httpx.Client(
            base_url=server.first, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60
        )
        stack.callback(api.close)
        before = {port: _counts(port) for port in ports}  # the site serves every run
        clock = time.perf_counter()
        jobs = []
        for port in ports:
            body = {"url": f"http://127.0.0.1:{port}/", "max_pages": pages, "delay": delay}
            body |= {"concurrency": 1, "max_depth": 20}
            reply = api.post("/api/v1/crawl", json=body)
            reply.raise_for_status()
            jobs.append(reply.json()["id"])
        killed = kill_at is None
        while True:
            states = [api.get(f"/api/v1/crawl/{job}", params={"limit": 1}).json() for job in jobs]
            read = sum(state["pages"] for state in states)
            if not killed and kill_at is not None and read >= kill_at * pages * len(ports):
                started[0].process.kill()
                killed = True
            if all(state["status"] != "running" for state in states):
                break
            time.sleep(0.05)
        seconds = time.perf_counter() - clock
        served: Counter[int] = Counter()
        for port in ports:
            for path, n in (_counts(port) - before[port]).items():
                if path != "/robots.txt":
                    served[n] += 1
        return {
            "pages": read,
            "seconds": seconds,
            "statuses": Counter(state["status"] for state in states),
            "twice": sum(count for n, count in served.items() if n > 1),
            "rereads": sum(state["rereads"] for state in states),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", type=int, default=8)
    parser.add_argument("--pages", type=int, default=40, help="pages per host")
    parser.add_argument("--delay", type=float, default=0.25)
    parser.add_argument("--serve", metavar="PORT_FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.hosts, args.pages)
        return
    bound = args.hosts / args.delay
    rows = []
    with site(args.hosts, args.pages) as ports:
        for workers in (1, 2, 4):
            found = run(ports, workers, args.pages, args.delay)
            rate = found["pages"] / found["seconds"]
            rows.append((f"{workers} worker{'s' * (workers > 1)}", found, rate))
        killed = run(ports, 2, args.pages, args.delay, kill_at=1 / 3)
    width = 28
    print(f"{'run':<{width}}  {'pages':>6}  {'pages/s':>8}  {'of bound':>8}")
    for name, found, rate in rows:
        print(f"{name:<{width}}  {found['pages']:>6}  {rate:>8.1f}  {rate / bound:>8.2f}")
    rate = killed["pages"] / killed["seconds"]
    name = "2 workers, one killed at 1/3"
    print(f"{name:<{width}}  {killed['pages']:>6}  {rate:>8.1f}  {rate / bound:>8.2f}")
    share = killed["twice"] / max(killed["pages"], 1)
    print(
        f"politeness bound: {args.hosts} hosts x 1/{args.delay:g}s = {bound:.1f} pages/s; "
        f"after the kill {killed['twice']} of {killed['pages']} pages were read twice "
        f"({share:.1%}), the jobs report {killed['rereads']} rereads; "
        f"statuses {dict(killed['statuses'])}"
    )
    print(f"({os.cpu_count()} cores; {args.hosts} hosts of {args.pages} pages)")


if __name__ == "__main__":
    main()

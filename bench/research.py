"""Research benchmark: how close ``sleuth research`` gets to its critical path.

Usage::

    .venv/bin/python bench/research.py [--repeat 3] [--deadline 7]

A loopback web runs in a child process (so this process's CPU time is the
pipeline's alone): a SearXNG-compatible ``/search`` that answers after 200-600 ms
and pages that answer after 100 ms - 3 s, some never (until the benchmark ends),
one of them a 3 MB HTML archive. The server is threaded, so latencies overlap.

For each run the benchmark reports the wall time of ``research()`` and its
*critical-path bound*::

    bound = search latency
          + min(slowest needed page, deadline - search latency)
          + CPU time of this process during the run

where the *needed* pages are the pages the digest waited for: every page the
run requested (in these scenarios no page fails, so no spare is ever started
and the requested pages are exactly the first ``max_pages`` results). A
hanging page's latency is infinite, hence capped by the deadline. robots.txt
answers at once and is not counted. Latencies are the server's configured
delays; loopback transfer time is negligible beside them. One unmeasured run
comes first, so module imports do not count as pipeline time. The ratio
wall/bound shows what the pipeline adds beyond waiting and computing
(sequencing, cancellation, cache writes): goal <= 1.15. Warm runs repeat the
same question on the same cache, where search and pages are cached (pages a
cold run missed are fetched first, unmeasured): goal < 50 ms.

Scenarios:

* ``complete``: 4 pages needed (one of them the 3 MB archive); hanging pages
  exist among the results but only as unused spares.
* ``deadline``: a hanging page is among the needed ones; the digest comes
  back at the deadline with what arrived.
* ``late-huge``: the 3 MB archive arrives 0.5-1 s before the deadline, so its
  extraction runs into it. ``overrun`` shows how far past the deadline the
  digest came back: extraction runs on the event loop and cannot be
  interrupted there.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.queues import Queue
from typing import Any

from sleuth.api import AsyncSleuth
from sleuth.cache.memory import MemoryCache
from sleuth.config import Settings
from sleuth.digest import Digest

QUESTION = "How does the Larkspur scheduler retry failed tasks, and how is the backoff configured?"
HANG = -1
SCENARIOS = ("complete", "deadline", "late-huge")
PRIMING_DEADLINE = 120.0

ARTICLES: dict[str, tuple[str, list[str]]] = {
    "manual": (
        "Larkspur manual: retries and backoff",
        [
            "Larkspur retries a failed task up to three times by default. Each retry waits "
            "longer than the one before: the first after two seconds, the second after four, "
            "the third after eight, so a struggling service gets room to recover.",
            "The backoff is configured per task with the retry_policy argument, which takes a "
            "maximum number of attempts, a base delay in seconds and a multiplier. A "
            "multiplier of one turns exponential backoff into a fixed delay.",
            "A random jitter of up to twenty percent is added to every delay, so that many "
            "tasks failing together do not all come back at the same moment and fail again.",
            "Tasks that raise a PermanentError are never retried, whatever their policy says; "
            "use it for input that will not become valid by waiting.",
            "When the last attempt fails, the task moves to the dead-letter queue, where it "
            "stays for seven days unless an operator replays or discards it.",
        ],
    ),
    "blog": (
        "What we learned running Larkspur at scale",
        [
            "We run about two million Larkspur tasks a day, and retries account for a "
            "surprising share of our load whenever a downstream API has a bad afternoon.",
            "The default policy of three retries with doubling delays served us well, but "
            "for payment tasks we lowered the maximum to one attempt and raised the base "
            "delay to thirty seconds, because a duplicate charge costs more than a delay.",
            "Jitter matters more than we expected: before it existed, a failed batch would "
            "come back in lockstep and knock the same service over a second time.",
            "Our advice is to watch the dead-letter queue closely; a task that lands there "
            "usually points to a bug rather than to bad luck.",
        ],
    ),
    "forum": (
        "Re: retry_policy ignored for PermanentError?",
        [
            "This is by design. Larkspur treats PermanentError as a signal that waiting "
            "will not help, so the retry policy is skipped and the task fails at once.",
            "If you want retries for that case, raise a different exception type, or wrap "
            "the call and raise RetryableError with the original as its cause.",
            "You can confirm the behaviour in the task log: permanent failures are logged "
            "with attempts=1 regardless of the configured maximum.",
        ],
    ),
    "release": (
        "Larkspur 4.2 release notes",
        [
            "Larkspur 4.2 adds per-queue default retry policies, so a whole queue can share "
            "a maximum number of attempts and a backoff multiplier without repeating them "
            "on every task.",
            "The scheduler now records the delay chosen for each retry, jitter included, "
            "which makes it possible to audit the backoff after an incident.",
            "Dead-letter retention became configurable; the default stays at seven days.",
        ],
    ),
    "tutorial": (
        "A gentle introduction to task queues",
        [
            "Task queues let a web application hand slow work to background workers and "
            "answer the user right away.",
            "Most schedulers, Larkspur among them, retry failed tasks with a growing delay "
            "between attempts, a technique known as exponential backoff.",
        ],
    ),
    "hang-a": ("Never answers", ["This page never finishes loading."]),
    "hang-b": ("Never answers either", ["This page never finishes loading either."]),
}


def render(title: str, paragraphs: list[str]) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        f"<nav><a href='/'>Home</a> <a href='/docs'>Docs</a></nav>"
        f"<article><h1>{title}</h1>{body}</article><footer>Larkspur project</footer>"
        f"</body></html>"
    ).encode()


def archive(size: int) -> bytes:
    """A changelog archive of ``size`` bytes: mostly noise, a few relevant entries."""
    rng = random.Random(7)
    words = [
        "queue", "worker", "broker", "result", "timeout", "schedule", "cron", "beat",
        "prefetch", "ack", "visibility", "serializer", "payload", "routing", "exchange",
        "priority", "rate", "limit", "chord", "group", "chain", "canvas", "signal", "hook",
        "metric", "trace", "log", "level", "shutdown", "warm", "cold", "pool", "thread",
    ]  # fmt: skip
    parts = [b"<!doctype html><html><head><title>Larkspur changelog archive</title></head>"]
    parts.append(b"<body><article><h1>Larkspur changelog archive</h1>")
    total = sum(map(len, parts))
    entry = 0
    while total < size:
        entry += 1
        if entry % 2000 == 0:
            text = (
                f"Version 1.{entry}: the retry backoff multiplier is now validated, and a "
                "retry delay above one hour is rejected at configuration time."
            )
        else:
            text = " ".join(rng.choices(words, k=40)).capitalize() + "."
        chunk = f"<h2>Entry {entry}</h2><p>{text}</p>".encode()
        parts.append(chunk)
        total += len(chunk)
    parts.append(b"</article></body></html>")
    return b"".join(parts)


# ---------------------------------------------------------------- the loopback web


def serve(port_queue: Queue[int], huge_bytes: int) -> None:
    """Child process: the search endpoint, the pages, and a control endpoint."""
    pages = {name: render(title, paragraphs) for name, (title, paragraphs) in ARTICLES.items()}
    pages["archive"] = archive(huge_bytes)
    state: dict[str, Any] = {"search_ms": 300, "results": []}
    never = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def reply(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            state.update(json.loads(self.rfile.read(length)))
            self.reply(204, b"", "text/plain")

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            if path == "/search":
                time.sleep(state["search_ms"] / 1000)  # simulated provider latency
                body = json.dumps({"results": state["results"]}).encode()
                self.reply(200, body, "application/json")
                return
            parts = path.strip("/").split("/")
            if len(parts) == 3 and parts[0] == "page" and parts[1] in pages:
                delay = int(parts[2])
                if delay == HANG:
                    never.wait()
                else:
                    time.sleep(delay / 1000)  # simulated page latency
                self.reply(200, pages[parts[1]], "text/html; charset=utf-8")
                return
            self.reply(404, b"not found", "text/plain")

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            # Cancelled fetches reset their connections; that is expected here.
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    server = Server(("127.0.0.1", 0), Handler)
    port_queue.put(server.server_address[1])
    server.serve_forever()


@dataclass
class Plan:
    """One run's latencies: the search and every result, in the engine's order."""

    search_ms: int
    results: list[tuple[str, int]]  # (page name, latency ms or HANG)


def make_plan(rng: random.Random, scenario: str, deadline: float) -> Plan:
    search_ms = rng.randint(200, 600)
    if scenario == "complete":
        results = [
            ("manual", rng.randint(100, 400)),
            ("blog", rng.randint(500, 1500)),
            ("archive", rng.randint(100, 500)),
            ("forum", rng.randint(1500, 3000)),
            ("hang-a", HANG),
            ("release", rng.randint(100, 3000)),
            ("hang-b", HANG),
            ("tutorial", rng.randint(100, 3000)),
        ]
    elif scenario == "late-huge":
        results = [
            ("manual", rng.randint(100, 400)),
            ("archive", int(deadline * 1000) - search_ms - rng.randint(500, 1000)),
            ("blog", rng.randint(500, 1500)),
            ("forum", rng.randint(500, 3000)),
            ("release", rng.randint(100, 3000)),
        ]
    else:
        results = [
            ("manual", rng.randint(100, 400)),
            ("hang-a", HANG),
            ("archive", rng.randint(100, 500)),
            ("blog", rng.randint(500, 3000)),
            ("forum", rng.randint(100, 3000)),
            ("release", rng.randint(100, 3000)),
        ]
    return Plan(search_ms, results)


def configure(origin: str, plan: Plan) -> None:
    payload = {
        "search_ms": plan.search_ms,
        "results": [
            {
                "url": f"{origin}/page/{name}/{delay}",
                "title": ARTICLES.get(name, ("Larkspur changelog archive", []))[0],
                "content": "",
            }
            for name, delay in plan.results
        ],
    }
    request = urllib.request.Request(
        origin + "/control", data=json.dumps(payload).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        response.read()


# ---------------------------------------------------------------- measuring


@dataclass
class Row:
    scenario: str
    cache: str
    search_ms: float
    slowest_ms: float
    cpu_ms: float
    wall_ms: float
    bullets: int
    errors: int
    deadline_hit: bool
    overrun_ms: float

    @property
    def bound_ms(self) -> float:
        return self.search_ms + self.slowest_ms + self.cpu_ms

    @property
    def ratio(self) -> float:
        return self.wall_ms / self.bound_ms


def bench_settings(origin: str) -> Settings:
    """Search and pages from the loopback web at ``origin``, no browser, no search limit."""
    return Settings(
        searxng_url=origin,
        search_providers=["searxng"],
        allow_hosts=[origin.removeprefix("http://")],
        cache="memory",
        render="never",
        searches_per_hour=10_000,
    )


async def measure(
    settings: Settings, cache: MemoryCache, deadline: float, max_pages: int
) -> tuple[Digest, float, float]:
    cpu = time.process_time()
    start = time.perf_counter()
    async with AsyncSleuth(settings, cache=cache) as session:
        digest = await session.research(QUESTION, deadline=deadline, max_pages=max_pages)
    wall = (time.perf_counter() - start) * 1000
    return digest, wall, (time.process_time() - cpu) * 1000


def row(scenario: str, cache: str, plan: Plan | None, slowest: float, digest: Digest,
        wall: float, cpu: float, deadline: float) -> Row:  # fmt: skip
    return Row(
        scenario, cache, plan.search_ms if plan else 0, slowest, cpu, wall,
        len(digest.bullets), len(digest.errors), digest.meta.deadline_hit,
        max(0.0, wall - deadline * 1000),
    )  # fmt: skip


async def run(repeat: int, deadline: float, huge_bytes: int, max_pages: int) -> list[Row]:
    context = multiprocessing.get_context("spawn")
    ports: Queue[int] = context.Queue()
    server = context.Process(target=serve, args=(ports, huge_bytes), daemon=True)
    server.start()
    try:
        port = ports.get(timeout=30)
        origin = f"http://127.0.0.1:{port}"
        settings = bench_settings(origin)
        rng = random.Random(2024)
        # One unmeasured run first: imports and first-call set-up are not what we measure.
        configure(origin, make_plan(rng, "complete", deadline))
        await measure(settings, MemoryCache(1024), deadline, max_pages)
        rows: list[Row] = []
        for scenario in SCENARIOS:
            for _ in range(repeat):
                plan = make_plan(rng, scenario, deadline)
                configure(origin, plan)
                needed = [delay for _, delay in plan.results[:max_pages]]
                slowest = deadline * 1000 - plan.search_ms
                if HANG not in needed:
                    slowest = min(slowest, max(needed))
                cache = MemoryCache(1024)
                digest, wall, cpu = await measure(settings, cache, deadline, max_pages)
                rows.append(row(scenario, "cold", plan, slowest, digest, wall, cpu, deadline))
                if scenario == "complete":
                    if digest.errors:  # warm means everything cached: finish what was missed
                        await measure(settings, cache, PRIMING_DEADLINE, max_pages)
                    digest, wall, cpu = await measure(settings, cache, deadline, max_pages)
                    rows.append(row(scenario, "warm", None, 0, digest, wall, cpu, deadline))
        return rows
    finally:
        server.terminate()
        server.join(5)


def report(rows: list[Row]) -> None:
    header = (
        f"{'scenario':<9} {'cache':<5} {'search':>7} {'slowest':>8} {'cpu':>7} "
        f"{'bound':>8} {'wall':>8} {'ratio':>6} {'bullets':>7} {'errors':>6} {'deadline':>8} "
        f"{'overrun':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r.scenario:<9} {r.cache:<5} {r.search_ms:>7.0f} {r.slowest_ms:>8.0f} "
            f"{r.cpu_ms:>7.0f} {r.bound_ms:>8.0f} {r.wall_ms:>8.1f} {r.ratio:>6.3f} "
            f"{r.bullets:>7} {r.errors:>6} {'yes' if r.deadline_hit else 'no':>8} "
            f"{r.overrun_ms:>7.0f}"
        )
    print()
    for scenario in SCENARIOS:
        cold = [r for r in rows if r.scenario == scenario and r.cache == "cold"]
        if cold:
            ratios = [r.ratio for r in cold]
            print(
                f"{scenario} cold: median ratio {statistics.median(ratios):.3f}, "
                f"worst {max(ratios):.3f} (goal <= 1.15); "
                f"worst overrun {max(r.overrun_ms for r in cold):.0f} ms"
            )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"load average (1, 5, 15 min) after the runs: {load} on {os.cpu_count()} CPUs")
    warm = [r.wall_ms for r in rows if r.cache == "warm"]
    if warm:
        print(
            f"complete warm: median wall {statistics.median(warm):.1f} ms, "
            f"worst {max(warm):.1f} ms (goal < 50 ms)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per scenario")
    parser.add_argument(
        "--deadline",
        type=float,
        default=7.0,
        help="research deadline in seconds; keep it below the 8 s read timeout so that "
        "hanging pages meet the research deadline, not the fetcher's own timeout",
    )
    parser.add_argument("--max-pages", type=int, default=4, help="pages read per run")
    parser.add_argument("--huge-mb", type=float, default=3.0, help="size of the archive page in MB")
    args = parser.parse_args()
    huge = int(args.huge_mb * 1024 * 1024)
    rows = asyncio.run(run(args.repeat, args.deadline, huge, args.max_pages))
    report(rows)
    sys.stdout.flush()


if __name__ == "__main__":
    main()

"""Server benchmark: requests/s and latency of ``sleuth serve`` with one and two instances.

Usage::

    .venv/bin/python bench/server.py [--duration 5] [--connections 16] [--client auto|wrk|python]

Everything runs on loopback: a child process serves a SearXNG-compatible
``/search``, three article pages and an OpenAI-compatible model
(``/v1/chat/completions``, answering a fixed suggestion at once); one real
``redis-server`` holds the shared cache; ``sleuth serve`` runs as one process,
then as two processes sharing that Redis. The load generator is Debian's
``wrk`` when installed (its threads are spread over the instances' addresses,
and every latency sample is read back from its histogram, so percentiles over
both instances are exact), else an async client in its own process that
round-robins over the instances.

Workloads, each measured for ``--duration`` seconds after a warm-up:

* ``healthz``: ``GET /healthz``, the floor of the stack (uvicorn, routing, metrics).
* ``research (cached)``: ``POST /api/v1/research`` for a question whose search and
  pages are already in Redis: the digest is ranked again on every request.
* ``suggest``: ``POST /api/v1/links/suggest`` against the loopback model (one model
  call, the daily-budget read and write in Redis, field checks).

The baseline is the single instance, measured in the same run; the ratio is
two instances' requests/s over one's. On a 2-core machine the load generator,
the model server, Redis and the instances share the same cores, so expect the
ratio to show CPU contention rather than linear scaling.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

TOKEN = "bench-token-5d1e"
QUESTION = "How does the Larkspur scheduler retry failed tasks?"
READY = "sleuth: serving on "
PAGES = {
    "/manual": (
        "Larkspur manual: retries",
        [
            "Larkspur retries a failed task up to three times by default, waiting two, four "
            "and then eight seconds between attempts so a struggling service can recover.",
            "The backoff is configured per task with the retry_policy argument: attempts, a "
            "base delay in seconds and a multiplier; a multiplier of one gives a fixed delay.",
        ]
        * 6,
    ),
    "/blog": (
        "Tuning Larkspur retries in production",
        [
            "We lowered the retry multiplier for idempotent tasks after a week of incidents "
            "where the default backoff kept queues full during partner outages.",
            "Retries of non-idempotent tasks are dangerous; Larkspur marks a task idempotent "
            "only when its definition says so, and never retries the others by default.",
        ]
        * 6,
    ),
    "/faq": (
        "Larkspur FAQ",
        [
            "Why did my task run twice? Because it failed once and Larkspur retried it; set "
            "retry_policy with attempts=1 to turn retries off for that task.",
        ]
        * 8,
    ),
}
SUGGESTION = {
    "slug": "larkspur-retries",
    "title": "Larkspur manual: retries",
    "description": "How Larkspur retries failed tasks and how to tune the backoff.",
    "tags": ["larkspur", "retries", "scheduler"],
}


# --- the loopback world: search, pages and a model, in a child process --------------------


def _page(title: str, paragraphs: list[str]) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body><nav>Home</nav>"
        f"<article><h1>{title}</h1>{body}</article><footer>(c)</footer></body></html>"
    ).encode()


def _completion() -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 1741570283,
            "model": "bench-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": json.dumps(SUGGESTION)},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 420, "completion_tokens": 60, "total_tokens": 480},
        }
    ).encode()


def world(ports: multiprocessing.Queue[int]) -> None:
    completion = _completion()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            # Headers and body leave in two writes; without this, Nagle and delayed ACKs
            # add ~40 ms to every answer on a kept-alive connection.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            origin = f"http://127.0.0.1:{self.server.server_address[1]}"
            if path == "/search":
                results = [
                    {"url": origin + p, "title": t, "content": ps[0][:100]}
                    for p, (t, ps) in PAGES.items()
                ]
                self._send(200, json.dumps({"results": results}).encode(), "application/json")
            elif path in PAGES:
                self._send(200, _page(*PAGES[path]), "text/html; charset=utf-8")
            else:
                self._send(404, b"not found", "text/plain")

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._send(200, completion, "application/json")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ports.put(server.server_address[1])
    server.serve_forever()


# --- Redis and the sleuth serve processes ----------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def redis_server() -> Iterator[str]:
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(binary).exists():
        sys.exit("bench/server.py needs redis-server (apt-get install redis-server)")
    with tempfile.TemporaryDirectory(prefix="sleuth-bench-redis-") as tmp:
        port = _free_port()
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp, "--save", ""],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            # redis-server says when it accepts connections; wait for that line, not a timer.
            assert process.stdout is not None
            if not any("Ready to accept connections" in line for line in process.stdout):
                sys.exit(f"redis-server exited with {process.wait()} before it was ready")
            # Keep reading its log so a full pipe never stalls it.
            threading.Thread(target=process.stdout.read, daemon=True).start()
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(10)


class Instance:
    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sleuth", "serve", "--port", "0"],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()

        def read() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                if line.startswith(READY):
                    lines.put(line)
            lines.put("")

        threading.Thread(target=read, daemon=True).start()
        line = lines.get(timeout=60)
        if not line:
            sys.exit("a sleuth serve process exited before listening")
        self.url = line[len(READY) :].split()[0]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


# --- load generators -------------------------------------------------------------------------


@dataclass
class Workload:
    name: str
    method: str
    path: str
    body: dict[str, Any] | None = None


WORKLOADS = [
    Workload("healthz", "GET", "/healthz"),
    Workload("research (cached)", "POST", "/api/v1/research", {"question": QUESTION}),
    Workload(
        "suggest",
        "POST",
        "/api/v1/links/suggest",
        {"url": "https://docs.example/larkspur/retries", "title": "Larkspur retries"},
    ),
]


@dataclass
class Result:
    requests: int
    errors: int
    seconds: float
    latencies_ms: list[tuple[float, int]]  # (value, count)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def percentile(self, p: float) -> float:
        total = sum(count for _, count in self.latencies_ms)
        if not total:
            return float("nan")
        rank = p / 100 * total
        seen = 0
        for value, count in sorted(self.latencies_ms):
            seen += count
            if seen >= rank:
                return value
        return max(value for value, _ in self.latencies_ms)


WRK_SCRIPT = """
local targets = {}
for port in string.gmatch(os.getenv("BENCH_PORTS"), "%d+") do
  table.insert(targets, wrk.lookup("127.0.0.1", port)[1])
end
local n = 0
function setup(thread)
  n = n + 1
  thread.addr = targets[(n - 1) % #targets + 1]
end
wrk.method = os.getenv("BENCH_METHOD")
wrk.body = os.getenv("BENCH_BODY")
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
if wrk.body ~= "" then wrk.headers["Content-Type"] = "application/json" end
function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read
    + summary.errors.write + summary.errors.timeout
  io.write(string.format("BENCH %d %d %d\\n", summary.requests, errors, summary.duration))
  for i = 1, #latency do
    local value, count = latency(i)
    if count > 0 then io.write(string.format("LAT %d %d\\n", value, count)) end
  end
end
"""


def run_wrk(urls: list[str], work: Workload, connections: int, duration: float) -> Result:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
    threads = max(2, len(urls))
    env = {
        **os.environ,
        "BENCH_PORTS": " ".join(str(urlsplit(u).port) for u in urls),
        "BENCH_METHOD": work.method,
        "BENCH_BODY": json.dumps(work.body) if work.body else "",
        "BENCH_TOKEN": TOKEN,
    }
    try:
        done = subprocess.run(
            [
                "wrk",
                *("-t", str(threads), "-c", str(max(connections, threads))),
                *("-d", f"{max(1, round(duration))}s", "--timeout", "30s", "-s", script.name),
                urls[0] + work.path,
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        os.unlink(script.name)
    if done.returncode:
        sys.exit(f"wrk failed ({done.returncode}): {done.stderr or done.stdout}")
    requests = errors = 0
    micros = 1
    latencies: list[tuple[float, int]] = []
    for line in done.stdout.splitlines():
        parts = line.split()
        if parts[:1] == ["BENCH"]:
            requests, errors, micros = int(parts[1]), int(parts[2]), int(parts[3])
        elif parts[:1] == ["LAT"]:
            latencies.append((int(parts[1]) / 1000, int(parts[2])))
    return Result(requests, errors, micros / 1e6, latencies)


def _python_client(
    urls: list[str], work: Workload, connections: int, duration: float, out: Any
) -> None:
    import httpx

    async def main() -> None:
        latencies: list[float] = []
        errors = 0
        headers = {"Authorization": f"Bearer {TOKEN}"}
        limits = httpx.Limits(max_connections=connections)
        async with httpx.AsyncClient(headers=headers, timeout=30, limits=limits) as client:
            started = time.perf_counter()
            end = started + duration

            async def worker(i: int) -> None:
                nonlocal errors
                url = urls[i % len(urls)] + work.path
                while time.perf_counter() < end:
                    t0 = time.perf_counter()
                    reply = await client.request(work.method, url, json=work.body)
                    latencies.append((time.perf_counter() - t0) * 1000)
                    errors += reply.status_code >= 400

            await asyncio.gather(*(worker(i) for i in range(connections)))
            elapsed = time.perf_counter() - started
        out.put((len(latencies), errors, elapsed, [(v, 1) for v in latencies]))

    asyncio.run(main())


def run_python(urls: list[str], work: Workload, connections: int, duration: float) -> Result:
    results: multiprocessing.Queue[Any] = multiprocessing.Queue()
    process = multiprocessing.Process(
        target=_python_client, args=(urls, work, connections, duration, results)
    )
    process.start()
    requests, errors, seconds, latencies = results.get(timeout=duration + 120)
    process.join()
    return Result(requests, errors, seconds, latencies)


# --- the run ---------------------------------------------------------------------------------


def measure(urls: list[str], client: str, connections: int, duration: float) -> dict[str, Result]:
    runner = run_wrk if client == "wrk" else run_python
    results = {}
    for work in WORKLOADS:
        runner(urls, work, connections, min(1.0, duration))  # warm-up, not counted
        results[work.name] = runner(urls, work, connections, duration)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per workload")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto")
    options = parser.parse_args()
    client = options.client
    if client == "auto":
        client = "wrk" if shutil.which("wrk") else "python"

    ports: multiprocessing.Queue[int] = multiprocessing.Queue()
    web = multiprocessing.Process(target=world, args=(ports,), daemon=True)
    web.start()
    origin = f"http://127.0.0.1:{ports.get(timeout=30)}"
    rows: dict[int, dict[str, Result]] = {}
    with redis_server() as redis_url, tempfile.TemporaryDirectory() as home:
        env = {
            "SLEUTH_CACHE": "redis",
            "SLEUTH_REDIS_URL": redis_url,
            "SLEUTH_API_TOKENS": TOKEN,
            "SLEUTH_SEARXNG_URL": origin,
            "SLEUTH_SEARCH_PROVIDERS": "searxng",
            "SLEUTH_ALLOW_HOSTS": "127.0.0.1",
            "SLEUTH_ALLOW_PORTS": str(urlsplit(origin).port),
            "SLEUTH_RENDER": "never",
            "SLEUTH_LLM_PROVIDER": "openai",
            "SLEUTH_LLM_BASE_URL": origin + "/v1",
            "SLEUTH_LLM_MODEL": "bench-model",
            "SLEUTH_LLM_DAILY_BUDGET_USD": "0",
            "SLEUTH_LLM_SESSION_BUDGET_USD": "0",
            "SLEUTH_SEARCHES_PER_HOUR": "0",
            "SLEUTH_LOG_LEVEL": "error",
            "XDG_CONFIG_HOME": f"{home}/config",
            "XDG_CACHE_HOME": f"{home}/cache",
        }
        for count in (1, 2):
            instances = [Instance(env) for _ in range(count)]
            try:
                rows[count] = measure(
                    [i.url for i in instances], client, options.connections, options.duration
                )
            finally:
                for instance in instances:
                    instance.stop()
    web.terminate()
    report(rows, client, options)


def report(rows: dict[int, dict[str, Result]], client: str, options: argparse.Namespace) -> None:
    cores = os.cpu_count()
    print(
        f"sleuth serve on loopback, Redis shared; load: {client}, {options.connections} "
        f"connections, {options.duration:g} s per workload; {cores} cores\n"
    )
    print("| workload | instances | requests/s | p50 ms | p95 ms | p99 ms | errors |")
    print("|---|---|---|---|---|---|---|")
    for work in WORKLOADS:
        for count in (1, 2):
            r = rows[count][work.name]
            print(
                f"| {work.name} | {count} | {r.rps:,.0f} | {r.percentile(50):.1f} | "
                f"{r.percentile(95):.1f} | {r.percentile(99):.1f} | {r.errors} |"
            )
    print("\n| workload | 2 instances / 1 (requests/s) |")
    print("|---|---|")
    for work in WORKLOADS:
        ratio = rows[2][work.name].rps / rows[1][work.name].rps
        print(f"| {work.name} | {ratio:.2f} |")
    failed = sum(r.errors for row in rows.values() for r in row.values())
    if failed:
        print(f"\n{failed} requests failed: the numbers above are not trustworthy")


if __name__ == "__main__":
    main()

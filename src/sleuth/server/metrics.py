"""Prometheus metrics of one server process, in the text exposition format (version 0.0.4).

Each instance exposes its own numbers; Prometheus scrapes every instance and
sums them, so nothing here has to be shared. Labels are bounded: routes are
the server's own paths (anything else is ``other``), never raw URLs.
"""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict
from dataclasses import dataclass, field

from sleuth.cache import Cache, CacheStats
from sleuth.llm.models import Usage

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
Labels = tuple[tuple[str, str], ...]


@dataclass
class _Histogram:
    counts: list[int] = field(default_factory=lambda: [0] * (len(LATENCY_BUCKETS) + 1))
    total: float = 0.0
    n: int = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(LATENCY_BUCKETS, value)] += 1
        self.total += value
        self.n += 1


class Metrics:
    """Counters and latency histograms; safe to update from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counters: dict[str, dict[Labels, float]] = defaultdict(lambda: defaultdict(float))
        self._histograms: dict[Labels, _Histogram] = defaultdict(_Histogram)
        self._help: dict[str, str] = {
            "sleuth_http_requests_total": "HTTP requests by route, method and status.",
            "sleuth_cache_requests_total": "Cache lookups by result (hit or miss).",
            "sleuth_llm_calls_total": "Model calls by route and provider.",
            "sleuth_llm_tokens_total": "Model tokens by route and kind.",
            "sleuth_llm_cost_usd_total": "Estimated model spend in US dollars by route.",
            "sleuth_rate_limited_total": "Requests refused by the per-token rate limit.",
        }

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        key = tuple(sorted(labels.items()))
        with self._lock:
            self._counters[name][key] += amount

    def request(self, route: str, method: str, status: int, seconds: float) -> None:
        self.inc("sleuth_http_requests_total", route=route, method=method, status=str(status))
        key = (("route", route),)
        with self._lock:
            self._histograms[key].observe(seconds)

    def llm(self, route: str, provider: str, calls: int, usage: Usage, cost: float | None) -> None:
        if calls:
            self.inc("sleuth_llm_calls_total", calls, route=route, provider=provider)
        for kind in ("input", "output", "cached", "reasoning"):
            count = getattr(usage, f"{kind}_tokens")
            if count:
                self.inc("sleuth_llm_tokens_total", count, route=route, kind=kind)
        if cost:
            self.inc("sleuth_llm_cost_usd_total", cost, route=route)

    def value(self, name: str, **labels: str) -> float:
        with self._lock:
            return self._counters[name].get(tuple(sorted(labels.items())), 0.0)

    def render(self) -> str:
        lines: list[str] = []
        with self._lock:
            for name, help_text in self._help.items():
                lines += [f"# HELP {name} {help_text}", f"# TYPE {name} counter"]
                for labels, value in sorted(self._counters[name].items()):
                    lines.append(f"{name}{_labels(labels)} {_number(value)}")
            name = "sleuth_http_request_duration_seconds"
            lines += [
                f"# HELP {name} Time from request to the last byte of the answer.",
                f"# TYPE {name} histogram",
            ]
            for labels, histogram in sorted(self._histograms.items()):
                running = 0
                for bound, count in zip((*LATENCY_BUCKETS, None), histogram.counts, strict=True):
                    running += count
                    le = "+Inf" if bound is None else _number(bound)
                    lines.append(f"{name}_bucket{_labels((*labels, ('le', le)))} {running}")
                lines.append(f"{name}_sum{_labels(labels)} {_number(histogram.total)}")
                lines.append(f"{name}_count{_labels(labels)} {histogram.n}")
        return "\n".join(lines) + "\n"


def _labels(labels: Labels) -> str:
    if not labels:
        return ""
    inner = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
    return "{" + inner + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class CountingCache(Cache):
    """The server's cache, counting hits and misses for ``/metrics`` on the way through."""

    def __init__(self, inner: Cache, metrics: Metrics) -> None:
        self.inner = inner
        self.metrics = metrics
        self.name = inner.name

    async def get(self, key: str) -> bytes | None:
        value = await self.inner.get(key)
        kind = key.split(":", 1)[0]
        result = "miss" if value is None else "hit"
        self.metrics.inc("sleuth_cache_requests_total", kind=kind, result=result)
        return value

    async def set(self, key: str, value: bytes, ttl: float | None = None) -> None:
        await self.inner.set(key, value, ttl)

    async def delete(self, key: str) -> None:
        await self.inner.delete(key)

    async def incr(self, key: str, ttl: float, amount: int = 1) -> int:
        return await self.inner.incr(key, ttl, amount)

    async def clear(self) -> int:
        return await self.inner.clear()

    async def stats(self) -> CacheStats:
        return await self.inner.stats()

    async def aclose(self) -> None:
        await self.inner.aclose()

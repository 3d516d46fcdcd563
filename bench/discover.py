"""Benchmark for ``sleuth discover``: latency per stage, and what a web discovery costs.

Usage::

    .venv/bin/python bench/discover.py [--names 300] [--repeat 5]

Everything runs on loopback (the test suite's registry and GitHub stand-ins, which speak
each service's documented wire format), so no number depends on the internet:

* **registry**: ``--names`` names drawn from the bundled registry, each answered in process
  by the whole chain (normalisation, lookup, typosquat set, result); the baseline is a bare
  ``json.loads`` of the same entry files. Also the wall time of the installed command
  ``sleuth discover ripgrep`` against ``sleuth --version`` (the interpreter and import cost
  every command pays), medians of ``--repeat`` runs.
* **ecosystem probes**: all eight registries answering at once, then one registry slow
  (1.5 s) and one hung past the 3 s deadline; the baseline is the slowest registry's own
  delay (or the deadline), which no parallel probe can beat.
* **LLM discovery**: the recorded conversations of the test suite replayed (no model is
  called: the wall time is sleuth's own work plus loopback search and GitHub), with the
  tokens each used and its cost at the default model's prices (``gpt-5-mini`` from
  ``src/sleuth/llm/prices.json``, as a cloud call). Goal: under $0.05 per discovery.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from discover.conversations import CONVERSATIONS  # noqa: E402
from discover.llm_settings import discover_settings  # noqa: E402
from discover.registries import PREFIX, Registries, registries  # noqa: E402
from search.wire import Reply  # noqa: E402
from sleuth.api import AsyncSleuth  # noqa: E402
from sleuth.config import Settings  # noqa: E402
from sleuth.discovery.registry import BUNDLED, relative_path  # noqa: E402
from sleuth.errors import SleuthError  # noqa: E402
from sleuth.llm.models import Usage  # noqa: E402
from sleuth.llm.pricing import load_prices  # noqa: E402

DEFAULT_MODEL = ("openai", "gpt-5-mini")
GOAL_COST = 0.05


def row(*cells: object, widths: tuple[int, ...]) -> str:
    return "  ".join(
        str(c).ljust(w) if i == 0 else str(c).rjust(w)
        for i, (c, w) in enumerate(zip(cells, widths, strict=True))
    )


def registry_stage(count: int) -> None:
    names = (BUNDLED / "names.txt").read_text().split()
    sample = random.Random(7).sample(names, min(count, len(names)))

    async def chain() -> list[float]:
        timings = []
        settings = Settings(cache="memory")
        async with AsyncSleuth(settings) as client:
            await client.discover(sample[0], stages=["registry"])  # warm: imports, names set
            for name in sample:
                started = time.perf_counter()
                await client.discover(name, stages=["registry"])
                timings.append(time.perf_counter() - started)
        return timings

    chained = asyncio.run(chain())
    bare = []
    for name in sample:
        path = BUNDLED / relative_path(name)  # type: ignore[operator]
        started = time.perf_counter()
        json.loads(path.read_text())
        bare.append(time.perf_counter() - started)
    ms = lambda xs, q: 1000 * statistics.quantiles(xs, n=20)[q]  # noqa: E731
    print(f"\nRegistry stage: {len(sample)} names from the bundled registry, in process")
    widths = (34, 10, 10, 8)
    print(row("", "median ms", "p95 ms", "ratio", widths=widths))
    med, base = statistics.median(chained) * 1000, statistics.median(bare) * 1000
    print(
        row(
            "discover (whole chain, registry)",
            f"{med:.3f}",
            f"{ms(chained, 18):.3f}",
            f"{med / base:.1f}x",
            widths=widths,
        )
    )
    print(
        row(
            "baseline: json.loads of the entry",
            f"{base:.3f}",
            f"{ms(bare, 18):.3f}",
            "1.0x",
            widths=widths,
        )
    )


def command_wall(repeat: int) -> None:
    def wall(args: list[str]) -> float:
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "sleuth", *args],
                capture_output=True,
                check=True,
                env={"SLEUTH_CACHE": "memory", "PATH": "/usr/bin:/bin"},
            )
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    version = wall(["--version"])
    found = wall(["discover", "ripgrep"])
    print(f"\nThe installed command, median of {repeat} runs")
    widths = (34, 10, 8)
    print(row("", "wall s", "ratio", widths=widths))
    print(row("sleuth discover ripgrep", f"{found:.3f}", f"{found / version:.2f}x", widths=widths))
    print(row("baseline: sleuth --version", f"{version:.3f}", "1.0x", widths=widths))


def publish_everywhere(regs: Registries, name: str) -> None:
    regs.crate(name, downloads=500, versions=10, repository="https://github.com/x/y")
    regs.npm(name, downloads=800, versions=12, repository="https://github.com/x/y")
    regs.pypi(name, releases=9, project_urls={"Source": "https://github.com/x/y"})
    regs.gem(name, downloads=4000, versions=7, source_code_uri="https://github.com/x/y")
    regs.formula(name, installs=9000)
    regs.cask(name, installs=100)
    regs.cpan(name, river=3, releases=4, repository=True)


def probe_stage(repeat: int) -> None:
    async def once(settings: Settings, name: str) -> float:
        async with AsyncSleuth(settings) as client:
            started = time.perf_counter()
            await client.discover(name, stages=["ecosystem"], batch=True)
            return time.perf_counter() - started

    print(f"\nEcosystem stage: 8 loopback registries probed at once, median of {repeat} runs")
    widths = (40, 10, 12, 8)
    print(row("", "stage s", "baseline s", "ratio", widths=widths))
    with registries() as regs:
        settings = Settings(cache="memory", **regs.settings_values())
        publish_everywhere(regs, "fast")
        fast = statistics.median(asyncio.run(once(settings, "fast")) for _ in range(repeat))
        print(row("all answer at once", f"{fast:.3f}", "-", "-", widths=widths))
        for label, delay, name in (
            ("one registry slow (1.5 s)", 1.5, "slow"),
            ("one registry hung (3 s deadline)", None, "hung"),
        ):
            publish_everywhere(regs, name)
            runs = []
            for _ in range(repeat):
                gate = threading.Event()
                regs.wire.on(
                    f"{PREFIX['RUBYGEMS']}/api/v1/gems/{name}.json",
                    Reply(
                        200,
                        json.dumps(
                            {
                                "name": name,
                                "downloads": 4000,
                                "source_code_uri": "https://github.com/x/y",
                            }
                        ),
                        "application/json",
                        stall=gate,
                    ),
                )
                timer = threading.Timer(delay, gate.set) if delay else None
                if timer:
                    timer.start()
                try:
                    runs.append(asyncio.run(once(settings, name)))
                finally:
                    gate.set()
            stage = statistics.median(runs)
            baseline = delay or settings.discover_probe_timeout
            print(
                row(
                    label,
                    f"{stage:.3f}",
                    f"{baseline:.3f}",
                    f"{stage / baseline:.3f}x",
                    widths=widths,
                )
            )


async def replay(tool: str, settings: Settings) -> tuple[str, dict[str, Any], float]:
    """One recorded conversation: its outcome, its usage and sleuth's wall time."""
    async with AsyncSleuth(settings) as client:
        started = time.perf_counter()
        try:
            result = await client.discover(tool, stages=["llm"], yes=True)
            outcome = result.selection_reason
            usage: dict[str, Any] = result.usage.model_dump()
        except SleuthError as error:
            outcome = error.code
            usage = dict(getattr(error, "usage", None) or {})
        return outcome, usage, time.perf_counter() - started


def llm_stage() -> None:
    prices = load_prices(None)
    print(f"\nLLM stage: recorded conversations replayed; cost at {DEFAULT_MODEL[1]} cloud prices")
    widths = (12, 20, 6, 9, 7, 8, 7)
    print(row("tool", "outcome", "calls", "input tk", "output", "cost $", "wall s", widths=widths))
    costs = []
    with registries() as regs:  # warm-up: the LLM layer and search load on first use
        CONVERSATIONS["stripe-cli"].serve_web(regs)
        asyncio.run(replay("stripe-cli", discover_settings(regs)))
    for tool, conversation in CONVERSATIONS.items():
        with registries() as regs:
            conversation.serve_web(regs)

            outcome, usage, wall = asyncio.run(replay(tool, discover_settings(regs)))
        tokens = Usage(
            input_tokens=usage.get("input_tokens", 0),
            output_tokens=usage.get("output_tokens", 0),
            cached_tokens=usage.get("cached_tokens", 0),
        )
        cost = prices.cost(*DEFAULT_MODEL, tokens, local=False) or 0.0
        costs.append(cost)
        print(
            row(
                tool,
                outcome,
                usage.get("llm_calls", "?"),
                tokens.input_tokens,
                tokens.output_tokens,
                f"{cost:.5f}",
                f"{wall:.3f}",
                widths=widths,
            )
        )
    worst = max(costs)
    verdict = "met" if worst < GOAL_COST else "MISSED"
    mean = statistics.mean(costs)
    print(
        f"worst cost per discovery ${worst:.5f}, mean ${mean:.5f} (goal < ${GOAL_COST}: {verdict})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    registry_stage(args.names)
    command_wall(args.repeat)
    probe_stage(args.repeat)
    llm_stage()


if __name__ == "__main__":
    main()

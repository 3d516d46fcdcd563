"""Start-up cost of the CLI: what a person waits for before sleuth does anything.

Usage::

    .venv/bin/python bench/startup.py [--runs 15] [--compare OLD/src]

Every row is a whole process, timed from spawn to exit, the median of ``--runs`` runs
after one warm-up (so the page cache is warm for all). The rows take turns run by run,
and each is timed twice: wall time (what a person waits) and CPU time (user + system,
which a busy machine disturbs less):

- ``bare``: a Python process that imports trafilatura and extracts the same small page:
  the least any Python extractor built on it can cost. The baseline of the ratios.
- ``floor``: a process that only imports typer and pydantic's models, the two libraries
  every sleuth command that reads settings loads; ``--version`` is held against this floor.
- ``sleuth --version`` and ``sleuth extract PAGE``.

Before timing, the sleuth tree under test (and the ``--compare`` tree) is byte-compiled, as
``pip install`` does: with ``PYTHONDONTWRITEBYTECODE`` set, a module edited since its last
compile would otherwise be compiled from source on every run, a cost no user pays.

Goals: ``extract`` at most 1.8 times ``bare``; ``--version`` within 1.1 times ``floor``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = """<!doctype html><html><head><title>Valley beekeepers</title></head><body>
<header><nav><a href="/">Home</a> <a href="/news">News</a></nav></header>
<article><h1>Valley beekeepers</h1>
<p>Beekeepers in the valley have tracked their hives for three decades, noting when the
first flowers open and how much honey each colony stores before winter arrives.</p>
<p>Their notebooks show that spring now comes almost two weeks earlier than it did when
the records began, and that the bees have shifted their foraging to match it.</p>
</article><footer>Contact us</footer></body></html>
"""
BARE = (
    "import sys, trafilatura; "
    "print(trafilatura.extract(open(sys.argv[1], encoding='utf-8').read()))"
)
FLOOR = "import typer; from pydantic import BaseModel"
COMPILE = (  # byte-compiles the sleuth package this environment imports, without importing it
    "import compileall, importlib.util, os; "
    "compileall.compile_dir(os.path.dirname(importlib.util.find_spec('sleuth').origin), quiet=1)"
)


Row = tuple[list[str], dict[str, str] | None]  # a command and its environment (None: ours)


def _timed(row: Row) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one whole process."""
    command, env = row
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def _compile(env: dict[str, str] | None) -> None:
    """Byte-compile the sleuth tree that a process with ``env`` imports."""
    subprocess.run([sys.executable, "-c", COMPILE], check=True, env=env)


def _medians(rows: dict[str, Row], runs: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds per row. The rows take turns, run by run, so a machine
    that gets busier or quieter meanwhile weighs on every row alike."""
    for row in rows.values():
        _timed(row)  # warm-up
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
    for _ in range(runs):
        for name, row in rows.items():
            samples[name].append(_timed(row))
    return {
        name: (
            statistics.median(wall for wall, _ in taken),
            statistics.median(cpu for _, cpu in taken),
        )
        for name, taken in samples.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per row")
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="SRC",
        help="also time both sleuth rows from this src folder (e.g. an older commit's)",
    )
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "page.html"
        page.write_text(PAGE, encoding="utf-8")
        rows: dict[str, Row] = {
            "bare (python + trafilatura.extract)": ([python, "-c", BARE, str(page)], None),
            "floor (python + typer + pydantic)": ([python, "-c", FLOOR], None),
            "sleuth --version": ([python, "-m", "sleuth", "--version"], None),
            "sleuth extract page.html": ([python, "-m", "sleuth", "extract", str(page)], None),
        }
        if args.compare:  # the same two commands from another copy of the source
            env = {**os.environ, "PYTHONPATH": str(args.compare)}
            rows["sleuth --version (--compare)"] = ([python, "-m", "sleuth", "--version"], env)
            rows["sleuth extract page.html (--compare)"] = (
                [python, "-m", "sleuth", "extract", str(page)],
                env,
            )
        _compile(None)
        if args.compare:
            _compile(env)
        seconds = _medians(rows, args.runs)
    bare = seconds["bare (python + trafilatura.extract)"]
    floor = seconds["floor (python + typer + pydantic)"]
    width = max(map(len, seconds))
    print(
        f"{'process':<{width}}  {'wall ms':>8}  {'vs bare':>7}  {'vs floor':>8}"
        f"  {'cpu ms':>7}  {'vs bare':>7}  {'vs floor':>8}"
    )
    for name, (wall, cpu) in seconds.items():
        print(
            f"{name:<{width}}  {wall * 1000:8.1f}  {wall / bare[0]:6.2f}x  {wall / floor[0]:7.2f}x"
            f"  {cpu * 1000:7.1f}  {cpu / bare[1]:6.2f}x  {cpu / floor[1]:7.2f}x"
        )
    for label, index in (("wall", 0), ("cpu", 1)):
        version = seconds["sleuth --version"][index] / floor[index]
        extract = seconds["sleuth extract page.html"][index] / bare[index]
        print(
            f"{label}: extract / bare = {extract:.2f}x (goal <= 1.8x); "
            f"--version / floor = {version:.2f}x (goal <= 1.1x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

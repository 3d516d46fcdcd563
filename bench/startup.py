"""Start-up cost of the CLI: what a person waits for before sleuth does anything.

Usage::

    .venv/bin/python bench/startup.py [--runs 15]

Every row is a whole process, timed from spawn to exit, the median of ``--runs`` runs
after one warm-up (so the page cache is warm for all):

- ``bare``: a Python process that imports trafilatura and extracts the same small page:
  the least any Python extractor built on it can cost. The baseline of the ratios.
- ``floor``: a process that only imports typer and pydantic-settings, the two libraries
  every sleuth command loads; ``--version`` is held against this floor.
- ``sleuth --version`` and ``sleuth extract PAGE``.

Goals: ``extract`` at most 1.8 times ``bare``; ``--version`` within 1.1 times ``floor``.
"""

from __future__ import annotations

import argparse
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
FLOOR = "import typer, pydantic_settings"


def _median_seconds(command: list[str], runs: int) -> float:
    subprocess.run(command, capture_output=True, check=True)  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per row")
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "page.html"
        page.write_text(PAGE, encoding="utf-8")
        rows = {
            "bare (python + trafilatura.extract)": [python, "-c", BARE, str(page)],
            "floor (python + typer + pydantic-settings)": [python, "-c", FLOOR],
            "sleuth --version": [python, "-m", "sleuth", "--version"],
            "sleuth extract page.html": [python, "-m", "sleuth", "extract", str(page)],
        }
        seconds = {name: _median_seconds(command, args.runs) for name, command in rows.items()}
    bare = seconds["bare (python + trafilatura.extract)"]
    floor = seconds["floor (python + typer + pydantic-settings)"]
    width = max(map(len, seconds))
    print(f"{'process':<{width}}  {'median ms':>9}  {'vs bare':>7}  {'vs floor':>8}")
    for name, value in seconds.items():
        print(f"{name:<{width}}  {value * 1000:9.1f}  {value / bare:6.2f}x  {value / floor:7.2f}x")
    version = seconds["sleuth --version"] / floor
    extract = seconds["sleuth extract page.html"] / bare
    print(
        f"\nextract / bare = {extract:.2f}x (goal <= 1.8x); "
        f"--version / floor = {version:.2f}x (goal <= 1.1x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Progress bars on stderr for work over many items: files to extract, pages to crawl.

A person at a terminal gets them; a pipe or ``--json`` never does. rich loads only when a
bar is drawn.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any


def batch_progress_wanted(machine_output: bool) -> bool:
    """A batch's progress bar: for a person at the terminal, never beside JSON for a pipe."""
    return sys.stderr.isatty() and (sys.stdout.isatty() or not machine_output)


class ProgressOnDemand:
    """A batch's bar that opens at the first report, when the number of files is known
    (a folder is listed by the operation, not here), and only for more than one."""

    def __init__(self, enabled: bool) -> None:
        self._enabled = enabled
        self._open = ExitStack()
        self._advance: Callable[[], None] | None = None

    def update(self, stage: str, detail: dict[str, Any]) -> None:
        if not self._enabled or detail.get("total", 0) <= 1:
            return
        if self._advance is None:
            self._advance = self._open.enter_context(batch_progress(detail["total"], True))
        self._advance()

    def __enter__(self) -> ProgressOnDemand:
        return self

    def __exit__(self, *exc: object) -> None:
        self._open.close()


@contextmanager
def batch_progress(total: int, enabled: bool) -> Iterator[Callable[[], None]]:
    """Files done, rate and time left on stderr; yields the "one more file" callback."""
    if not enabled:
        yield lambda: None
        return
    from rich import progress as bars
    from rich.console import Console
    from rich.text import Text

    class FilesPerSecond(bars.ProgressColumn):
        def render(self, task: bars.Task) -> Text:
            speed = task.finished_speed or task.speed
            shown = f"{speed:,.1f} files/s" if speed else "- files/s"
            return Text(shown, style="progress.data.speed")

    with bars.Progress(
        bars.TextColumn("extracting"),
        bars.BarColumn(),
        bars.MofNCompleteColumn(),
        bars.TextColumn("files"),
        FilesPerSecond(),
        bars.TimeElapsedColumn(),
        bars.TextColumn("elapsed,"),
        bars.TimeRemainingColumn(),
        bars.TextColumn("left"),
        # soft_wrap: text printed above the bar keeps its own lines; the terminal wraps them.
        console=Console(stderr=True, highlight=False, soft_wrap=True),
        # Text for the same terminal is printed above the bar; text for a pipe is left alone.
        redirect_stdout=sys.stdout.isatty(),
        redirect_stderr=True,
    ) as bar:
        task = bar.add_task("extract", total=total)
        yield lambda: bar.advance(task)


class CrawlProgress:
    """Pages done, queued, errors and rate on one stderr line, for a person only."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._last = 0.0

    def show(self, stats: Any, *, final: bool = False) -> None:
        if not self.enabled or (not final and time.monotonic() - self._last < 0.2):
            return
        self._last = time.monotonic()
        shown = (
            f"{stats.pages} pages, {max(stats.queued - stats.pages, 0)} queued, "
            f"{stats.errors} errors, {stats.rate:.1f} pages/s"
        )
        sys.stderr.write("\r\x1b[K" + shown + ("\n" if final else ""))
        sys.stderr.flush()

"""Everything the commands print: stdout text and JSON, Markdown for a terminal, sources,
spinners and progress bars on stderr.

Results go to stdout, progress and logs to stderr; a person at a terminal gets progress,
a pipe or ``--json`` never does. rich loads only when something is drawn.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import typer

if TYPE_CHECKING:
    from rich.console import Console

# C0 controls (bar tab and newline) and DEL: page or model text must not drive the terminal.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class ReaderGone(Exception):
    """stdout's reader went away (``| head``).

    Not an OSError on purpose: typer would turn a BrokenPipeError into exit 1.
    """


def out(text: str) -> None:
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        raise ReaderGone from None


def print_json(payload: Any) -> None:
    out(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


def line(text: str) -> None:
    """One record, flushed at once: a killed crawl keeps what it printed. A reader that
    left (``| head``) ends the command quietly."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None


def finish(code: int) -> NoReturn:
    raise typer.Exit(code)


def console(*, stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def interactive(json_output: bool) -> bool:
    """Progress only for a person watching: never on pipes or with --json."""
    return not json_output and sys.stdout.isatty() and sys.stderr.isatty()


def rendered_here(format_given: bool) -> bool:
    """Markdown is rendered for a person at a terminal unless --format asked for it as is."""
    return not format_given and sys.stdout.isatty()


def print_markdown(text: str) -> None:
    """Markdown as a person reads it: escapes resolved, ``[n]`` kept, links clickable."""
    from rich.markdown import Markdown

    console().print(Markdown(CONTROL.sub("", text), hyperlinks=True))


def print_source(number: int | str, title: str, url: str, note: str, rendered: bool) -> None:
    """``[n] title - URL (note)``: the address is visible, and at a terminal the title is
    also a link it can open (many terminals and tmux show no OSC 8 links)."""
    tail = f" - {url}" + (f" ({note})" if note else "")
    if not rendered:
        out(f"[{number}] {title}{tail}\n")
        return
    from rich.style import Style
    from rich.text import Text

    shown = Text(f"[{number}] ")
    shown.append(CONTROL.sub("", title), style=Style(link=url))
    shown.append(CONTROL.sub("", tail))
    console().print(shown, soft_wrap=True)


def escape(text: str) -> str:
    """Text from pages, paths or models, never read as rich markup."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


@contextmanager
def status(message: str, enabled: bool, screen: Console | None = None) -> Iterator[Any]:
    """A spinner on stderr while a person waits; its ``update`` takes plain text."""
    if not enabled:
        yield None
        return
    with (screen or console(stderr=True)).status(escape(message)) as spinner:
        yield spinner


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

    class Rate(bars.ProgressColumn):
        def render(self, task: bars.Task) -> Text:
            speed = task.finished_speed or task.speed
            shown = f"{speed:,.1f} files/s" if speed else "- files/s"
            return Text(shown, style="progress.data.speed")

    with bars.Progress(
        bars.TextColumn("extracting"),
        bars.BarColumn(),
        bars.MofNCompleteColumn(),
        bars.TextColumn("files"),
        Rate(),
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

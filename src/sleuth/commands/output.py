"""Everything the commands print: stdout text and JSON, Markdown for a terminal, sources
and spinners on stderr (progress bars: :mod:`sleuth.commands.progress`).

Results go to stdout, progress and logs to stderr; a person at a terminal gets progress,
a pipe or ``--json`` never does. rich loads only when something is drawn.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
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

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

from sleuth.errors import ERRORS, Ref, SleuthError

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


# -- errors in the CLI's words ------------------------------------------------------------
# Below the CLI an error names a Python parameter or a named hint key; the CLI spells each
# as its flag (read from the running command's declaration), and these named keys as
# below ("{}" takes the way out's value, or each of its items).
HINT_WORDS: dict[str, str] = {
    "robots_override": "; a person may pass --ignore-robots",
    "signals_override": "; a person may pass --ignore-content-signals",
    "max_turns_setting": "--max-turns (SLEUTH_LLM_MAX_TURNS)",
    "stages_list": "--stages takes a comma list",
    "scope_kinds": "--scope host, domain or prefix",
    "pass_batch": "pass --batch",
    "pass_yes": "pass --yes",
    "ask_person": "run it on a terminal",
    "discover_source": "sleuth discover {} --from {}",
    "example_tool": "`sleuth discover jq`",
    "settings_names": "`sleuth config show`",
    "settings_shown": " with `sleuth config show`",
    "config_path": "--config",
}


def spell(ref: Ref) -> str:
    """A way out an error names, as the CLI says it: a flag and its value, or a named key."""
    words = HINT_WORDS.get(ref.key)
    if words is not None:
        return words.format(*(ref.value if isinstance(ref.value, tuple) else (ref.value,)))
    flag = _flag(ref.key)
    if ref.value is None or ref.value is True:
        return flag
    if isinstance(ref.value, list | tuple):
        return f"{flag} {','.join(str(item) for item in ref.value)}"
    return f"{flag} {ref.value}"


def _flag(name: str) -> str:
    """``name``'s spelling in the running command's declaration (else any loaded one's):
    its argument's metavar, its first long flag; ``--the-name`` when none declares it."""
    from sleuth.commands.options import STATE
    from sleuth.operation import OPERATIONS as declared
    from sleuth.ops import REGISTRY  # noqa: F401  (every operation declared, to spell its flags)

    running = declared.get(STATE.command or "")
    for op in [o for o in (running, *declared.values()) if o is not None]:
        for param in op.params:
            if param.name != name or "cli" not in param.arg.on:
                continue
            if param.arg.positional:
                return str(param.arg.metavar or name.upper())
            flags = [f for f in (param.arg.negate, *param.arg.flags) if f and f.startswith("--")]
            return str(flags[0]) if flags else _default_flag(name)
    return _default_flag(name)


def _default_flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def error_text(error: SleuthError) -> str:
    """``error``'s message and hint in the CLI's words."""
    return error.worded(spell)


def error_record(error: SleuthError) -> dict[str, object]:
    """``error`` as the CLI's JSON reports it, in the CLI's words."""
    return {**error.to_dict(), "message": error_text(error)}


def reworded(code: str, text: str) -> str:
    """A message that has left its exception (a fetch result's error) in the CLI's words:
    the default hint of ``code``'s class re-spelled."""
    cls = ERRORS.get(code)
    if cls is None or not cls.refs:
        return text
    return text.replace(cls.hint_for(), cls.hint_for(spell))


def reworded_note(text: str) -> str:
    """A note that quotes an error's message without naming its code (a map's or a
    crawl's) in the CLI's words: each class's default hint found in it re-spelled."""
    done: set[str] = set()
    for cls in ERRORS.values():
        hint = cls.hint_for() if cls.refs else ""
        if hint and hint not in done and hint in text:
            done.add(hint)
            text = text.replace(hint, cls.hint_for(spell))
    return text

"""The ``sleuth`` command: the app, its global options, its commands (every operation's in
the registry, :data:`sleuth.ops.REGISTRY`, and the few others listed here; each in
:mod:`sleuth.commands`) and :func:`main`, which turns every outcome into one line and its
own exit code (see :data:`sleuth.errors.EXIT_CODES`), in the CLI's words
(:func:`sleuth.commands.output.error_text`).

Results go to stdout, progress and logs to stderr.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import functools
import gc
import json
import os
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer._click import ClickException
from typer.models import CommandInfo

from sleuth._version import __version__
from sleuth.commands import derive, serve, tools, worker
from sleuth.commands.cache import cache_app
from sleuth.commands.config import config_app
from sleuth.commands.options import STATE, PlainHelp
from sleuth.commands.output import ReaderGone, error_text, out
from sleuth.errors import SleuthError

if TYPE_CHECKING:
    app: typer.Typer  # every command; built on first use (see __getattr__)

__all__ = ["STATE", "app", "main"]

# The commands that are not operations, written by hand in sleuth.commands, each with its
# place in ``sleuth --help`` among the operations' commands (those come from the registry,
# sleuth.ops.REGISTRY, each placed by its own command: derive.command(place=...)).
OWN_COMMANDS: tuple[tuple[int, Callable[..., None]], ...] = (
    (60, tools.tools),
    (70, serve.serve),
    (90, serve.mcp),
    (125, worker.worker),
)
OWN_GROUPS: tuple[tuple[str, typer.Typer], ...] = (("config", config_app), ("cache", cache_app))

_root = typer.Typer(
    name="sleuth",
    help="Safe, fast, cited access to the web for people and LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        out(f"sleuth {__version__}\n")
        raise typer.Exit()


@_root.callback()
def main_options(
    ctx: typer.Context,
    verbose: Annotated[
        int,
        typer.Option(
            "-v",
            "--verbose",
            count=True,
            show_default=False,
            help="-v: info logs and tracebacks; -vv: debug logs.",
        ),
    ] = 0,
    config: Annotated[
        Path | None,
        typer.Option("--config", metavar="FILE", help="TOML settings file.", dir_okay=False),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print version.")
    ] = False,
) -> None:
    STATE.verbose = verbose
    STATE.config = config
    STATE.command = ctx.invoked_subcommand


def _report(error: dict[str, Any]) -> None:
    """With --json a failure is JSON on stdout too, so a script always gets JSON.

    One line, so that it also reads as a record of ``--format jsonl``.
    """
    if STATE.json or "--json" in sys.argv[1:]:
        out(json.dumps({"error": error}, ensure_ascii=False) + "\n")


def _with(commands: list[tuple[str, Callable[..., None]]], groups: list[str]) -> typer.Typer:
    """The root app (its options, no commands yet) with these commands and groups."""
    made = copy.copy(_root)
    made.registered_commands = [
        CommandInfo(name=name, cls=PlainHelp, callback=callback) for name, callback in commands
    ]
    made.registered_groups = []
    for name, group in OWN_GROUPS:
        if name in groups:
            made.add_typer(group, name=name)
    return made


def _operations() -> list[tuple[int, str, Callable[..., None]]]:
    """Every operation's command, from the registry: its place, name and callback."""
    from sleuth.ops import REGISTRY  # here, not above: --version loads no operation

    made = [derive.command_of(op) for op in REGISTRY if derive.offered(op)]
    return [(command.place, command.op.name, command) for command in made]


@functools.cache
def _whole() -> typer.Typer:
    """The app with every command, in the order ``sleuth --help`` lists them."""
    own = [(place, _name(callback), callback) for place, callback in OWN_COMMANDS]
    listed = sorted([*_operations(), *own], key=lambda found: found[0])
    return _with([(name, callback) for _, name, callback in listed], [n for n, _ in OWN_GROUPS])


def __getattr__(name: str) -> typer.Typer:
    """``app`` is built when first named: a run builds only the command it names, and
    ``--version`` loads no operation at all."""
    if name == "app":
        return _whole()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _named(name: str) -> typer.Typer | None:
    """The app with only the command (or group) called ``name``; None when none is."""
    if name in dict(OWN_GROUPS):
        return _with([], [name])
    own = [callback for _, callback in OWN_COMMANDS if _name(callback) == name]
    if own:
        return _with([(name, own[0])], [])
    from sleuth import ops  # here, not above: --version loads no operation

    # A built-in operation's declaration alone, so a run reads no other operation's module.
    op = ops.find(name) or next((op for op in ops.REGISTRY if op.name == name), None)
    if op is not None and derive.offered(op):
        return _with([(name, derive.command_of(op))], [])
    return None


def _invoked(argv: list[str]) -> typer.Typer:
    """The app with only the command this run names, so that start-up builds (and imports)
    one command rather than every command. Anything unclear gets the whole app."""
    if "--version" in argv:  # answered before any command is built (or its declaration read)
        return _with([], [])
    args = iter(argv)
    for arg in args:
        if arg == "--config":
            next(args, None)
        elif arg.startswith("-"):
            if arg not in ("-v", "-vv", "-vvv", "--verbose") and not arg.startswith("--config="):
                return _whole()
        else:
            return _named(arg) or _whole()
    return _whole()


def _name(callback: Callable[..., Any]) -> str:
    return getattr(callback, "__name__", "").replace("_", "-")


def _run() -> int:
    STATE.reset()  # a run in the same process (a test) starts from nothing
    try:
        code = _invoked(sys.argv[1:])(standalone_mode=False)
    except SleuthError as exc:
        if STATE.verbose:
            traceback.print_exc()
        message = error_text(exc)
        sys.stderr.write(f"sleuth: error: {message}\n")
        _report({"code": exc.code, "message": message, "retryable": exc.retryable})
        code = exc.exit_code
    except ClickException as exc:  # bad flags: click's usage message
        exc.show()
        _report({"code": "usage_error", "message": exc.format_message(), "retryable": False})
        code = exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("sleuth: interrupted\n")
        code = 130
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise ReaderGone from None
    return int(code or 0)


def main() -> None:
    """Entry point: one clear line for user errors, tracebacks only with -v.

    A reader that leaves early (``sleuth fetch URL | head -1``) ends the run
    quietly with status 0: stdout is pointed at /dev/null so that the final
    flush cannot fail again.
    """
    # Start-up allocates the objects of hundreds of modules and frees almost none of them:
    # those imported so far live as long as the process, so no collection walks them again,
    # and young objects are collected less often (a short command spent a sixth of its
    # time collecting).
    gc.freeze()
    gc.set_threshold(5000)
    try:
        code = _run()
    except ReaderGone:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    _leave(code)


def _leave(code: int) -> NoReturn:
    """End the process without the interpreter's teardown, when nothing else runs.

    Freeing the objects of the hundreds of modules a command imports, one by one, takes
    a short command about a tenth of its time, after its answer is written. With no other
    thread alive, the exit handlers run (logging's flush, the document workers' close),
    stdout and stderr are flushed, and the process ends there; with one, Python's own
    exit waits for it as usual.
    """
    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)

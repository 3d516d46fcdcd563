"""The ``sleuth`` command: the app, its global options, the commands it registers (each in
:mod:`sleuth.commands`) and :func:`main`, which turns every outcome into one line and its
own exit code (see :data:`sleuth.errors.EXIT_CODES`), in the CLI's words
(:func:`sleuth.commands.output.error_text`).

Results go to stdout, progress and logs to stderr.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Annotated, Any

import typer
from typer._click import ClickException
from typer.models import CommandInfo

from sleuth._version import __version__
from sleuth.commands import (
    ask,
    crawl,
    detect,
    discover,
    extract,
    fetch,
    fill,
    research,
    search,
    serve,
    sitemap,
    suggest,
    tools,
    worker,
)
from sleuth.commands.cache import cache_app
from sleuth.commands.config import config_app
from sleuth.commands.options import STATE, PlainHelp
from sleuth.commands.output import ReaderGone, error_text, out
from sleuth.errors import SleuthError

__all__ = ["STATE", "app", "main"]

app = typer.Typer(
    name="sleuth",
    help="Safe, fast, cited access to the web for people and LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.add_typer(config_app, name="config")
app.add_typer(cache_app, name="cache")
for command in (
    fetch.fetch,
    extract.extract,
    search.search,
    research.research,
    ask.ask,
    tools.tools,
    serve.serve,
    suggest.suggest,
    serve.mcp,
    discover.discover,
    detect.detect,
    fill.fill,
    worker.worker,
):
    app.command(cls=PlainHelp)(command)
app.command("map", cls=PlainHelp)(sitemap.map_command)
app.command("crawl", cls=PlainHelp)(crawl.crawl_command)


def _version(value: bool) -> None:
    if value:
        out(f"sleuth {__version__}\n")
        raise typer.Exit()


@app.callback()
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


def _invoked(argv: list[str]) -> typer.Typer:
    """The app with only the command this run names, so that start-up builds one command's
    options rather than every command's. Anything unclear gets the whole app."""
    if "--version" in argv:  # answered before any command is built (or its declaration read)
        slim = copy.copy(app)
        slim.registered_commands, slim.registered_groups = [], []
        return slim
    args = iter(argv)
    for arg in args:
        if arg == "--config":
            next(args, None)
        elif arg.startswith("-"):
            if arg not in ("-v", "-vv", "-vvv", "--verbose") and not arg.startswith("--config="):
                return app
        else:
            commands = [c for c in app.registered_commands if _name(c) == arg]
            groups = [g for g in app.registered_groups if g.name == arg]
            if not commands and not groups:
                return app
            slim = copy.copy(app)
            slim.registered_commands, slim.registered_groups = commands, groups
            return slim
    return app


def _name(command: CommandInfo) -> str:
    if command.name:
        return command.name
    return getattr(command.callback, "__name__", "").replace("_", "-")


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
    sys.exit(code)

"""What every command shares: the run's state, the one settings-and-logging set-up, the
option types and the help layout.

Light on purpose: only typer and the standard library load here, so ``--version`` and
``--help`` pay for nothing a command does not run.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer._click import Context, HelpFormatter, Parameter
from typer.core import TyperCommand

if TYPE_CHECKING:
    from sleuth.config import Settings
    from sleuth.session import AsyncSession


class State:
    """This run's global options, set once by the root callback and reset per run."""

    def __init__(self) -> None:
        self.verbose = 0
        self.config: Path | None = None
        self.command: str | None = None
        self.json = False  # the running command promised JSON on stdout, errors included

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]  # one run's state never leaks into the next


STATE = State()

# The one place that decides a command's default log level (before -v and
# SLEUTH_LOG_LEVEL): servers log only warnings; the rest follow the log format's default.
_DEFAULT_LEVEL = {"serve": "warning", "mcp": "warning"}


def settings(**overrides: object) -> Settings:
    """The settings of ``--config`` and the environment, with logging set up for them."""
    from sleuth import log
    from sleuth.config import load_settings

    loaded = load_settings(STATE.config, **overrides)
    default = _DEFAULT_LEVEL.get(STATE.command or "")
    level = loaded.log_level or {0: default, 1: "info"}.get(STATE.verbose, "debug")
    log.configure(loaded.log_format, level)
    return loaded


def session(resolve: list[str] | None = None) -> AsyncSession:
    """A session over :func:`settings`; ``resolve`` pins names like curl's ``--resolve``.
    The core session: a command runs its operation's function on it, so a run imports
    that operation alone, not every one the Python API binds."""
    from sleuth.session import AsyncSession  # the extractor loads here, not for --version

    if not resolve:
        return AsyncSession(settings())
    from sleuth.net import PinnedResolver, SystemResolver, parse_resolve_pins

    pinned = PinnedResolver(parse_resolve_pins(resolve), SystemResolver())
    return AsyncSession(settings(), resolver=pinned)


class MarkdownOrJson(StrEnum):
    markdown = "markdown"
    json = "json"


JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
ResolveOption = Annotated[
    list[str] | None,
    typer.Option(
        "--resolve",
        metavar="HOST:PORT:ADDR",
        help="Pin HOST:PORT to ADDR[,ADDR...] like curl; repeatable.",
    ),
]


class PlainHelp(TyperCommand):
    """Help that names positionals by their metavar alone, as most tools do.

    Typer would print ``URL <str>`` in the list and ``{URL}`` in the usage line.
    """

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces.append(_label(param) if param.required else f"[{_label(param)}]")
        return pieces

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        params = self.get_params(ctx)
        positionals = [
            (_label(p), getattr(p, "help", None) or "")
            for p in params
            if p.param_type_name == "argument"
        ]
        options = [p.get_help_record(ctx) for p in params if p.param_type_name == "option"]
        for title, rows in (("Arguments", positionals), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl([row for row in rows if row is not None])


def _label(param: Parameter) -> str:
    name = param.metavar or (param.name or "").upper()
    return name + ("..." if param.nargs != 1 else "")

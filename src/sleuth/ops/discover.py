"""discover: a developer tool's official source and how to install it."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from sleuth.log import Progress
from sleuth.operation import Arg, Own, ToolOffer, declare
from sleuth.ops.base import Http, Op
from sleuth.session import LLM_ERRORS, AsyncSession
from sleuth.toolkit import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from sleuth.discovery import Chooser
    from sleuth.discovery.models import DiscoveryResult

# discover's rules for a tool name and a BUILDER:SOURCE, written out for the schemas
# (the discovery code checks them; pydantic's regex engine has no look-ahead).
TOOL_NAME = r"^(?!.*(?:\.\.|//))\s*[A-Za-z0-9@][A-Za-z0-9._+@/-]{0,213}\s*$"
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"
_PACKAGE = r"@?[A-Za-z0-9][A-Za-z0-9._+@-]*(?:/[A-Za-z0-9][A-Za-z0-9._+-]*)?"
FROM_SOURCE = (
    r"^\s*(?:"
    rf"(?:github|gh|GitHub):{_OWNER}/(?!\.\.?\s*$)(?![A-Za-z0-9._-]*\.git\s*$)[A-Za-z0-9._-]{{1,100}}"
    r"|(?:go|golang):[a-z0-9.-]+\.[a-z]{2,}(?:/[A-Za-z0-9._~+-]+)+"
    r"|(?:crates\.io|cargo|crates|crate|npm|pypi|pip|pipx|rubygems|gem|gems|homebrew|brew|cask"
    rf"|cpan):(?!.*\.\.)(?=.{{1,214}}\s*$){_PACKAGE}"
    r")\s*$"
)


DISCOVER_ERRORS = (
    "usage_error",
    "suspicious_name",
    "not_found",
    "ambiguous",
    "confirmation_required",
    "confirmation_denied",
    "verification_failed",
    "discover_timeout",
    "discover_search_failed",
    "discover_error",
    *LLM_ERRORS,
)


@declare(
    "discover",
    summary="Find a tool's official source and how to install it.",
    errors=DISCOVER_ERRORS,
    tool=ToolOffer(
        "discover",
        "Discover a tool's source",
        "Find the official source of a developer tool (GitHub repository or package) and "
        "the command to install it: a curated registry first, then crates.io, npm, PyPI, "
        "RubyGems, Go, Homebrew and CPAN, then (if configured) an LLM web search verified "
        "on GitHub. Sources marked confirmation_required must be confirmed by the user.",
        # A model steered by web pages should not pick what gets installed.
        in_ask=False,
    ),
)
async def discover(
    session: AsyncSession,
    name: Annotated[
        str,
        Arg(
            "The tool, e.g. ripgrep; - reads names from stdin.",
            min_length=1,
            max_length=214,
            # discovery checks the rule (pydantic's regex engine has no look-ahead)
            schema={"pattern": TOOL_NAME},
            positional=True,
            metavar="NAME",
            own={
                "http": Own(help="The tool, e.g. ripgrep."),
                "tool": Own(help="The tool's name, e.g. ripgrep."),
            },
        ),
    ],
    *,
    from_source: Annotated[
        str | None,
        Arg(
            "Use this source, e.g. github:cli/cli.",
            schema={"pattern": FROM_SOURCE},
            wire="from",
            flags=("--from",),
            metavar="BUILDER:SOURCE",
            own={
                "tool": Own(help="A source you already know, as builder:source (github:cli/cli).")
            },
        ),
    ] = None,
    deterministic_only: Annotated[
        bool,
        Arg(
            "Registry and ecosystems only, no LLM.",
            own={"tool": Own(help="Only the registry and package ecosystems; no LLM web search.")},
        ),
    ] = False,
    stages: Annotated[
        Sequence[Literal["registry", "ecosystem", "llm"]] | None,
        Arg(
            "Stages to run: registry,ecosystem,llm (default all).",
            comma=True,
            metavar="LIST",
            own={"tool": Own(help="Which stages to run, in chain order. Default: all.")},
        ),
    ] = None,
    batch: Annotated[
        bool,
        Arg(
            "Never ask: take the top match when ambiguous; one JSON line per name.",
            on=("cli", "http"),
        ),
    ] = False,
    yes: Annotated[
        bool,
        Arg(
            "Accept a web-found source without asking (not forks).",
            on=("cli", "http"),
            flags=("--yes", "-y"),
        ),
    ] = False,
    timeout: Annotated[
        float | None,
        Arg(
            "Seconds for web discovery. Default 15.",
            ge=1,
            le=600,
            on=("cli", "http"),
            metavar="S",
        ),
    ] = None,
    on_progress: Progress | None = None,
    choose: Chooser | None = None,
) -> DiscoveryResult:
    """The official source of a developer tool; see :mod:`sleuth.discovery`.

    Never prompts: a source a person must confirm comes back with
    ``confirmation_required``; ``choose`` lets a caller pick among ambiguous matches.
    """
    from sleuth.discovery import discover
    from sleuth.discovery.llm_stage import WebTools
    from sleuth.ops.fetch import FETCH_PAGE
    from sleuth.ops.search import WEB_SEARCH

    return await discover(
        session,
        name,
        web_tools=WebTools(search=WEB_SEARCH, fetch=FETCH_PAGE),
        from_source=from_source,
        deterministic_only=deterministic_only,
        stages=stages,
        batch=batch,
        yes=yes,
        timeout=timeout,
        on_progress=on_progress,
        choose=choose,
    )


async def run(context: ToolContext, args: Any) -> ToolOutput:
    """discover as a tool for MCP clients and callers' own loops. It never prompts: an
    ambiguous match is taken as the flagged top match, and a source a person should
    confirm says so in its text, for the client to ask its user."""
    from sleuth.discovery.confirm import render

    session = context.client
    assert isinstance(session, AsyncSession)  # discover searches with the session's own tools
    result = await discover(
        session,
        args.name,
        from_source=args.from_source,
        deterministic_only=args.deterministic_only,
        stages=args.stages,
        batch=True,
        on_progress=context.on_progress,
    )
    text = render(result)
    if result.confirmation_required:
        text += (
            f"\n\nASK THE USER before using {result.spec}: {result.confirmation_reason}. "
            "Show them the details above."
        )
    return ToolOutput(text, result)


@functools.cache
def discover_tool() -> Tool:
    """The discover tool, built when first offered: the result's models load then."""
    from sleuth.discovery.models import DiscoveryResult

    return Tool.declared(discover, run, DiscoveryResult)


DISCOVER = Op(
    discover,
    http=Http(
        "/api/v1/discover",
        "Find where a developer tool comes from",
        "Never prompts: a source a person should confirm comes back with "
        "confirmation_required and confirmation_reason (send yes: true to accept); several "
        "equally good sources are a 409 AMBIGUOUS whose choices are the from strings.",
        present=lambda result: result.to_json(),
    ),
    tool=discover_tool,
)

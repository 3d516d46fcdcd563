"""detect: every project in a local repository and its stack (never served over HTTP).

As a tool it reads the local disk, so ``ask`` (where web pages could steer the model) leaves
it out; MCP clients and callers' own loops, which run on behalf of the person at the
machine, get it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel

from sleuth.operation import Arg, Own, ToolOffer, declare, operation_of
from sleuth.ops.base import Op, session_of
from sleuth.session import (
    LLM_ERRORS,
    AsyncSession,
)
from sleuth.stack.model import Project
from sleuth.stack.render import render_table
from sleuth.toolkit import Tool, ToolContext, ToolOutput


@declare(
    "detect",
    summary="Find every project in a repository: its stack, build and run.",
    errors=("usage_error", *LLM_ERRORS),
    surfaces=("cli", "tool"),
    local=True,
    tool=ToolOffer(
        "detect",
        "Detect stack",
        "Find every project in a local repository (one per service in a monorepo) with "
        "its language, build system, framework, runtime, build and run commands and ports.",
        in_ask=False,
        open_world=False,
    ),
)
async def detect(
    session: AsyncSession,
    path: Annotated[
        Path | str,
        Arg(
            "The repository to scan. Default: here.",
            min_length=1,
            positional=True,
            metavar="PATH",
            own={"tool": Own(help="The repository folder to scan.")},
        ),
    ] = ".",
    *,
    mode: Annotated[
        Literal["full", "static", "llm", "llm_only"] | None,
        Arg(
            "static: detectors only; full: an LLM names what they cannot (when one is "
            "configured); llm: the LLM names everything. Default: SLEUTH_DETECTION_MODE.",
            own={"tool": Own(default="static")},
        ),
    ] = None,
    provider: Annotated[
        str | None,
        Arg("LLM provider for full and llm modes.", on=("cli",), metavar="NAME"),
    ] = None,
    model: Annotated[str | None, Arg("LLM model.", on=("cli",), metavar="MODEL")] = None,
) -> list[Project]:
    """Every project in a repository and its stack; see :mod:`sleuth.stack`."""
    from sleuth.stack.run import detect_stack

    return await detect_stack(
        path,
        detect=session.settings.detect,
        llm=session.settings.llm,
        clients=session.web.clients,
        cache=session.cache,
        mode=mode,
        provider=provider,
        model=model,
    )


class DetectOutput(BaseModel):
    projects: list[Project]


async def run(context: ToolContext, args: Any) -> ToolOutput:
    projects = await detect(session_of(context), **operation_of(detect).arguments("tool", args))
    return ToolOutput(render_table(projects), DetectOutput(projects=projects))


DETECT_TOOL = Tool.declared(detect, run, DetectOutput)
DETECT = Op(detect, tool=DETECT_TOOL)

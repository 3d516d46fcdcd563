"""``detect`` as a tool: the stack of every project in a local repository.

It reads the local disk, so ``ask`` (where web pages could steer the model) leaves it out;
MCP clients and callers' own loops, which run on behalf of the person at the machine, get it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sleuth.stack.model import Project
from sleuth.stack.render import render_table
from sleuth.tools.registry import Tool, ToolContext, ToolOutput


class DetectArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1, description="The repository folder to scan.")
    mode: Literal["static", "full", "llm"] = Field(
        "static",
        description="static: deterministic detectors only; full: an LLM names what they "
        "cannot; llm: the LLM names everything.",
    )


class DetectOutput(BaseModel):
    projects: list[Project]


async def detect(context: ToolContext, args: DetectArgs) -> ToolOutput:
    projects = await context.client.detect(args.path, mode=args.mode)
    return ToolOutput(render_table(projects), DetectOutput(projects=projects))


DETECT = Tool(
    name="detect",
    title="Detect stack",
    description=(
        "Find every project in a local repository (one per service in a monorepo) with its "
        "language, build system, framework, runtime, build and run commands and ports."
    ),
    arguments=DetectArgs,
    output=DetectOutput,
    run=detect,
    open_world=False,
    local=True,
)

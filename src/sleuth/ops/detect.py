"""detect: every project in a local repository and its stack (never served over HTTP).

As a tool it reads the local disk, so ``ask`` (where web pages could steer the model) leaves
it out; MCP clients and callers' own loops, which run on behalf of the person at the
machine, get it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from sleuth.operation import operation_of
from sleuth.ops.base import Op
from sleuth.session import AsyncSession
from sleuth.stack.model import Project
from sleuth.stack.render import render_table
from sleuth.toolkit import Tool, ToolContext, ToolOutput


class DetectOutput(BaseModel):
    projects: list[Project]


async def run(context: ToolContext, args: Any) -> ToolOutput:
    projects = await context.client.detect(
        **operation_of(AsyncSession.detect).arguments("tool", args)
    )
    return ToolOutput(render_table(projects), DetectOutput(projects=projects))


DETECT_TOOL = Tool.declared(AsyncSession.detect, run, DetectOutput)
DETECT = Op(AsyncSession.detect, tool=DETECT_TOOL)

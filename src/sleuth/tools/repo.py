"""``detect`` as a tool: the stack of every project in a local repository.

It reads the local disk, so ``ask`` (where web pages could steer the model) leaves it out;
MCP clients and callers' own loops, which run on behalf of the person at the machine, get it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from sleuth.operation import operation_of
from sleuth.session import AsyncSession
from sleuth.stack.model import Project
from sleuth.stack.render import render_table
from sleuth.tools.registry import Tool, ToolContext, ToolOutput


class DetectOutput(BaseModel):
    projects: list[Project]


async def detect(context: ToolContext, args: Any) -> ToolOutput:
    projects = await context.client.detect(
        **operation_of(AsyncSession.detect).arguments("tool", args)
    )
    return ToolOutput(render_table(projects), DetectOutput(projects=projects))


DETECT = Tool.declared(AsyncSession.detect, detect, DetectOutput)

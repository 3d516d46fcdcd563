"""fill: a JSON Schema filled from pages, every value quoted from the page it came from.

An ``incomplete`` answer (a required value the pages do not support) is still an answer:
HTTP sends it with 200 and MCP as structured content; only the CLI's exit code (90) says so.
"""

from __future__ import annotations

import json
from typing import Any

from sleuth.api import AsyncSleuth
from sleuth.extract.text import clean_line
from sleuth.fill import FillAnswer
from sleuth.ops.base import Http, Op, describe
from sleuth.tools import Tool, ToolContext, ToolOutput


def progress(stage: str, detail: dict[str, Any]) -> str:
    """The line a person watching a fill reads (the CLI's status and MCP's progress)."""
    if stage == "searching":
        return f"searching the web for {detail.get('query', '')!r}"
    if stage == "reading":
        pages = detail.get("pages", 0)
        return f"reading {pages} page{'' if pages == 1 else 's'}"
    if stage == "page":
        outcome = detail.get("outcome", "ok")
        url = detail.get("url", "")
        return f"page done: {url}" if outcome == "ok" else f"page not read ({outcome}): {url}"
    if stage == "filling":
        pages = detail.get("pages", 0)
        return f"asking the model about {pages} page{'' if pages == 1 else 's'}"
    return describe(stage, detail)


def render(answer: FillAnswer) -> str:
    """The answer for a person or a model: each value with its quote and page, then what
    the pages did not support and why, then the pages."""
    lines = [f"outcome: {answer.outcome}"]
    for item in answer.evidence:
        lines.append(f"{item.path} = {json.dumps(item.value, ensure_ascii=False)}")
        lines.append(f"  quote: {clean_line(item.quote)!r}")
        lines.append(f"  at: {item.locator}")
    if answer.unsupported:
        lines.append("unsupported:")
        for missing in answer.unsupported:
            lines.append(f"  {missing.path}: {missing.reason}")
            for side in missing.quotes:
                value = json.dumps(side.value, ensure_ascii=False)
                lines.append(f"    {value} ({clean_line(side.quote)!r}, {side.url})")
    lines.append("sources:")
    lines += [f"  {source.url}: {source.outcome}" for source in answer.sources]
    return "\n".join(lines)


async def run(context: ToolContext, args: Any) -> ToolOutput:
    answer = await context.client.fill(
        **FILL.operation.arguments("tool", args), on_progress=context.on_progress
    )
    data = json.dumps(answer.data, ensure_ascii=False)
    return ToolOutput(f"{render(answer)}\ndata: {data}", answer)


FILL = Op(
    AsyncSleuth.fill,
    http=Http(
        "/api/v1/fill",
        "Fill a JSON Schema from pages, every value quoted",
        "Send `schema` with either `urls` or `question` (not both). The answer is 200 "
        'whether its `outcome` is `"ok"` or `"incomplete"` (a required value the pages do '
        "not support); 422 SCHEMA_REFUSED for a schema sleuth will not fill, 400 for both or "
        "neither of urls and question, 503 LLM_NOT_CONFIGURED when no model is set up.",
    ),
    progress=progress,
    tool=Tool.declared(AsyncSleuth.fill, run, FillAnswer),
)

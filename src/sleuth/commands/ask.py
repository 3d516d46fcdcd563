"""``sleuth ask``: an LLM answers with cited web sources, usage and cost."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sleuth.commands import derive, output
from sleuth.commands.options import STATE, JsonFlag, MarkdownOrJson, session
from sleuth.ops import ask as op
from sleuth.ops.ask import ASK

if TYPE_CHECKING:
    from sleuth.agent import Answer


@derive.command(ASK, place=50)
def ask(
    arguments: dict[str, Any],
    format: Annotated[
        MarkdownOrJson | None,
        typer.Option(
            "--format",
            "-f",
            help="markdown: the answer as Markdown source (what a pipe gets; a terminal shows "
            "it rendered), or json (like --json).",
        ),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Answer a question with an LLM that searches and cites the web.

    Prints the answer with [n] citations, the sources behind them, and usage and cost.
    """
    json_output = json_output or format is MarkdownOrJson.json
    STATE.json = json_output
    client = session()
    from sleuth.ops.ask import ASK  # the status line's words, as MCP's progress says them

    watching = sys.stderr.isatty()
    screen = output.console(stderr=True) if watching else None

    async def run(status: Any) -> Any:
        def progress(stage: str, detail: dict[str, Any]) -> None:
            if screen is not None:
                note = tool_note(stage, detail)
                if note is not None:
                    screen.print(note, markup=False)
            if status is not None:
                status.update(output.escape(ASK.progress(stage, detail)))

        async with client:
            return await op.ask(client, **arguments, on_progress=progress if watching else None)

    with output.status("thinking", watching and not json_output, screen) as status:
        answer = asyncio.run(run(status))
    if json_output:
        output.print_json(answer.model_dump(mode="json"))
    else:
        _print_answer(answer, output.rendered_here(format is not None))


def tool_note(stage: str, detail: dict[str, Any]) -> str | None:
    """The line a tool call leaves above the spinner, if the stage is one."""
    if stage == "tool_call":
        arguments = json.dumps(detail.get("arguments", {}), ensure_ascii=False)
        return f"→ {detail.get('name')} {arguments}"
    if stage == "native_search":
        return f"→ native search {detail.get('query')!r}"
    if stage == "tool_done":
        return f"  {detail.get('outcome')} in {detail.get('latency_ms')} ms"
    return None


def _print_answer(answer: Answer, rendered: bool) -> None:
    if rendered:
        output.print_markdown(answer.answer.strip())
    else:
        output.out(answer.answer.strip() + "\n")
    if answer.citations:
        output.out("\nSources\n")
        for source in answer.citations:
            how = "read" if source.fetched else source.kind.replace("_", " ")
            title = source.title or source.url
            output.print_source(source.id, title, source.url, how, rendered)
    if answer.flagged_citations:
        ids = ", ".join(f"[{n}]" for n in answer.flagged_citations)
        output.out(f"\nRemoved citations sleuth never issued: {ids}\n")
    usage = answer.usage
    cost = "cost unknown" if answer.cost_usd is None else f"${answer.cost_usd:.4f}"
    if answer.cost_estimated:
        cost += " (estimated: the model is not in the price table)"
    output.out(
        f"\n{answer.provider} {answer.model} · {answer.turns} turns · "
        f"{len(answer.tool_calls)} tool calls · {usage.input_tokens:,} in / "
        f"{usage.output_tokens:,} out tokens · {cost}\n"
    )

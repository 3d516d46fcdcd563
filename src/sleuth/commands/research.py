"""``sleuth research``: a digest of cited bullets from searched and read pages."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sleuth.commands import derive, output
from sleuth.commands.options import STATE, JsonFlag, MarkdownOrJson, session
from sleuth.errors import EXIT_CODES
from sleuth.ops import research as op
from sleuth.ops.research import RESEARCH

if TYPE_CHECKING:
    from sleuth.digest import Digest


@derive.command(RESEARCH, place=40)
def research(
    arguments: dict[str, Any],
    format: Annotated[
        MarkdownOrJson | None,
        typer.Option(
            "--format",
            "-f",
            help="markdown: cited bullets as Markdown source (what a pipe gets; a terminal "
            "shows it rendered), or json.",
        ),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Answer a question with cited bullets.

    Searches, reads the best pages and prints a digest whose bullets cite them.
    """
    from sleuth.digest import render_markdown
    from sleuth.ops.research import RESEARCH

    as_json = json_output or format is MarkdownOrJson.json
    STATE.json = as_json
    client = session()

    async def run(status: Any) -> Any:
        def progress(stage: str, detail: dict[str, Any]) -> None:
            if status is not None:
                status.update(output.escape(RESEARCH.progress(stage, detail)))

        async with client:
            return await op.research(client, **arguments, on_progress=progress)

    with output.status("searching", output.interactive(as_json)) as status:
        digest = _in_cli_words(asyncio.run(run(status)))
    if as_json:
        output.print_json(digest.model_dump())
    elif output.rendered_here(format is not None):
        _print_for_a_person(digest)
    else:
        output.out(render_markdown(digest).rstrip("\n") + "\n")
    if not digest.bullets:
        codes = [error.code for error in digest.errors]
        fatal = next((c for c in codes if c.startswith(("search_", "provider_"))), "no_results")
        output.finish(EXIT_CODES.get(fatal, EXIT_CODES["no_results"]))


def _in_cli_words(digest: Digest) -> Digest:
    """``digest`` with each error's hint spelled as the CLI's flags."""
    errors = [
        error.model_copy(update={"message": output.reworded(error.code, error.message)})
        for error in digest.errors
    ]
    return digest.model_copy(update={"errors": errors})


def _print_for_a_person(digest: Digest) -> None:
    """The digest rendered, with each source's address printed where anyone can read it
    (many terminals and tmux show no OSC 8 links): ``[n] title - URL (domain, date)``."""
    from sleuth.digest import render_markdown

    body = render_markdown(digest.model_copy(update={"citations": [], "errors": []}))
    whole = render_markdown(digest.model_copy(update={"citations": []}))
    output.print_markdown(body)
    if digest.citations:
        output.console().print("\nSources", style="bold", highlight=False)
        for source in digest.citations:
            details = ", ".join(d for d in (source.domain, source.published) if d)
            output.print_source(source.id, source.title, source.url, details, rendered=True)
    rest = whole[len(body) - 1 :] if whole.startswith(body[:-1]) else ""
    if rest.strip():
        output.print_markdown(rest)

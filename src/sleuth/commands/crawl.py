"""``sleuth crawl``: a site read breadth first, politely, within a scope."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from sleuth.commands import derive, output
from sleuth.commands.map import FormatOption, JsonlFlag, ListFormat
from sleuth.commands.options import ResolveOption, session
from sleuth.commands.progress import CrawlProgress
from sleuth.errors import EXIT_CODES
from sleuth.ops import crawl as op
from sleuth.ops.crawl import CRAWL

if TYPE_CHECKING:
    from sleuth.crawl.run import CrawlRun
    from sleuth.jobs.clirun import JobRun
    from sleuth.session import AsyncSession

OutOption = Annotated[
    Path | None,
    typer.Option("--out", metavar="DIR", help="Write one Markdown file per page here."),
]
LlmsTxtOption = Annotated[
    Path | None, typer.Option("--llms-txt", metavar="FILE", help="Write an llms.txt here.")
]


@dataclass(frozen=True)
class CrawlFiles:
    """What ``--out`` and ``--llms-txt`` leave behind: one Markdown file per page (its URL's
    path) as pages arrive, then ``index.md`` and the llms.txt of every page the crawl has
    read, earlier runs of a resumed crawl included."""

    out: Path | None = None
    llms_txt: Path | None = None

    @property
    def text(self) -> Literal["text", "markdown"]:
        """The pages' text the crawl must return: Markdown for the files."""
        return "markdown" if self.out is not None else "text"

    def page(self, record: dict[str, Any]) -> None:
        """Write a page read under ``out``; its record names the file (``file``)."""
        if self.out is None or record.get("outcome") != "ok":
            return
        from sleuth.crawl.output import markdown_path, page_markdown

        relative = markdown_path(record["url"])
        target = (self.out / relative).resolve()
        if not target.is_relative_to(self.out.resolve()):  # never outside --out, whatever URL
            raise ValueError(f"{record['url']} maps outside {self.out}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page_markdown(record), encoding="utf-8")
        record["file"] = relative.as_posix()

    async def finish(self, run: CrawlRun | JobRun) -> None:
        """Write ``index.md`` and the llms.txt from every page of the crawl."""
        if self.out is None and self.llms_txt is None:
            return
        from sleuth.crawl.output import index_markdown, llms_txt

        pages = await run.summaries()
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            (self.out / "index.md").write_text(
                index_markdown(pages, start=run.start), encoding="utf-8"
            )
        if self.llms_txt is not None:
            self.llms_txt.parent.mkdir(parents=True, exist_ok=True)
            self.llms_txt.write_text(llms_txt(pages, start=run.start), encoding="utf-8")


@derive.command(CRAWL, place=140)
def crawl_command(
    arguments: dict[str, Any],
    *,
    out: OutOption = None,
    llms_txt: LlmsTxtOption = None,
    format: FormatOption = ListFormat.text,
    resolve: ResolveOption = None,
    json_output: JsonlFlag = False,
) -> None:
    """Read a site breadth first, politely, within a scope.

    One record per page, failures included.
    """
    machine = json_output or format is ListFormat.jsonl
    client = session(resolve)
    bar = CrawlProgress(sys.stderr.isatty())
    files = CrawlFiles(out, llms_txt)
    outcomes: list[str] = []

    async def run() -> None:
        async with client, _crawl(client, arguments, files.text) as crawl:
            async for record in crawl:
                files.page(record)
                outcomes.append(record["outcome"])
                if machine:
                    output.line(json.dumps(_shown(record), ensure_ascii=False, default=str))
                else:
                    title = " ".join((record.get("title") or "").split())
                    output.line(f"{record['outcome']}\t{record['url']}\t{title}".rstrip("\t"))
                bar.show(crawl.progress)
            bar.show(crawl.progress, final=True)
            await files.finish(crawl)
            for note in crawl.notes:  # a deadline's too: the crawl still exits 0
                sys.stderr.write(f"sleuth: note: {output.reworded_note(note)}\n")

    asyncio.run(run())
    if outcomes and "ok" not in outcomes:
        raise typer.Exit(EXIT_CODES.get(outcomes[0], 1))


def _crawl(
    client: AsyncSession, arguments: dict[str, Any], text: Literal["text", "markdown"]
) -> CrawlRun | JobRun:
    """The crawl to print: on the shared Redis a job on the engine, which this process
    works with any other; otherwise a run here, its resume state in the cache."""
    from sleuth.jobs.clirun import JobRun, on_engine

    if on_engine(client.settings):
        return JobRun(client, arguments, text)
    return op.crawl(client, **arguments, format=text)


def _shown(record: dict[str, Any]) -> dict[str, Any]:
    """A page record with its error's hint in the CLI's words."""
    error = record.get("error")
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        return record
    message = output.reworded(str(error.get("code")), error["message"])
    return {**record, "error": {**error, "message": message}}

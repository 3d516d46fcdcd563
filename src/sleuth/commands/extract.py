"""``sleuth extract``: text from local HTML, PDF and text files, offline."""

from __future__ import annotations

import asyncio
import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from sleuth.commands import derive, output, progress
from sleuth.commands.options import STATE, session
from sleuth.errors import EXIT_CODES, UsageError
from sleuth.ops import extract as op
from sleuth.ops.extract import EXTRACT


class ExtractFormat(StrEnum):
    text = "text"
    markdown = "markdown"
    json = "json"
    jsonl = "jsonl"


@derive.command(EXTRACT, place=20)
def extract(
    arguments: dict[str, Any],
    format: Annotated[
        ExtractFormat,
        typer.Option(
            "--format",
            "-f",
            help="text, markdown, json (one record, or a list for a batch) or jsonl "
            "(one record per line).",
        ),
    ] = ExtractFormat.text,
    json_output: Annotated[
        bool,
        typer.Option(
            "--json", help="Print JSON records; with --format markdown their text is Markdown."
        ),
    ] = False,
) -> None:
    """Extract text from local HTML, PDF and text.

    Offline. Reads HTML, PDF, plain text, Markdown, reST, CSV, JSON and XML (feeds as their
    entries), plain or .gz; a folder gives every such file in it. Other binaries are
    unsupported_type. One document exits with its outcome's code and reports a failure
    as one line on stderr. A batch (several paths or a folder) goes on past failures,
    reports each per file (outcome "unreadable" for a file that cannot be read or
    unzipped), and exits 0 when every file is ok, else 19 (empty_extraction).
    """
    as_json = json_output and format is not ExtractFormat.jsonl
    fmt = ExtractFormat.json if as_json else format
    STATE.json = fmt in (ExtractFormat.json, ExtractFormat.jsonl)
    client = session()
    inputs = arguments["paths"] or ("-",)
    batch = len(inputs) > 1 or any(p != "-" and Path(p).is_dir() for p in inputs)
    records: list[dict[str, Any]] = []
    shown = progress.ProgressOnDemand(batch and progress.batch_progress_wanted(STATE.json))

    async def run() -> None:
        async with client:
            async for record in op.extract(
                client,
                **arguments,
                output="markdown" if format is ExtractFormat.markdown else "text",
                on_progress=shown.update,
            ):
                if isinstance(record.get("reason"), str):  # its hint in the CLI's words
                    record["reason"] = output.reworded(record["outcome"], record["reason"])
                if record["outcome"] == "unreadable" and not batch:
                    raise UsageError(f"{record['file']}: {record['reason']}")
                records.append(record)
                if fmt is ExtractFormat.jsonl:
                    output.out(json.dumps(record, ensure_ascii=False) + "\n")
                elif fmt is not ExtractFormat.json:
                    _print_extracted(record, batch)

    with shown:
        asyncio.run(run())
    if fmt is ExtractFormat.json:
        output.print_json(records if batch else records[0])
    failed = [r["outcome"] for r in records if r["outcome"] != "ok"]
    if batch:
        output.finish(EXIT_CODES["empty_extraction"] if failed else 0)
    output.finish(EXIT_CODES.get(failed[0], 1) if failed else 0)


def _print_extracted(record: dict[str, Any], batch: bool) -> None:
    """Text on stdout; a failure is one line on stderr, never the page's (bot-check) text."""
    if record["outcome"] != "ok":
        where = f"{record['file']}: " if batch else ""
        reason = record["reason"] or "no usable text"
        sys.stderr.write(f"sleuth: {where}{record['outcome']}: {reason}\n")
        return
    if batch:
        output.out(f"==> {record['file']} <==\n")
    output.out(record["text"].rstrip("\n") + "\n")

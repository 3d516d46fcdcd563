"""``sleuth extract``: text from local HTML, PDF and text files, offline."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import typer

from sleuth.commands import files, output
from sleuth.commands.options import STATE, settings
from sleuth.errors import EXIT_CODES, UsageError


class ExtractFormat(StrEnum):
    text = "text"
    markdown = "markdown"
    json = "json"
    jsonl = "jsonl"


def extract(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PATH",
            show_default=False,
            help="HTML, PDF or text files (plain or .gz), folders, or - for stdin (the default).",
        ),
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="The page's address: resolves the canonical URL and recognises forum threads.",
        ),
    ] = None,
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
    loaded = settings()
    if url is not None:
        _check_url(url)
    text: Literal["text", "markdown"] = "markdown" if format is ExtractFormat.markdown else "text"
    inputs = paths or ["-"]
    batch = len(inputs) > 1 or any(p != "-" and Path(p).is_dir() for p in inputs)
    records: list[dict[str, Any]] = []
    names = files.expand(inputs)
    limit = max(loaded.max_decoded_bytes, loaded.max_document_bytes)
    showing = batch and len(names) > 1 and output.batch_progress_wanted(STATE.json)
    with output.batch_progress(len(names), showing) as advance:
        for name in names:
            data = files.read(name, limit)
            if isinstance(data, str) and not batch:
                raise UsageError(f"{name}: {data}")
            record = files.record(name, data, url, text, loaded)
            records.append(record)
            if fmt is ExtractFormat.jsonl:
                output.out(json.dumps(record, ensure_ascii=False) + "\n")
            elif fmt is not ExtractFormat.json:
                _print_extracted(record, batch)
            advance()
    if fmt is ExtractFormat.json:
        output.print_json(records if batch else records[0])
    failed = [r["outcome"] for r in records if r["outcome"] != "ok"]
    if batch:
        output.finish(EXIT_CODES["empty_extraction"] if failed else 0)
    output.finish(EXIT_CODES.get(failed[0], 1) if failed else 0)


def _check_url(url: str) -> None:
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # "http://[::1/"
        valid = False
    if not valid:
        raise UsageError(
            f"--url {url!r} is not an absolute http(s) URL",
            hint="pass the page's address, like https://example.com/page",
        )


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

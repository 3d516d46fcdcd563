"""The ``sleuth`` command: a thin layer that parses flags, calls :mod:`sleuth.api`
and prints. Results go to stdout, progress and logs to stderr, and every
outcome has its own exit code (see :data:`sleuth.errors.EXIT_CODES`).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
import traceback
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn
from urllib.parse import urlsplit

import typer
from rich.console import Console
from rich.markup import escape
from typer._click import ClickException, Context, HelpFormatter, Parameter
from typer.core import TyperCommand

from sleuth import log
from sleuth._version import __version__
from sleuth.config import Settings, describe, load_settings
from sleuth.errors import EXIT_CODES, SleuthError, UsageError

if TYPE_CHECKING:
    from sleuth.api import AsyncSleuth

app = typer.Typer(
    name="sleuth",
    help="Safe, fast, cited access to the web for people and LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
config_app = typer.Typer(help="Show the effective settings.", no_args_is_help=True)
cache_app = typer.Typer(help="Inspect or empty the cache.", no_args_is_help=True)
app.add_typer(config_app, name="config")
app.add_typer(cache_app, name="cache")

stderr = Console(stderr=True, highlight=False)


class State:
    verbose: int = 0
    config: Path | None = None
    json: bool = False  # the running command promised JSON on stdout, errors included


STATE = State()


class ReaderGone(Exception):
    """stdout's reader went away (``| head``).

    Not an OSError on purpose: typer would turn a BrokenPipeError into exit 1.
    """


class FetchFormat(StrEnum):
    text = "text"
    markdown = "markdown"
    html = "html"


class ExtractFormat(StrEnum):
    text = "text"
    markdown = "markdown"
    json = "json"
    jsonl = "jsonl"


class RenderChoice(StrEnum):
    auto = "auto"
    always = "always"
    never = "never"


class ResearchFormat(StrEnum):
    markdown = "markdown"
    json = "json"


class AskFormat(StrEnum):
    markdown = "markdown"
    json = "json"


class PlainHelp(TyperCommand):
    """Help that names positionals by their metavar alone, as most tools do.

    Typer would print ``URL <str>`` in the list and ``{URL}`` in the usage line.
    """

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces.append(_label(param) if param.required else f"[{_label(param)}]")
        return pieces

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        params = self.get_params(ctx)
        positionals = [
            (_label(p), getattr(p, "help", None) or "")
            for p in params
            if p.param_type_name == "argument"
        ]
        options = [p.get_help_record(ctx) for p in params if p.param_type_name == "option"]
        for title, rows in (("Arguments", positionals), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl([row for row in rows if row is not None])


def _label(param: Parameter) -> str:
    name = param.metavar or (param.name or "").upper()
    return name + ("..." if param.nargs != 1 else "")


JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def _out(text: str) -> None:
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        raise ReaderGone from None


def _print_json(payload: Any) -> None:
    _out(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


def _version(value: bool) -> None:
    if value:
        _out(f"sleuth {__version__}\n")
        raise typer.Exit()


@app.callback()
def main_options(
    verbose: Annotated[
        int,
        typer.Option(
            "-v",
            "--verbose",
            count=True,
            show_default=False,
            help="-v: info logs and tracebacks; -vv: debug logs.",
        ),
    ] = 0,
    config: Annotated[
        Path | None,
        typer.Option("--config", metavar="FILE", help="TOML settings file.", dir_okay=False),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print version.")
    ] = False,
) -> None:
    STATE.verbose = verbose
    STATE.config = config


def _client(**overrides: Any) -> AsyncSleuth:
    from sleuth.api import AsyncSleuth  # the extractor loads here, not for --version

    settings = load_settings(STATE.config, **overrides)
    level = settings.log_level or {0: None, 1: "info"}.get(STATE.verbose, "debug")
    log.configure(settings.log_format, level)
    return AsyncSleuth(settings)


def _interactive(json_output: bool) -> bool:
    """Progress only for a person watching: never on pipes or with --json."""
    return not json_output and sys.stdout.isatty() and sys.stderr.isatty()


def _batch_progress_wanted(machine_output: bool) -> bool:
    """A batch's progress bar: for a person at the terminal, never beside JSON for a pipe."""
    return sys.stderr.isatty() and (sys.stdout.isatty() or not machine_output)


@contextmanager
def _batch_progress(total: int, enabled: bool) -> Iterator[Callable[[], None]]:
    """Files done, rate and time left on stderr; yields the "one more file" callback."""
    if not enabled:
        yield lambda: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(
                f"{speed:,.1f} files/s" if speed else "- files/s", style="progress.data.speed"
            )

    with Progress(
        TextColumn("extracting"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files"),
        Rate(),
        TimeElapsedColumn(),
        TextColumn("elapsed,"),
        TimeRemainingColumn(),
        TextColumn("left"),
        # soft_wrap: text printed above the bar keeps its own lines; the terminal wraps them.
        console=Console(stderr=True, highlight=False, soft_wrap=True),
        # Text for the same terminal is printed above the bar; text for a pipe is left alone.
        redirect_stdout=sys.stdout.isatty(),
        redirect_stderr=True,
    ) as bar:
        task = bar.add_task("extract", total=total)
        yield lambda: bar.advance(task)


# C0 controls (bar tab and newline) and DEL: page or model text must not drive the terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _rendered_here(format_given: bool) -> bool:
    """Markdown is rendered for a person at a terminal unless --format asked for it as is."""
    return not format_given and sys.stdout.isatty()


def _print_markdown(text: str) -> None:
    """Markdown as a person reads it: escapes resolved, ``[n]`` kept, links clickable."""
    from rich.markdown import Markdown

    Console(highlight=False).print(Markdown(_CONTROL.sub("", text), hyperlinks=True))


@contextmanager
def _status(message: str, enabled: bool) -> Iterator[Any]:
    if enabled:
        with stderr.status(escape(message)) as status:
            yield status
    else:
        yield None


def _finish(code: int) -> NoReturn:
    raise typer.Exit(code)


RenderOption = Annotated[
    RenderChoice | None,
    typer.Option(
        help="Headless browser: auto (only when a page needs JavaScript), always or never. "
        "Default: SLEUTH_RENDER, else auto."
    ),
]


@app.command(cls=PlainHelp)
def fetch(
    url: Annotated[str, typer.Argument(metavar="URL", help="The page to fetch (http or https).")],
    format: Annotated[
        FetchFormat,
        typer.Option(
            "--format", "-f", help="Main text, Markdown, or the cleaned main-content HTML."
        ),
    ] = FetchFormat.text,
    max_chars: Annotated[
        int | None,
        typer.Option(metavar="N", help="Print at most N characters; page on with --start-index."),
    ] = None,
    start_index: Annotated[
        int, typer.Option(metavar="N", help="Start at character N of the text.")
    ] = 0,
    render: RenderOption = None,
    refresh: Annotated[bool, typer.Option("--refresh", help="Bypass the cache.")] = False,
    ignore_robots: Annotated[
        bool, typer.Option("--ignore-robots", help="Fetch even where robots.txt forbids it.")
    ] = False,
    resolve: Annotated[
        list[str] | None,
        typer.Option(
            "--resolve",
            metavar="HOST:PORT:ADDR",
            help="Pin HOST:PORT to ADDR[,ADDR...] like curl; repeatable.",
        ),
    ] = None,
    links: Annotated[
        bool, typer.Option("--links", help="Also list the page's links (JSON always has them).")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Fetch a page safely and print its main text."""
    from sleuth.net import PinnedResolver, SystemResolver, parse_resolve_pins

    STATE.json = json_output
    client = _client()
    if resolve:
        client.resolver = PinnedResolver(parse_resolve_pins(resolve), SystemResolver())

    async def run() -> Any:
        async with client:
            return await client.fetch(
                url,
                format=format.value,
                render=render.value if render else None,
                refresh=refresh,
                respect_robots=not ignore_robots,
                max_chars=max_chars,
                start_index=start_index,
            )

    with _status(f"fetching {url}", _interactive(json_output)):
        result = asyncio.run(run())
    if json_output:
        _print_json(result.model_dump(exclude={"total_chars"}))
    elif result.ok:
        if result.title and format is not FetchFormat.html:
            heading = f"# {result.title}" if format is FetchFormat.markdown else result.title
            _out(heading + "\n\n")
        _out(result.text.rstrip("\n") + "\n")
        if result.truncated and result.next_start_index is not None:
            from sleuth.pages.paging import truncation_marker

            _out(truncation_marker(result.next_start_index).lstrip("\n") + "\n")
        if links:
            from sleuth.crawl.output import links_section

            _out(links_section(result.links, markdown=format is FetchFormat.markdown))
    else:
        message = result.error.message if result.error else result.outcome
        sys.stderr.write(f"sleuth: {result.outcome}: {message}\n")
    _finish(EXIT_CODES.get(result.outcome, 1))


def _expand(paths: list[str]) -> list[str]:
    """Files to read, in order: folders become what sleuth reads, ``-`` stays stdin.

    Anything that is no folder is read as a file, so ``/dev/stdin``, ``/dev/null`` and
    ``<(cmd)`` work too, and a missing file is reported in its turn as ``unreadable``.
    """
    if paths.count("-") > 1:
        raise UsageError("- (stdin) can be given only once")
    names: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = (p for p in path.rglob("*") if p.is_file() and _readable_file(p))
            names.extend(str(p) for p in sorted(found))
        else:
            names.append(raw)
    return names


def _readable_file(path: Path) -> bool:
    """In a folder: HTML, PDF and the text family by extension; no extension, by its bytes."""
    from sleuth.documents import binary_type, is_pdf, kind_by_name

    if kind_by_name(path.name) is not None:
        return True
    if "." in path.name.removesuffix(".gz").lstrip("."):
        return False  # an extension sleuth does not read (.png, .py, .zip)
    try:
        with path.open("rb") as handle:
            head = handle.read(8192)
    except OSError:
        return True  # reported as unreadable in its turn
    return bool(head) and (is_pdf(head) or binary_type(head) is None)


def _read(name: str, limit: int) -> bytes | str:
    """The document's bytes (gunzipped when compressed), or why it cannot be read.

    Reads at most ``limit`` + 1 bytes, before and after decompression, so an 83 MB file
    or a gzip bomb costs no more than the limit.
    """
    try:
        if name == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(name, "rb") as handle:
                data = handle.read(limit + 1)
    except FileNotFoundError:
        return "no such file or directory"
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if data[:2] != b"\x1f\x8b" or len(data) > limit:
        return data  # too large even compressed: the caller says so
    try:
        unpacker = zlib.decompressobj(wbits=31)
        inflated = unpacker.decompress(data, limit + 1)
    except zlib.error as exc:
        return f"broken gzip data: {exc}"
    if len(inflated) <= limit and not unpacker.eof:
        return "broken gzip data: the stream ends early"
    return inflated


def _size_limit(data: bytes, settings: Settings) -> tuple[int, str]:
    """The byte limit for this document and the setting that raises it."""
    from sleuth.documents import is_pdf

    if is_pdf(data):
        return settings.max_document_bytes, "SLEUTH_MAX_DOCUMENT_BYTES"
    return settings.max_decoded_bytes, "SLEUTH_MAX_DECODED_BYTES"


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


@app.command(cls=PlainHelp)
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
    settings = load_settings(STATE.config)
    if url is not None:
        _check_url(url)
    output: Literal["text", "markdown"] = "markdown" if format is ExtractFormat.markdown else "text"
    inputs = paths or ["-"]
    batch = len(inputs) > 1 or any(p != "-" and Path(p).is_dir() for p in inputs)
    records: list[dict[str, Any]] = []
    names = _expand(inputs)
    limit = max(settings.max_decoded_bytes, settings.max_document_bytes)
    showing = batch and len(names) > 1 and _batch_progress_wanted(STATE.json)
    with _batch_progress(len(names), showing) as advance:
        for name in names:
            data = _read(name, limit)
            if isinstance(data, str) and not batch:
                raise UsageError(f"{name}: {data}")
            record = _record(name, data, url, output, settings)
            records.append(record)
            if fmt is ExtractFormat.jsonl:
                _out(json.dumps(record, ensure_ascii=False) + "\n")
            elif fmt is not ExtractFormat.json:
                _print_extracted(record, batch)
            advance()
    if fmt is ExtractFormat.json:
        _print_json(records if batch else records[0])
    failed = [r["outcome"] for r in records if r["outcome"] != "ok"]
    if batch:
        _finish(EXIT_CODES["empty_extraction"] if failed else 0)
    _finish(EXIT_CODES.get(failed[0], 1) if failed else 0)


def _record(
    name: str,
    data: bytes | str,
    url: str | None,
    output: Literal["text", "markdown"],
    settings: Settings,
) -> dict[str, Any]:
    """One document's JSON record; ``data`` is its bytes or why they could not be read."""
    from sleuth.documents import read as read_document

    record: dict[str, Any] = {
        "file": name,
        "title": None,
        "text": "",
        "metadata": {},
        "outcome": "unreadable",
        "reason": data if isinstance(data, str) else None,
    }
    if isinstance(data, str):
        return record
    limit, setting = _size_limit(data, settings)
    if len(data) > limit:
        return {
            **record,
            "outcome": "too_large",
            "reason": f"it holds more than {limit:,} bytes; raise {setting} to read it",
        }
    try:
        result = read_document(
            data,
            name=None if name == "-" else name,
            url=url,
            output=output,
            max_pages=settings.max_document_pages,
            timeout=settings.document_timeout,
        )
    except SleuthError as error:
        return {**record, "outcome": error.code, "reason": str(error)}
    record.update(
        title=result.title,
        text=result.text if result.outcome == "ok" else "",
        metadata=result.metadata,
        outcome=result.outcome,
        reason=result.reason,
    )
    pages, read = result.metadata.get("pages"), result.metadata.get("pages_read")
    if isinstance(pages, int) and isinstance(read, int) and read < pages:
        record["truncated"] = True
    return record


def _print_extracted(record: dict[str, Any], batch: bool) -> None:
    """Text on stdout; a failure is one line on stderr, never the page's (bot-check) text."""
    if record["outcome"] != "ok":
        where = f"{record['file']}: " if batch else ""
        reason = record["reason"] or "no usable text"
        sys.stderr.write(f"sleuth: {where}{record['outcome']}: {reason}\n")
        return
    if batch:
        _out(f"==> {record['file']} <==\n")
    _out(record["text"].rstrip("\n") + "\n")


SiteOption = Annotated[
    list[str] | None,
    typer.Option("--site", metavar="SITE", help="Only this site (repeatable)."),
]
RecencyOption = Annotated[
    int | None,
    typer.Option("--recency-days", metavar="DAYS", min=1, help="Only results from the last DAYS."),
]


@app.command(cls=PlainHelp)
def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to search for.")],
    max_results: Annotated[
        int | None,
        typer.Option(
            "-n",
            "--max-results",
            metavar="N",
            min=1,
            max=10,
            help="How many results, 1-10. Default: SLEUTH_MAX_RESULTS.",
        ),
    ] = None,
    provider: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Ask only this provider (brave, tavily, serpapi, searxng, duckduckgo, "
            "or a plugin).",
        ),
    ] = None,
    recency_days: RecencyOption = None,
    site: SiteOption = None,
    exclude_site: Annotated[
        list[str] | None,
        typer.Option("--exclude-site", metavar="SITE", help="Never this site (repeatable)."),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Search the web with provider fallback.

    Exits 34 (no_results) when nothing matched.
    """
    STATE.json = json_output
    client = _client()

    async def run() -> Any:
        async with client:
            return await client.search(
                query,
                max_results=max_results,
                provider=provider,
                recency_days=recency_days,
                sites=site or (),
                exclude_sites=exclude_site or (),
            )

    with _status(f"searching for {query!r}", _interactive(json_output)):
        response = asyncio.run(run())
    if json_output:
        _print_json(response.model_dump())
    else:
        for hit in response.results:
            _out(f"{hit.rank}. {hit.title}\n   {hit.url}\n")
            if hit.snippet:
                _out(f"   {hit.snippet}\n")
        count = len(response.results)
        tried = ", ".join(f"{a.name}:{a.outcome}" for a in response.providers_tried)
        sys.stderr.write(f"{count} result{'' if count == 1 else 's'} ({tried})\n")
    if not response.results:
        _finish(EXIT_CODES["no_results"])


@app.command(cls=PlainHelp)
def research(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question to research.")],
    max_results: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            min=1,
            max=10,
            help="Search results to consider, 1-10. Default: SLEUTH_MAX_RESULTS.",
        ),
    ] = None,
    max_pages: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            min=1,
            max=10,
            help="Pages to read, 1-10. Default: SLEUTH_MAX_PAGES.",
        ),
    ] = None,
    focus: Annotated[
        str | None, typer.Option(metavar="TEXT", help="What matters most in the answer.")
    ] = None,
    recency_days: RecencyOption = None,
    site: SiteOption = None,
    deadline: Annotated[
        float | None,
        typer.Option(
            metavar="SECONDS",
            min=0.1,
            help="Overall time; pages still loading then are dropped. "
            "Default: SLEUTH_RESEARCH_DEADLINE.",
        ),
    ] = None,
    format: Annotated[
        ResearchFormat | None,
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

    as_json = json_output or format is ResearchFormat.json
    STATE.json = as_json
    client = _client()

    async def run(status: Any) -> Any:
        def progress(stage: str, detail: dict[str, Any]) -> None:
            if status is not None:
                status.update(escape(_progress_line(stage, detail)))

        async with client:
            return await client.research(
                question,
                focus=focus,
                max_results=max_results,
                max_pages=max_pages,
                recency_days=recency_days,
                sites=site or (),
                deadline=deadline,
                on_progress=progress,
            )

    with _status("searching", _interactive(as_json)) as status:
        digest = asyncio.run(run(status))
    if as_json:
        _print_json(digest.model_dump())
    elif _rendered_here(format is not None):
        _print_markdown(render_markdown(digest))
    else:
        _out(render_markdown(digest).rstrip("\n") + "\n")
    if not digest.bullets:
        codes = [error.code for error in digest.errors]
        fatal = next((c for c in codes if c.startswith(("search_", "provider_"))), "no_results")
        _finish(EXIT_CODES.get(fatal, EXIT_CODES["no_results"]))


def _progress_line(stage: str, detail: dict[str, Any]) -> str:
    if stage == "reading":
        return f"reading {detail.get('pages', 0)} pages"
    if stage == "page":
        return f"read {detail.get('url', '')} ({detail.get('outcome', '')})"
    if stage == "ranking":
        return f"ranking passages from {detail.get('pages', 0)} pages"
    return stage


class SearchChoice(StrEnum):
    auto = "auto"
    native = "native"
    local = "local"


class ToolFormat(StrEnum):
    openai = "openai"
    anthropic = "anthropic"
    gemini = "gemini"
    mcp = "mcp"


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


@app.command(cls=PlainHelp)
def ask(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question to answer.")],
    provider: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="openai, openai-responses, anthropic, gemini or ollama. "
            "Default: SLEUTH_LLM_PROVIDER, else guessed from the keys that are set.",
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option(metavar="MODEL", help="Default: SLEUTH_LLM_MODEL.")
    ] = None,
    search: Annotated[
        SearchChoice | None,
        typer.Option(
            help="native: the provider's own search; local: sleuth's search providers; "
            "auto: native for cloud providers that have it. Default: SLEUTH_LLM_SEARCH."
        ),
    ] = None,
    max_turns: Annotated[
        int | None,
        typer.Option(
            metavar="N", min=1, max=50, help="Model calls at most. Default: SLEUTH_LLM_MAX_TURNS."
        ),
    ] = None,
    format: Annotated[
        AskFormat | None,
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
    json_output = json_output or format is AskFormat.json
    STATE.json = json_output
    client = _client()
    watching = sys.stderr.isatty()

    async def run(status: Any) -> Any:
        def progress(stage: str, detail: dict[str, Any]) -> None:
            if stage == "tool_call":
                arguments = json.dumps(detail.get("arguments", {}), ensure_ascii=False)
                stderr.print(f"→ {detail.get('name')} {arguments}", markup=False)
            elif stage == "native_search":
                stderr.print(f"→ native search {detail.get('query')!r}", markup=False)
            elif stage == "tool_done":
                stderr.print(
                    f"  {detail.get('outcome')} in {detail.get('latency_ms')} ms", markup=False
                )
            if status is not None:
                status.update(escape(_ask_progress(stage, detail)))

        async with client:
            return await client.ask(
                question,
                provider=provider,
                model=model,
                search=search.value if search else None,
                max_turns=max_turns,
                on_progress=progress if watching else None,
            )

    with _status("thinking", watching and not json_output) as status:
        answer = asyncio.run(run(status))
    if json_output:
        _print_json(answer.model_dump(mode="json"))
        return
    rendered = _rendered_here(format is not None)
    if rendered:
        _print_markdown(answer.answer.strip())
    else:
        _out(answer.answer.strip() + "\n")
    if answer.citations:
        _out("\nSources\n")
        for source in answer.citations:
            how = "read" if source.fetched else source.kind.replace("_", " ")
            title = source.title or source.url
            if rendered:  # the same line, its title a link the terminal can open
                from rich.style import Style
                from rich.text import Text

                line = Text(f"[{source.id}] ")
                line.append(_CONTROL.sub("", title), style=Style(link=source.url))
                line.append(f" - {source.url} ({how})")
                Console(highlight=False).print(line, soft_wrap=True)
            else:
                _out(f"[{source.id}] {title} - {source.url} ({how})\n")
    if answer.flagged_citations:
        ids = ", ".join(f"[{n}]" for n in answer.flagged_citations)
        _out(f"\nRemoved citations sleuth never issued: {ids}\n")
    usage = answer.usage
    cost = "cost unknown" if answer.cost_usd is None else f"${answer.cost_usd:.4f}"
    if answer.cost_estimated:
        cost += " (estimated: the model is not in the price table)"
    _out(
        f"\n{answer.provider} {answer.model} · {answer.turns} turns · "
        f"{len(answer.tool_calls)} tool calls · {usage.input_tokens:,} in / "
        f"{usage.output_tokens:,} out tokens · {cost}\n"
    )


def _ask_progress(stage: str, detail: dict[str, Any]) -> str:
    """What is happening now: the model is working unless a tool runs."""
    if stage == "tool_call":
        return f"running {detail.get('name')}"
    if stage == "thinking":
        return f"waiting for the model (turn {detail.get('turn')})"
    return "waiting for the model"


@app.command(cls=PlainHelp)
def tools(
    format: Annotated[
        ToolFormat, typer.Option("--format", "-f", help="Whose tool-definition format.")
    ] = ToolFormat.openai,
    json_output: Annotated[
        bool, typer.Option("--json", help="Accepted for symmetry: the output is always JSON.")
    ] = False,
) -> None:
    """Print the tools `sleuth mcp` serves, for your own LLM loop.

    Run one call from Python with sleuth.tools.call(name, arguments).
    """
    from sleuth.tools import tool_definitions
    from sleuth.toolset import offered_registry

    _print_json(tool_definitions(format.value, offered_registry()))


@app.command(cls=PlainHelp)
def serve(
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(metavar="PORT", min=0, max=65535, help="Port to listen on.")
    ] = 8080,
    workers: Annotated[int, typer.Option(metavar="N", min=1, max=64, help="Worker processes.")] = 1,
    insecure_no_auth: Annotated[
        bool,
        typer.Option("--insecure-no-auth", help="Serve beyond loopback without SLEUTH_API_TOKENS."),
    ] = False,
) -> None:
    """Serve the HTTP API, link suggestions and MCP.

    Needs sleuth[server]. See docs/server.md.
    """
    try:
        from sleuth.server.run import serve as run_server
    except ImportError as exc:
        raise UsageError(
            f"the server needs the server extra ({exc.name} is missing)",
            hint="pip install 'sleuth[server]'",
        ) from None
    if STATE.config is not None:
        os.environ["SLEUTH_CONFIG"] = str(STATE.config)  # worker processes read it too
    settings = load_settings(STATE.config)
    level = settings.log_level or {0: "warning", 1: "info"}.get(STATE.verbose, "debug")
    log.configure(settings.log_format, level)
    run_server(host, port, workers=workers, insecure_no_auth=insecure_no_auth, settings=settings)


@app.command(cls=PlainHelp)
def suggest(
    url: Annotated[str, typer.Argument(metavar="URL", help="The page to suggest a link for.")],
    title: Annotated[
        str | None, typer.Option(metavar="TEXT", help="The page's title, if known.")
    ] = None,
    description: Annotated[
        str | None, typer.Option(metavar="TEXT", help="The page's description, if known.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Suggest a link's slug, title, description and tags.

    Asks the configured LLM (SLEUTH_LLM_PROVIDER or SLEUTH_LLM_BASE_URL).
    """
    from sleuth.suggest import check_url

    STATE.json = json_output
    check_url(url)
    client = _client()

    async def run() -> Any:
        async with client:
            return await client.suggest(url, title=title, description=description)

    with _status("asking the model", _interactive(json_output)):
        result = asyncio.run(run())
    if json_output:
        _print_json(result.suggestion.model_dump())
        return
    shown = result.suggestion
    for name, value in (
        ("slug", shown.slug),
        ("title", shown.title),
        ("description", shown.description),
        ("tags", " ".join(shown.tags)),
    ):
        _out(f"{name}: {value or '-'}\n")
    if result.cleared:
        sys.stderr.write(f"cleared invalid field(s): {', '.join(result.cleared)}\n")


@app.command(cls=PlainHelp)
def mcp(
    transport: Annotated[
        Transport, typer.Option(help="stdio for a client that starts sleuth; http to serve.")
    ] = Transport.stdio,
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on (http).")] = (
        "127.0.0.1"
    ),
    port: Annotated[
        int, typer.Option(metavar="PORT", min=1, max=65535, help="Port to listen on (http).")
    ] = 8765,
) -> None:
    """Serve the web tools over MCP (needs sleuth[mcp])."""
    try:
        from sleuth.server.mcp import run
    except ImportError as exc:
        raise UsageError(
            f"the MCP server needs the mcp extra ({exc.name} is missing)",
            hint="pip install 'sleuth[mcp]'",
        ) from None
    settings = load_settings(STATE.config)
    level = settings.log_level or {0: "warning", 1: "info"}.get(STATE.verbose, "debug")
    log.configure(settings.log_format, level)
    run(transport.value, host=host, port=port, settings=settings)


@app.command(cls=PlainHelp)
def discover(
    name: Annotated[
        str,
        typer.Argument(metavar="NAME", help="The tool, e.g. ripgrep; - reads names from stdin."),
    ],
    from_source: Annotated[
        str | None,
        typer.Option(
            "--from", metavar="BUILDER:SOURCE", help="Use this source, e.g. github:cli/cli."
        ),
    ] = None,
    deterministic_only: Annotated[
        bool, typer.Option("--deterministic-only", help="Registry and ecosystems only, no LLM.")
    ] = False,
    stages: Annotated[
        str | None,
        typer.Option(metavar="LIST", help="Stages to run: registry,ecosystem,llm (default all)."),
    ] = None,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch", help="Never ask: take the top match when ambiguous; one JSON line per name."
        ),
    ] = False,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Accept a web-found source without asking (not forks)."),
    ] = False,
    timeout: Annotated[
        float | None,
        typer.Option(metavar="S", min=1, help="Seconds for web discovery. Default 15."),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Find a tool's official source and how to install it.

    Registry first, then the package ecosystems, then (with an LLM configured) the web,
    verified on GitHub and confirmed by you.
    """
    from sleuth.discovery.confirm import choose, progress_line, settle, summary
    from sleuth.discovery.names import read_names
    from sleuth.errors import DiscoverError

    STATE.json = json_output
    client = _client()
    names = read_names(sys.stdin) if name == "-" else [name]
    if name == "-" and not names:
        raise UsageError("no names on stdin", hint="one tool name a line")
    # Questions need a person on both ends: answers on stdin, the display on stderr.
    person = not batch and sys.stdin.isatty() and sys.stderr.isatty() and name != "-"

    def ask(prompt: str) -> str:
        sys.stderr.write(prompt)
        sys.stderr.flush()
        return sys.stdin.readline()

    def show(text: str) -> None:
        sys.stderr.write(text + "\n\n")

    def progress(stage: str, detail: dict[str, Any]) -> None:
        line = progress_line(stage, detail)
        if line is not None:
            sys.stderr.write(line + "\n")

    async def run_one(tool: str) -> Any:
        result = await client.discover(
            tool,
            from_source=from_source,
            deterministic_only=deterministic_only,
            stages=stages.split(",") if stages else None,
            batch=batch or name == "-",
            yes=yes,
            timeout=timeout,
            on_progress=progress if person else None,
            choose=(lambda t, matches: choose(t, matches, ask)) if person else None,
        )
        return settle(result, interactive=person, ask=ask, show=show)

    if name != "-":

        async def single() -> Any:
            async with client:
                return await run_one(name)

        try:
            with _status(f"discovering {name}", _interactive(json_output) and not person):
                result = asyncio.run(single())
        except DiscoverError as error:  # its JSON carries choices and the usage spent
            sys.stderr.write(f"sleuth: error: {error}\n")
            if error.usage:
                sys.stderr.write(f"usage: {json.dumps(error.usage)}\n")
            if json_output:
                _out(json.dumps({"error": error.to_dict()}, ensure_ascii=False) + "\n")
            _finish(error.exit_code)
        if json_output:
            _print_json(result.to_json())
            return
        if not result.confirmation_required:
            sys.stderr.write(summary(result) + "\n")
            for warning in result.warnings:
                sys.stderr.write(f"warning: {warning}\n")
        _out(f"{result.spec}\n")
        if result.install_hint:
            _out(f"install: {result.install_hint}\n")
        return

    async def every() -> int:
        first_failure = 0
        async with client:
            for tool in names:
                try:
                    result = await run_one(tool)
                except SleuthError as error:
                    first_failure = first_failure or error.exit_code
                    if json_output:
                        _out(json.dumps({"tool": tool, "error": error.to_dict()}) + "\n")
                    else:
                        sys.stderr.write(f"{tool}: error: {error}\n")
                    continue
                if json_output:
                    _out(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
                else:
                    _out(f"{tool}\t{result.spec}\t{result.install_hint}\n")
        return first_failure

    _finish(asyncio.run(every()))


class DetectMode(StrEnum):
    full = "full"
    static = "static"
    llm = "llm"
    llm_only = "llm_only"


@app.command(cls=PlainHelp)
def detect(
    path: Annotated[
        Path, typer.Argument(metavar="PATH", help="The repository to scan. Default: here.")
    ] = Path("."),
    mode: Annotated[
        DetectMode | None,
        typer.Option(
            help="static: detectors only; full: an LLM names what they cannot (when one is "
            "configured); llm: the LLM names everything. Default: SLEUTH_DETECTION_MODE."
        ),
    ] = None,
    provider: Annotated[
        str | None, typer.Option(metavar="NAME", help="LLM provider for full and llm modes.")
    ] = None,
    model: Annotated[str | None, typer.Option(metavar="MODEL", help="LLM model.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Find every project in a repository: its stack, build and run."""
    from sleuth.stack import render_json, render_table

    STATE.json = json_output
    client = _client()

    async def run() -> Any:
        async with client:
            return await client.detect(
                path, mode=mode.value if mode else None, provider=provider, model=model
            )

    with _status(f"scanning {path}", _interactive(json_output)):
        projects = asyncio.run(run())
    if json_output:
        _out(render_json(projects) + "\n")
    elif projects:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        _out(render_table(projects, width).rstrip("\n") + "\n")
    else:
        sys.stderr.write(f"no projects found under {path}\n")


@config_app.command("show")
def config_show(json_output: JsonFlag = False) -> None:
    """Print the effective settings (secrets masked) and where each came from."""
    STATE.json = json_output
    settings = load_settings(STATE.config)
    rows = describe(settings)
    if json_output:
        # Numbers, booleans, lists and null keep their type; strings come from
        # describe(), which masks secrets (keys, passwords inside URLs).
        typed = settings.model_dump(mode="json")
        _print_json(
            {
                name: {
                    "value": shown if isinstance(typed[name], str) else typed[name],
                    "source": source,
                }
                for name, shown, source in rows
            }
        )
        return
    width = max(len(name) for name, _, _ in rows)
    for name, value, source in rows:
        _out(f"{name:<{width}}  {value or '-'}  ({source})\n")


@cache_app.command("stats")
def cache_stats(json_output: JsonFlag = False) -> None:
    """Show the cache backend, entry count and size."""
    STATE.json = json_output

    async def run() -> Any:
        async with _client() as client:
            return await client.cache.stats()

    stats = asyncio.run(run())
    payload = {
        "backend": stats.backend,
        "entries": stats.entries,
        "size_bytes": stats.size_bytes,
        "location": stats.location,
        **stats.extra,
    }
    if json_output:
        _print_json(payload)
    else:
        for key, value in payload.items():
            _out(f"{key}: {'-' if value is None else value}\n")


@cache_app.command("clear")
def cache_clear(json_output: JsonFlag = False) -> None:
    """Remove every cached page, search and robots.txt."""
    STATE.json = json_output

    async def run() -> int:
        async with _client() as client:
            return await client.cache.clear()

    removed = asyncio.run(run())
    if json_output:
        _print_json({"removed": removed})
    else:
        _out(f"removed {removed} entries\n")


def _report(error: dict[str, Any]) -> None:
    """With --json a failure is JSON on stdout too, so a script always gets JSON.

    One line, so that it also reads as a record of ``--format jsonl``.
    """
    if STATE.json or "--json" in sys.argv[1:]:
        _out(json.dumps({"error": error}, ensure_ascii=False) + "\n")


def _run() -> int:
    try:
        code = app(standalone_mode=False)
    except SleuthError as exc:
        if STATE.verbose:
            traceback.print_exc()
        sys.stderr.write(f"sleuth: error: {exc}\n")
        _report({"code": exc.code, "message": str(exc), "retryable": exc.retryable})
        code = exc.exit_code
    except ClickException as exc:  # bad flags: click's usage message
        exc.show()
        _report({"code": "usage_error", "message": exc.format_message(), "retryable": False})
        code = exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("sleuth: interrupted\n")
        code = 130
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise ReaderGone from None
    return int(code or 0)


def main() -> None:
    """Entry point: one clear line for user errors, tracebacks only with -v.

    A reader that leaves early (``sleuth fetch URL | head -1``) ends the run
    quietly with status 0: stdout is pointed at /dev/null so that the final
    flush cannot fail again.
    """
    try:
        code = _run()
    except ReaderGone:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)


from sleuth.commands.crawl import COMMANDS as CRAWL_COMMANDS  # noqa: E402 - map and crawl

app.registered_commands.extend(CRAWL_COMMANDS)

"""The ``sleuth`` command: a thin layer that parses flags, calls :mod:`sleuth.api`
and prints. Results go to stdout, progress and logs to stderr, and every
outcome has its own exit code (see :data:`sleuth.errors.EXIT_CODES`).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

import typer
from rich.console import Console

from sleuth import log
from sleuth._version import __version__
from sleuth.api import AsyncSleuth
from sleuth.config import describe, load_settings
from sleuth.errors import EXIT_CODES, SleuthError, UsageError

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


STATE = State()


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


JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def _version(value: bool) -> None:
    if value:
        print(f"sleuth {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    verbose: Annotated[
        int, typer.Option("-v", "--verbose", count=True, help="More logs; -v shows tracebacks.")
    ] = 0,
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML settings file.", dir_okay=False)
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print version.")
    ] = False,
) -> None:
    STATE.verbose = verbose
    STATE.config = config


def _client(**overrides: Any) -> AsyncSleuth:
    settings = load_settings(STATE.config, **overrides)
    level = settings.log_level or {0: None, 1: "info"}.get(STATE.verbose, "debug")
    log.configure(settings.log_format, level)
    return AsyncSleuth(settings)


def _interactive(json_output: bool) -> bool:
    """Progress only for a person watching: never on pipes or with --json."""
    return not json_output and sys.stdout.isatty() and sys.stderr.isatty()


@contextmanager
def _status(message: str, enabled: bool) -> Iterator[Any]:
    if enabled:
        with stderr.status(message) as status:
            yield status
    else:
        yield None


def _print_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


def _finish(code: int) -> NoReturn:
    raise typer.Exit(code)


@app.command()
def fetch(
    url: Annotated[str, typer.Argument(help="The page to fetch (http or https).")],
    format: Annotated[FetchFormat, typer.Option("--format", "-f")] = FetchFormat.text,
    max_chars: Annotated[int | None, typer.Option(help="At most this many characters.")] = None,
    start_index: Annotated[int, typer.Option(help="Start at this character.")] = 0,
    render: Annotated[RenderChoice | None, typer.Option(help="Headless-browser use.")] = None,
    refresh: Annotated[bool, typer.Option("--refresh", help="Bypass the cache.")] = False,
    ignore_robots: Annotated[
        bool, typer.Option("--ignore-robots", help="Fetch even where robots.txt forbids it.")
    ] = False,
    resolve: Annotated[
        list[str] | None,
        typer.Option("--resolve", help="Pin HOST:PORT:ADDR[,ADDR...] like curl; repeatable."),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Fetch a page safely and print its main text."""
    from sleuth.net import PinnedResolver, SystemResolver, parse_resolve_pins

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
            sys.stdout.write(heading + "\n\n")
        sys.stdout.write(result.text.rstrip("\n") + "\n")
        if result.truncated and result.next_start_index is not None:
            from sleuth.pages.paging import truncation_marker

            sys.stdout.write(truncation_marker(result.next_start_index).lstrip("\n") + "\n")
    else:
        message = result.error.message if result.error else result.outcome
        sys.stderr.write(f"sleuth: {result.outcome}: {message}\n")
    _finish(EXIT_CODES.get(result.outcome, 1))


def _iter_inputs(paths: list[str]) -> Iterator[tuple[str, bytes]]:
    if not paths or paths == ["-"]:
        yield "-", sys.stdin.buffer.read()
        return
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(
                sorted(p for p in path.rglob("*") if p.is_file() and _looks_like_html(p.name))
            )
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"{raw}: no such file or directory")
    for path in files:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as exc:
                raise UsageError(f"{path}: broken gzip data ({exc})") from None
        yield str(path), data


def _looks_like_html(name: str) -> bool:
    lowered = name.lower().removesuffix(".gz")
    return lowered.endswith((".html", ".htm", ".xhtml", ".txt"))


@app.command()
def extract(
    paths: Annotated[
        list[str] | None, typer.Argument(help="HTML files (plain or .gz), folders, or - for stdin.")
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(
            help="The page's URL: resolves the canonical URL and recognises forum threads."
        ),
    ] = None,
    format: Annotated[ExtractFormat, typer.Option("--format", "-f")] = ExtractFormat.text,
    json_output: JsonFlag = False,
) -> None:
    """Extract main text from HTML on disk or stdin, with no network."""
    from sleuth.extract import extract as extract_document

    load_settings(STATE.config)  # validate the config even though extraction needs none
    fmt = ExtractFormat.json if json_output and format is ExtractFormat.text else format
    output: Literal["text", "markdown"] = "markdown" if fmt is ExtractFormat.markdown else "text"
    inputs = list(paths or [])
    records: list[dict[str, Any]] = []
    outcomes: list[str] = []
    for name, data in _iter_inputs(inputs):
        content_type = "text/plain" if name.lower().removesuffix(".gz").endswith(".txt") else None
        result = extract_document(data, url=url, output=output, content_type=content_type)
        outcomes.append(result.outcome)
        record = {
            "file": name,
            "title": result.title,
            "text": result.text,
            "metadata": result.metadata,
            "outcome": result.outcome,
        }
        if fmt is ExtractFormat.jsonl:
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        elif fmt is ExtractFormat.json:
            records.append(record)
        else:
            if len(inputs) > 1 or any(Path(p).is_dir() for p in inputs):
                sys.stdout.write(f"==> {name} <==\n")
            sys.stdout.write(result.text.rstrip("\n") + "\n")
    if fmt is ExtractFormat.json:
        _print_json(records[0] if len(records) == 1 else records)
    if len(outcomes) == 1:  # one document: its outcome is the exit code; batches report per file
        _finish(EXIT_CODES.get(outcomes[0], 1))


SiteOption = Annotated[
    list[str] | None, typer.Option("--site", help="Only this site (repeatable).")
]
RecencyOption = Annotated[
    int | None, typer.Option("--recency-days", min=1, help="Only results from the last D days.")
]


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to search for.")],
    max_results: Annotated[int | None, typer.Option("-n", "--max-results", min=1, max=10)] = None,
    provider: Annotated[str | None, typer.Option(help="Use only this provider.")] = None,
    recency_days: RecencyOption = None,
    site: SiteOption = None,
    exclude_site: Annotated[
        list[str] | None, typer.Option("--exclude-site", help="Never this site (repeatable).")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Search the web through the configured providers, with fallback."""
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
        return
    for hit in response.results:
        sys.stdout.write(f"{hit.rank}. {hit.title}\n   {hit.url}\n")
        if hit.snippet:
            sys.stdout.write(f"   {hit.snippet}\n")
    tried = ", ".join(f"{a.name}:{a.outcome}" for a in response.providers_tried)
    sys.stderr.write(f"{len(response.results)} results ({tried})\n")
    if not response.results:
        _finish(EXIT_CODES["no_results"])


@app.command()
def research(
    question: Annotated[str, typer.Argument(help="The question to research.")],
    max_results: Annotated[int | None, typer.Option(min=1, max=10)] = None,
    max_pages: Annotated[int | None, typer.Option(min=1, max=10)] = None,
    focus: Annotated[str | None, typer.Option(help="What matters most in the answer.")] = None,
    recency_days: RecencyOption = None,
    site: SiteOption = None,
    deadline: Annotated[
        float | None, typer.Option(min=0.1, help="Overall seconds; late pages are dropped.")
    ] = None,
    format: Annotated[ResearchFormat, typer.Option("--format", "-f")] = ResearchFormat.markdown,
    json_output: JsonFlag = False,
) -> None:
    """Search, read the best pages, and print a digest whose bullets cite them."""
    from sleuth.digest import render_markdown

    as_json = json_output or format is ResearchFormat.json
    client = _client()

    async def run(status: Any) -> Any:
        def progress(stage: str, detail: dict[str, Any]) -> None:
            if status is not None:
                status.update(_progress_line(stage, detail))

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
    else:
        sys.stdout.write(render_markdown(digest).rstrip("\n") + "\n")
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


@config_app.command("show")
def config_show(json_output: JsonFlag = False) -> None:
    """Print the effective settings (secrets masked) and where each came from."""
    rows = describe(load_settings(STATE.config))
    if json_output:
        _print_json({name: {"value": value, "source": source} for name, value, source in rows})
        return
    width = max(len(name) for name, _, _ in rows)
    for name, value, source in rows:
        sys.stdout.write(f"{name:<{width}}  {value or '-'}  ({source})\n")


@cache_app.command("stats")
def cache_stats(json_output: JsonFlag = False) -> None:
    """Show the cache backend, entry count and size."""

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
            sys.stdout.write(f"{key}: {'-' if value is None else value}\n")


@cache_app.command("clear")
def cache_clear(json_output: JsonFlag = False) -> None:
    """Remove every cached page, search and robots.txt."""

    async def run() -> int:
        async with _client() as client:
            return await client.cache.clear()

    removed = asyncio.run(run())
    if json_output:
        _print_json({"removed": removed})
    else:
        sys.stdout.write(f"removed {removed} entries\n")


def main() -> None:
    """Entry point: one clear line for user errors, tracebacks only with -v.

    Typer's standalone mode already turns bad flags into a usage message and exit 2.
    """
    try:
        app()
    except SleuthError as exc:
        if STATE.verbose:
            traceback.print_exc()
        sys.stderr.write(f"sleuth: error: {exc}\n")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("sleuth: interrupted\n")
        sys.exit(130)

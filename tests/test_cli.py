"""The ``sleuth`` command as a person or a script runs it: a real subprocess."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer

from loopback import Site, article, serve
from sleuth._version import __version__
from sleuth.cli import app
from sleuth.errors import EXIT_CODES

PARAGRAPHS = [
    "Beekeepers in the valley have tracked their hives for three decades, noting when the "
    "first flowers open and how much honey each colony stores before winter arrives.",
    "Their notebooks show that spring now comes almost two weeks earlier than it did when "
    "the records began, and that the bees have shifted their foraging to match it.",
    "The cooperative publishes the data every year so that students and researchers can "
    "study the link between local weather and the health of the colonies.",
]
FETCH_KEYS = {
    "schema_version",
    "url",
    "final_url",
    "status",
    "content_type",
    "outcome",
    "title",
    "text",
    "metadata",
    "truncated",
    "next_start_index",
    "fetched_at",
    "cache",
}


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    full_env.update(extra or {})
    return full_env


def run(
    *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", *args],
        input=stdin or b"",
        capture_output=True,
        env=clean_env(env),
        timeout=120,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running


@pytest.fixture
def env(site: Site, tmp_path: Path) -> dict[str, str]:
    return {
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}",
        "SLEUTH_CACHE": "file",
        "SLEUTH_CACHE_DIR": str(tmp_path / "cache"),
        "SLEUTH_RENDER": "never",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"sleuth {__version__}"


def test_fetch_json_has_the_documented_shape(site: Site, env: dict[str, str]) -> None:
    url = site.add("/bees", article("Valley beekeepers", PARAGRAPHS))
    done = run("fetch", url, "--json", env=env)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert set(payload) >= FETCH_KEYS
    assert payload["outcome"] == "ok"
    assert payload["title"] == "Valley beekeepers"
    assert "two weeks earlier" in payload["text"]
    assert payload["cache"] == "miss"
    again = json.loads(run("fetch", url, "--json", env=env).stdout)
    assert again["cache"] == "hit"


def test_fetch_text_pages_with_a_truncation_marker(site: Site, env: dict[str, str]) -> None:
    url = site.add("/bees", article("Valley beekeepers", PARAGRAPHS))
    done = run("fetch", url, "--max-chars", "80", env=env)
    assert done.returncode == 0, done.stderr
    assert "--start-index 80" in done.stdout
    rest = run("fetch", url, "--max-chars", "80", "--start-index", "80", "--json", env=env)
    assert json.loads(rest.stdout)["next_start_index"] == 160


@pytest.mark.parametrize("format", ["text", "markdown"])
def test_only_the_first_page_of_a_fetch_is_headed_by_the_title(
    site: Site, env: dict[str, str], format: str
) -> None:
    url = site.add("/bees", article("Valley beekeepers", PARAGRAPHS))
    whole = json.loads(run("fetch", url, "--format", format, "--json", env=env).stdout)["text"]
    heading = "# Valley beekeepers" if format == "markdown" else "Valley beekeepers"
    first = run("fetch", url, "--format", format, "--max-chars", "80", env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(heading + "\n\n" + whole[:80].rstrip("\n"))
    rest = run(
        "fetch", url, "--format", format, "--max-chars", "80", "--start-index", "80", env=env
    )
    assert rest.returncode == 0, rest.stderr
    # A continuation is the text from that index and nothing else.
    assert rest.stdout.startswith(whole[80:160].rstrip("\n"))
    assert heading not in rest.stdout
    assert "--start-index 160" in rest.stdout


@pytest.mark.parametrize(
    ("status", "outcome"), [(404, "http_error"), (429, "rate_limited"), (500, "http_error")]
)
def test_each_outcome_has_its_exit_code(
    site: Site, env: dict[str, str], status: int, outcome: str
) -> None:
    url = site.add("/err", "<html><body>no</body></html>", status=status)
    done = run("fetch", url, "--ignore-robots", env=env)
    assert done.returncode == EXIT_CODES[outcome]
    assert done.stdout == ""
    assert done.stderr.startswith(f"sleuth: {outcome}:")
    assert "Traceback" not in done.stderr


def test_blocked_destination_exits_with_its_code(env: dict[str, str]) -> None:
    with serve() as other:
        done = run("fetch", other.add("/x", "secret"), "--json", env=env)
        assert done.returncode == EXIT_CODES["blocked"]
        assert json.loads(done.stdout)["outcome"] == "blocked"
        assert other.requests == []


def test_robots_disallowed_is_obeyed_and_can_be_overridden(site: Site, env: dict[str, str]) -> None:
    site.add("/robots.txt", "User-agent: *\nDisallow: /\n", headers={"Content-Type": "text/plain"})
    url = site.add("/bees", article("Valley beekeepers", PARAGRAPHS))
    assert run("fetch", url, env=env).returncode == EXIT_CODES["robots_disallowed"]
    assert run("fetch", url, "--ignore-robots", env=env).returncode == 0


def test_user_errors_are_one_line_without_traceback(env: dict[str, str]) -> None:
    done = run("fetch", "not a url", env=env)
    assert done.returncode == EXIT_CODES["usage_error"]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("sleuth: error:")
    verbose = run("-v", "fetch", "not a url", env=env)
    assert "Traceback" in verbose.stderr


def test_missing_config_file_is_a_config_error(tmp_path: Path) -> None:
    done = run("--config", str(tmp_path / "nope.toml"), "config", "show")
    assert done.returncode == EXIT_CODES["config_error"]
    assert "does not exist" in done.stderr
    assert "Traceback" not in done.stderr


def test_bad_setting_is_a_config_error() -> None:
    done = run("config", "show", env={"SLEUTH_CACHE": "floppy"})
    assert done.returncode == EXIT_CODES["config_error"]
    assert "cache" in done.stderr


def test_config_show_masks_secrets_and_names_sources(tmp_path: Path) -> None:
    config = tmp_path / "sleuth.toml"
    config.write_text('cache = "memory"\nmax_pages = 4\n')
    done = run(
        "--config",
        str(config),
        "config",
        "show",
        "--json",
        env={"BRAVE_API_KEY": "brave-secret-1234567", "SLEUTH_MAX_PAGES": "5"},
    )
    assert done.returncode == 0, done.stderr
    assert "brave-secret-1234567" not in done.stdout
    shown = json.loads(done.stdout)
    assert shown["brave_api_key"]["source"] == "env BRAVE_API_KEY"
    assert shown["cache"] == {"value": "memory", "source": f"file {config}"}
    assert shown["max_pages"] == {"value": 5, "source": "env SLEUTH_MAX_PAGES"}
    assert shown["render"]["source"] == "default"


def test_unknown_key_in_config_file_is_reported(tmp_path: Path) -> None:
    config = tmp_path / "sleuth.toml"
    config.write_text('cahce = "memory"\n')
    done = run("--config", str(config), "config", "show")
    assert done.returncode == EXIT_CODES["config_error"]
    assert "cahce" in done.stderr


def test_extract_reads_files_folders_gzip_and_stdin(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "a.html").write_text(article("First page", PARAGRAPHS))
    (folder / "b.html.gz").write_bytes(gzip.compress(article("Second page", PARAGRAPHS).encode()))
    (folder / "notes.md").write_text("# Notes\n\nMarkdown is read too.")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    done = run("extract", str(folder), "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [Path(r["file"]).name for r in records] == ["a.html", "b.html.gz", "notes.md"]
    assert [r["title"] for r in records] == ["First page", "Second page", "Notes"]
    assert all(r["outcome"] == "ok" and "two weeks earlier" in r["text"] for r in records[:2])
    assert records[2]["text"] == "# Notes\n\nMarkdown is read too."
    piped = run("extract", "-", stdin=article("Piped", PARAGRAPHS).encode())
    assert piped.returncode == 0
    assert "two weeks earlier" in piped.stdout


def test_extract_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    done = run("extract", str(tmp_path / "missing.html"))
    assert done.returncode == EXIT_CODES["usage_error"]
    assert "no such file" in done.stderr


def test_cache_stats_and_clear(site: Site, env: dict[str, str]) -> None:
    url = site.add("/bees", article("Valley beekeepers", PARAGRAPHS))
    assert run("fetch", url, "--ignore-robots", env=env).returncode == 0
    stats = json.loads(run("cache", "stats", "--json", env=env).stdout)
    assert stats["backend"] == "file"
    assert stats["entries"] >= 1
    cleared = json.loads(run("cache", "clear", "--json", env=env).stdout)
    assert cleared["removed"] == stats["entries"]
    assert json.loads(run("cache", "stats", "--json", env=env).stdout)["entries"] == 0


def test_json_logs_on_stderr(site: Site, env: dict[str, str]) -> None:
    url = site.add("/bees", article("Valley beekeepers", PARAGRAPHS))
    done = run("fetch", url, "--ignore-robots", env=env | {"SLEUTH_LOG_FORMAT": "json"})
    events = [json.loads(line) for line in done.stderr.splitlines()]
    fetched = [e for e in events if e["event"] == "fetch"]
    assert fetched
    assert fetched[0]["url"] == url
    assert fetched[0]["outcome"] == "ok"
    assert isinstance(fetched[0]["latency_ms"], int)
    hit = run("fetch", url, "--ignore-robots", env=env | {"SLEUTH_LOG_FORMAT": "json"})
    assert any(json.loads(line)["event"] == "cache_hit" for line in hit.stderr.splitlines())


def test_resolve_pins_a_name_to_an_address(site: Site, env: dict[str, str]) -> None:
    url = site.add("/bees", article("Valley beekeepers", PARAGRAPHS))
    named = url.replace("127.0.0.1", "bees.example")
    pin = f"bees.example:{site.port}:127.0.0.1"
    done = run("fetch", named, "--resolve", pin, "--ignore-robots", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "ok"
    assert site.requests[-1].headers["Host"] == f"bees.example:{site.port}"
    # Pinned addresses are vetted like any other answer (127.0.0.2 is not allowed).
    pinned_elsewhere = run(
        "fetch",
        named,
        "--resolve",
        f"bees.example:{site.port}:127.0.0.2",
        "--json",
        "--ignore-robots",
        "--refresh",
        env=env,
    )
    assert json.loads(pinned_elsewhere.stdout)["outcome"] == "blocked"


@pytest.mark.parametrize("args", [["search", "   "], ["search", "x", "--site", " "]])
def test_unusable_search_input_is_a_usage_error(args: list[str]) -> None:
    done = run(*args)
    assert done.returncode == EXIT_CODES["usage_error"]
    assert done.stderr.startswith("sleuth: error:")
    assert "Traceback" not in done.stderr


BOT_CHECK = (
    "<html><head><title>Just a moment...</title></head><body>"
    "<h1>Checking your browser before accessing example.com</h1>"
    "<p>Please enable JavaScript and cookies to continue. Ray ID: 8c1f Cloudflare</p>"
    "</body></html>"
)
JS_SHELL = (
    "<html><head><title>App</title><script src='/app.js'></script></head>"
    "<body><div id='root'></div>"
    "<noscript>You need to enable JavaScript to run this app.</noscript></body></html>"
)


@pytest.mark.parametrize(
    ("document", "outcome"),
    [
        (b"", "empty_extraction"),
        (bytes(range(256)) * 8, "unsupported_type"),
        (BOT_CHECK.encode(), "block_page"),
        (JS_SHELL.encode(), "js_required"),
    ],
)
def test_extract_failure_is_one_stderr_line_and_no_page_text(document: bytes, outcome: str) -> None:
    done = run("extract", stdin=document)
    assert done.returncode == EXIT_CODES[outcome]
    assert done.stdout == ""
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith(f"sleuth: {outcome}: ")
    as_json = json.loads(run("extract", "--json", stdin=document).stdout)
    assert as_json["outcome"] == outcome
    assert as_json["reason"]
    assert "Cloudflare" not in as_json["text"]


def test_extract_batch_goes_on_past_unreadable_files(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "a.html").write_text(article("First page", PARAGRAPHS))
    (folder / "b.html.gz").write_bytes(gzip.compress(b"<html><body>cut short")[:-12])
    (folder / "c.html").write_text(article("Third page", PARAGRAPHS))
    bad_deflate = tmp_path / "d.html.gz"
    bad_deflate.write_bytes(gzip.compress(b"<p>x</p>")[:10] + b"\xff" * 20)
    # Reading /proc/self/mem from offset 0 fails with EIO, even as root.
    args = (str(folder), str(bad_deflate), "/proc/self/mem")
    done = run("extract", *args, "--format", "jsonl")
    assert done.returncode == EXIT_CODES["empty_extraction"], done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [Path(r["file"]).name for r in records] == [
        "a.html",
        "b.html.gz",
        "c.html",
        "d.html.gz",
        "mem",
    ]
    assert [r["outcome"] for r in records] == ["ok", "unreadable", "ok", "unreadable", "unreadable"]
    assert "gzip" in records[1]["reason"]
    assert "gzip" in records[3]["reason"]
    assert records[2]["title"] == "Third page"

    text = run("extract", *args)
    assert text.returncode == EXIT_CODES["empty_extraction"]
    assert text.stdout.count("two weeks earlier") == 2
    failures = text.stderr.splitlines()
    assert len(failures) == 3
    assert failures[0].startswith(f"sleuth: {folder / 'b.html.gz'}: unreadable: ")
    assert failures[2].startswith("sleuth: /proc/self/mem: unreadable: ")


def test_extract_gunzips_stdin() -> None:
    done = run("extract", stdin=gzip.compress(article("Piped", PARAGRAPHS).encode()))
    assert done.returncode == 0, done.stderr
    assert "two weeks earlier" in done.stdout


def test_extract_mixes_stdin_files_devices_and_pipes(tmp_path: Path) -> None:
    first = tmp_path / "a.html"
    first.write_text(article("First page", PARAGRAPHS))
    mixed = run(
        "extract",
        str(first),
        "-",
        "/dev/null",
        "-f",
        "jsonl",
        stdin=article("Piped", PARAGRAPHS).encode(),
    )
    records = [json.loads(line) for line in mixed.stdout.splitlines()]
    assert [(r["file"], r["outcome"]) for r in records] == [
        (str(first), "ok"),
        ("-", "ok"),
        ("/dev/null", "empty_extraction"),
    ]
    assert records[1]["title"] == "Piped"
    assert mixed.returncode == EXIT_CODES["empty_extraction"]
    assert run("extract", "-", "-").returncode == EXIT_CODES["usage_error"]
    # <(cat a.html) hands sleuth a /dev/fd path backed by a pipe.
    piped = subprocess.run(
        ["bash", "-c", '"$0" -m sleuth extract --json <(cat "$1")', sys.executable, str(first)],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout)["title"] == "First page"


def test_extract_json_keeps_markdown_format(tmp_path: Path) -> None:
    page = tmp_path / "hives.html"
    page.write_text(
        article("Hives", [*PARAGRAPHS[:1], "</p><h2>What they record</h2><p>", *PARAGRAPHS[1:]])
    )
    done = run("extract", str(page), "--json", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["outcome"] == "ok"
    assert "## What they record" in record["text"]


@pytest.mark.parametrize("url", ["foo", "/relative/page", "ftp://example.com/x", "https://"])
def test_extract_url_must_be_absolute_http(url: str) -> None:
    done = run("extract", "--url", url, stdin=article("Piped", PARAGRAPHS).encode())
    assert done.returncode == EXIT_CODES["usage_error"]
    assert done.stdout == ""
    assert done.stderr.startswith("sleuth: error: --url")


TYPE_LEAKS = ("<str>", "<int", "<float", "<list[", "<path", "{url}", "{URL}", "{query}")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ([], ["-vv", "tracebacks", "FILE"]),
        (["fetch"], ["fetch [OPTIONS] URL", "HOST:PORT:ADDR", "SLEUTH_RENDER", "--max-chars N"]),
        (["extract"], ["[PATH...]", "--url URL", "jsonl", "19"]),
        (["search"], ["search [OPTIONS] QUERY", "-n, --max-results N", "--site SITE"]),
        (["research"], ["QUESTION", "--max-pages N", "--deadline SECONDS", "--focus TEXT"]),
        (["config", "show"], ["--json"]),
    ],
)
def test_help_names_values_without_python_types(command: list[str], expected: list[str]) -> None:
    done = run(*command, "--help", env={"COLUMNS": "100"})
    assert done.returncode == 0
    for leak in TYPE_LEAKS:
        assert leak not in done.stdout
    for text in expected:
        assert text in done.stdout


def test_every_parameter_has_help() -> None:
    from typer.main import get_command

    from sleuth.cli import app

    pending = [get_command(app)]
    seen = 0
    while pending:
        command = pending.pop()
        pending.extend(getattr(command, "commands", {}).values())
        for param in command.params:
            seen += 1
            assert getattr(param, "help", None), f"{command.name}: {param.name} has no help"
    assert seen > 30


def test_a_run_builds_only_the_command_it_names_with_the_same_options_and_help() -> None:
    from typer._click import Context

    from sleuth.cli import _invoked

    whole = typer.main.get_command(app)
    names = list(getattr(whole, "commands", {}))
    assert len(names) >= 15
    for name in names:
        for argv in ([name, "--help"], ["-v", "--config", "x.toml", name]):
            built = typer.main.get_command(_invoked(argv))
            assert list(getattr(built, "commands", {})) == [name]
            alone, full = built.commands[name], whole.commands[name]  # type: ignore[attr-defined]
            assert [p.opts for p in alone.params] == [p.opts for p in full.params]
            with Context(alone, info_name=name) as one, Context(full, info_name=name) as other:
                assert alone.get_help(one) == full.get_help(other)
    # Whatever names no command, or is unclear, gets the whole app: its errors and help.
    for argv in ([], ["--help"], ["nosuch"], ["--bogus", "fetch"]):
        assert _invoked(argv) is app


def test_command_summaries_are_not_cut() -> None:
    done = run("--help", env={"COLUMNS": "80"})
    commands = done.stdout.split("Commands:")[1].strip().splitlines()
    assert len(commands) == len(typer.main.get_command(app).commands)
    assert not any(line.rstrip().endswith("...") for line in commands)


@pytest.mark.parametrize(
    ("command", "paragraphs", "read_first"),
    [
        # Far more than a pipe buffer, so sleuth is still writing when the reader leaves.
        ("fetch", 3000, True),
        ("extract", 3000, True),
        ("fetch", 3000, False),
        # Small enough to sit in stdout's buffer until the final flush.
        ("extract", 3, False),
    ],
)
def test_closed_pipe_ends_quietly(
    command: str,
    paragraphs: int,
    read_first: bool,
    site: Site,
    env: dict[str, str],
    tmp_path: Path,
) -> None:
    page = article("Long", [f"{PARAGRAPHS[0]} Entry {i}." for i in range(paragraphs)])
    source = tmp_path / "long.html"
    source.write_text(page)
    target = site.add("/long", page) if command == "fetch" else str(source)
    extra = ("--ignore-robots",) if command == "fetch" else ()
    process = subprocess.Popen(
        [sys.executable, "-m", "sleuth", command, target, *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(env),
    )
    assert process.stdout is not None
    assert process.stderr is not None
    if read_first:  # like `| head -1`
        assert process.stdout.readline()
    process.stdout.close()  # without reading, sleuth's first write meets a closed pipe
    errors = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0, errors
    assert "Exception ignored" not in errors
    assert "BrokenPipe" not in errors


@pytest.fixture
def searxng(site: Site, env: dict[str, str]) -> dict[str, str]:
    return env | {"SLEUTH_SEARCH_PROVIDERS": "searxng", "SEARXNG_URL": f"{site.origin}/"}


def _searxng_results(*urls: str) -> bytes:
    results = [
        {"url": u, "title": f"Page {i}", "content": "about bees"} for i, u in enumerate(urls)
    ]
    return json.dumps({"query": "bees", "results": results}).encode()


JSON_TYPE = {"Content-Type": "application/json"}


def test_search_json_failure_prints_a_json_error(site: Site, searxng: dict[str, str]) -> None:
    site.add("/search", b"{}", status=500, headers=JSON_TYPE)
    done = run("search", "bees", "--json", env=searxng)
    assert done.returncode == EXIT_CODES["search_error"]
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "search_error"
    assert "searxng" in error["message"]
    assert error["retryable"] is True
    assert done.stderr.strip().splitlines()[-1].startswith("sleuth: error: every search provider")


@pytest.mark.parametrize("args", [["search", "   ", "--json"], ["search", "--json"]])
def test_usage_errors_with_json_print_a_json_error(args: list[str]) -> None:
    done = run(*args)
    assert done.returncode == EXIT_CODES["usage_error"]
    assert json.loads(done.stdout)["error"]["code"] == "usage_error"
    assert done.stderr


def test_search_json_without_results_exits_no_results(site: Site, searxng: dict[str, str]) -> None:
    site.add("/search", _searxng_results(), headers=JSON_TYPE)
    done = run("search", "bees", "--json", env=searxng)
    assert done.returncode == EXIT_CODES["no_results"]
    assert json.loads(done.stdout)["results"] == []


def test_search_summary_counts_in_good_grammar(site: Site, searxng: dict[str, str]) -> None:
    site.add("/search", _searxng_results("https://bees.example/one"), headers=JSON_TYPE)
    done = run("search", "bees", env=searxng)
    assert done.returncode == 0, done.stderr
    assert "https://bees.example/one" in done.stdout
    assert done.stderr.startswith("1 result (searxng:ok)")


def test_config_show_json_keeps_value_types() -> None:
    done = run(
        "config",
        "show",
        "--json",
        env={
            "SLEUTH_MAX_PAGES": "5",
            "SLEUTH_ALLOW_PORTS": "80,8080",
            "TAVILY_API_KEY": "tvly-0123456789",
            "SLEUTH_REDIS_URL": "redis://:hunter2-pass@127.0.0.1:6379/0",
        },
    )
    assert done.returncode == 0, done.stderr
    shown = {name: row["value"] for name, row in json.loads(done.stdout).items()}
    assert shown["max_pages"] == 5
    assert shown["allow_ports"] == [80, 8080]
    assert isinstance(shown["fetch_deadline"], float)
    assert shown["allow_hosts"] == []
    assert shown["log_level"] is None
    assert isinstance(shown["tavily_api_key"], str)
    assert "0123456789" not in done.stdout
    assert "hunter2-pass" not in done.stdout
    assert shown["redis_url"].startswith("redis://")


def test_progress_text_from_paths_and_models_is_never_read_as_markup() -> None:
    import io

    from rich.console import Console

    from sleuth.commands import output
    from sleuth.ops.ask import progress as ask_progress

    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=80)
    with output.status("scanning repo[/x]", True, terminal) as status:
        status.update(output.escape(ask_progress("tool_call", {"name": "[/bold]evil"})))

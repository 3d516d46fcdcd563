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

from loopback import Site, article, serve
from sleuth._version import __version__
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


def run(
    *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "sleuth", *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        check=False,
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
    assert shown["max_pages"] == {"value": "5", "source": "env SLEUTH_MAX_PAGES"}
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
    (folder / "notes.md").write_text("not html, skipped")
    done = run("extract", str(folder), "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [Path(r["file"]).name for r in records] == ["a.html", "b.html.gz"]
    assert [r["title"] for r in records] == ["First page", "Second page"]
    assert all(r["outcome"] == "ok" and "two weeks earlier" in r["text"] for r in records)
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

"""What a person at a terminal sees, and what a pipe gets: real subprocesses on a real pty.

A pseudo-terminal is what a terminal emulator gives a program, so ``isatty()`` and rich's
own detection answer exactly as they would for a person; the other stream is a pipe.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopback import Site, article, serve

ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|\]8;[^\x1b]*\x1b\\)")
PAGE = article(
    "Valley beekeepers",
    [
        "Beekeepers in the valley have tracked their hives for three decades, noting when the "
        "first flowers open and how much honey each colony stores before winter arrives.",
        "Their notebooks show that spring now comes almost two weeks earlier than it did when "
        "the records began.",
    ],
)


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    env.pop("NO_COLOR", None)
    env.update({"TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"})
    return env | (extra or {})


def run_on_terminal(
    *args: str, terminal: tuple[str, ...], env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """Run sleuth with the streams named in ``terminal`` on one pty, the others piped.

    Returns (exit code, what the pty showed, what the pipes got). Both are read at once,
    so neither side can fill up and stall the program.
    """
    master, slave = pty.openpty()
    streams = {
        name: (slave if name in terminal else subprocess.PIPE) for name in ("stdout", "stderr")
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "sleuth", *args],
        stdin=subprocess.DEVNULL,
        stdout=streams["stdout"],
        stderr=streams["stderr"],
        env=_env(env),
    )
    os.close(slave)
    piped: list[bytes] = []
    readers = [
        threading.Thread(target=lambda s=stream: piped.append(s.read()))
        for stream in (process.stdout, process.stderr)
        if stream is not None
    ]
    for reader in readers:
        reader.start()
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every holder of the pty's other end has gone
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    for reader in readers:
        reader.join(timeout=120)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    code = process.wait(timeout=120)
    return code, shown.decode("utf-8", "replace"), b"".join(piped).decode("utf-8", "replace")


@pytest.fixture
def pages(tmp_path: Path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    for index in range(12):
        (folder / f"page{index:02}.html").write_text(PAGE, encoding="utf-8")
    (folder / "empty.html").write_text("<html><body></body></html>", encoding="utf-8")
    return folder


def test_a_batch_shows_files_done_rate_and_time_left_on_a_terminal(pages: Path) -> None:
    code, shown, piped = run_on_terminal("extract", str(pages), terminal=("stderr",))
    assert code == 19  # one page is empty: the batch still reports it
    plain = ANSI.sub("", shown)
    assert "13/13 files" in plain
    assert re.search(r"[\d,.]+ files/s", plain)
    assert "elapsed," in plain
    assert "left" in plain
    assert "empty.html: empty_extraction" in plain  # per-file failures print above the bar
    # stdout (a pipe) got the text and nothing of the bar.
    assert "Beekeepers in the valley" in piped
    assert "\x1b" not in piped
    assert "files/s" not in piped


def test_a_batch_on_a_pipe_shows_no_progress(pages: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "extract", str(pages)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 19
    assert "files/s" not in done.stderr
    assert "\x1b" not in done.stderr
    assert (
        done.stderr.strip()
        == f"sleuth: {pages / 'empty.html'}: empty_extraction: "
        + (done.stderr.strip().split(": ", 3)[3])
    )


def test_json_for_a_pipe_gets_no_progress_even_with_a_terminal_watching(pages: Path) -> None:
    code, shown, piped = run_on_terminal("extract", str(pages), "--json", terminal=("stderr",))
    assert code == 19
    assert "files/s" not in shown
    assert "\x1b" not in shown
    records = json.loads(piped)
    assert len(records) == 13


def test_one_document_shows_no_bar(pages: Path) -> None:
    code, shown, _ = run_on_terminal(
        "extract", str(pages / "page00.html"), terminal=("stderr", "stdout")
    )
    assert code == 0
    assert "files/s" not in shown
    assert "Beekeepers in the valley" in shown


# --- research: Markdown rendered for a person, kept as source for a pipe -------------------


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running


@pytest.fixture
def research_env(site: Site, tmp_path: Path) -> dict[str, str]:
    one = site.add(
        "/bees_and_flowers", PAGE.replace("Valley beekeepers", "Bees [and] flowers_2024")
    )
    results = [{"url": one, "title": "Bees [and] flowers_2024", "content": "about bees"}]
    site.add(
        "/search",
        json.dumps({"query": "bees", "results": results}),
        headers={"Content-Type": "application/json"},
    )
    return {
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}",
        "SLEUTH_SEARCH_PROVIDERS": "searxng",
        "SEARXNG_URL": f"{site.origin}/",
        "SLEUTH_CACHE": "memory",
        "SLEUTH_RENDER": "never",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


QUESTION = "when do_the valley [bees] forage"


def test_research_on_a_terminal_is_rendered_without_escapes(
    site: Site, research_env: dict[str, str]
) -> None:
    code, shown, _ = run_on_terminal("research", QUESTION, terminal=("stdout",), env=research_env)
    assert code == 0, shown
    plain = ANSI.sub("", shown)
    assert "when do_the valley [bees] forage" in plain
    assert "Bees [and] flowers_2024" in plain
    assert "\\[" not in plain
    assert "\\_" not in plain
    assert re.search(r"\[1\]", plain)  # the citation marks stay as [n]
    # The source's title is a hyperlink (OSC 8) to the page it cites.
    assert "\x1b]8;id=" in shown
    assert f"{site.origin}/bees_and_flowers" in shown


@pytest.mark.parametrize("columns", ["120", "60"])
def test_research_on_a_terminal_shows_each_sources_address(
    site: Site, research_env: dict[str, str], columns: str
) -> None:
    code, shown, _ = run_on_terminal(
        "research", QUESTION, terminal=("stdout",), env={**research_env, "COLUMNS": columns}
    )
    assert code == 0, shown
    plain = ANSI.sub("", shown).replace("\r\n", "\n")
    address = f"{site.origin}/bees_and_flowers"
    # Readable without OSC 8 links (tmux and many terminals hide them): [n], title, address.
    source = next(line for line in plain.splitlines() if line.startswith("[1] "))
    assert source.startswith(f"[1] Bees [and] flowers_2024 - {address} (127.0.0.1")
    assert plain.index("Sources") < plain.index(source)
    assert plain.index("forage") < plain.index("Sources")
    # The title stays a link the terminal can open.
    assert "\x1b]8;id=" in shown


def test_research_for_a_pipe_or_asked_as_markdown_is_the_markdown_source(
    site: Site, research_env: dict[str, str]
) -> None:
    code, shown, _ = run_on_terminal(
        "research", QUESTION, "--format", "markdown", terminal=("stdout",), env=research_env
    )
    assert code == 0, shown
    assert "## when do\\_the valley \\[bees\\] forage" in shown
    assert "\x1b]8;" not in shown
    piped = subprocess.run(
        [sys.executable, "-m", "sleuth", "research", QUESTION],
        capture_output=True,
        text=True,
        env=_env(research_env),
        timeout=120,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith("## when do\\_the valley \\[bees\\] forage\n")
    assert f"[Bees \\[and\\] flowers\\_2024]({site.origin}/bees_and_flowers)" in piped.stdout


def test_text_for_the_same_terminal_prints_above_the_bar_with_its_lines_intact(
    pages: Path,
) -> None:
    code, shown, _ = run_on_terminal("extract", str(pages), terminal=("stdout", "stderr"))
    assert code == 19
    plain = ANSI.sub("", shown)
    assert "13/13 files" in plain
    # A paragraph longer than the terminal is one line: the terminal wraps it, not sleuth.
    sentence = PAGE.split("<p>")[1].split("</p>")[0]
    assert len(sentence) > 120
    assert plain.count(sentence) == 12

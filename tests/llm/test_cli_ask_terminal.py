"""``sleuth ask`` on a real pty: the answer's Markdown rendered for a person, kept for a pipe."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from llm import payloads_openai as model
from llm.pages import NIMBUS_FACTS
from llm.test_cli_ask import ask_env, run_sleuth
from loopback import Web
from search.wire import Wire

ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|\]8;[^\x1b]*\x1b\\)")
ANSWER = "**Thirty** seconds [1], set by `nimbus_timeout` \\[default\\].\n\n- one\n- two"


def _on_terminal(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    """stdout on a pty (a person reading), stderr piped away."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SLEUTH_") and k not in ("NO_COLOR", "OPENAI_API_KEY", "OLLAMA_HOST")
    }
    clean |= {"TERM": "xterm-256color", "COLUMNS": "120", "SLEUTH_CACHE": "memory"}
    clean |= {"XDG_CONFIG_HOME": str(tmp_path / "config")} | env
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "sleuth", "ask", "How long?", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=clean,
    )
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return process.wait(timeout=120), shown.decode("utf-8", "replace")


def _script(wire: Wire, web: Web) -> str:
    page = web.page("/nimbus/timeouts", "Nimbus [docs] timeouts", NIMBUS_FACTS)
    wire.on(
        model.PATH,
        model.tool_call("call_2", "fetch_page", {"url": page}),
        model.answer(ANSWER),
    )
    return page


def test_ask_on_a_terminal_renders_the_answer_and_links_its_sources(
    wire: Wire, web: Web, tmp_path: Path
) -> None:
    page = _script(wire, web)
    code, shown = _on_terminal(tmp_path, ask_env(wire, web))
    assert code == 0, shown
    plain = ANSI.sub("", shown)
    assert "Thirty seconds [1], set by nimbus_timeout [default]." in plain
    assert "**" not in plain
    assert "\\[" not in plain
    assert "• one" in plain
    assert f"[1] Nimbus [docs] timeouts - {page} (read)" in plain
    assert "\x1b]8;id=" in shown  # the source title is a hyperlink
    assert page in shown


def test_ask_as_markdown_or_for_a_pipe_prints_the_answer_as_sent(
    wire: Wire, web: Web, tmp_path: Path
) -> None:
    _script(wire, web)
    code, shown = _on_terminal(tmp_path, ask_env(wire, web), "--format", "markdown")
    assert code == 0, shown
    assert shown.replace("\r\n", "\n").startswith(ANSWER + "\n")
    assert "\x1b" not in shown

    _script(wire, web)
    done = run_sleuth(tmp_path, "ask", "How long?", env=ask_env(wire, web))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(ANSWER + "\n")

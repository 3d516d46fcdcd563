"""``sleuth ask`` on a real terminal: the spinner never leaves a frame behind a log line."""

from __future__ import annotations

import re
from pathlib import Path

from llm import payloads_openai as model
from llm.pages import NIMBUS_FACTS
from llm.test_cli_ask import ask_env
from loopback import Web
from search.wire import Wire
from test_cli_terminal import run_on_terminal

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
# What a terminal shows once carriage returns and rich's erase-line codes are applied.
_ERASE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def screen_lines(raw: str) -> list[str]:
    """Each line as it stands at the end: text after the last carriage return wins."""
    lines = []
    for line in _ERASE.sub("", raw).replace("\r\n", "\n").split("\n"):
        lines.append(line.rsplit("\r", 1)[-1])
    return lines


def test_a_warning_starts_on_a_clean_line_and_the_spinner_says_what_runs_now(
    wire: Wire, web: Web, tmp_path: Path
) -> None:
    page = web.page("/nimbus/timeouts", "Nimbus timeouts", NIMBUS_FACTS)
    wire.on(
        model.PATH,
        model.tool_call("call_1", "fetch_page", {"url": page}),
        model.answer("Thirty seconds [1]. Also see [9]."),  # [9] was never issued: a warning
    )
    env = ask_env(wire, web) | {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    env["SLEUTH_CACHE"] = "memory"
    code, shown, piped = run_on_terminal(
        "ask", "How long does Nimbus wait?", terminal=("stderr",), env=env
    )
    assert code == 0, shown
    assert "Thirty seconds [1]" in piped
    warnings = [line for line in screen_lines(shown) if "citations_flagged" in line]
    assert warnings, shown
    for line in warnings:
        assert line.lstrip().startswith("sleuth"), line  # nothing glued before the log line
        assert not any(frame in line for frame in SPINNER), line
    # After the tool finished, the status no longer claims the tool is running.
    assert "waiting for the model (turn 2)" in shown

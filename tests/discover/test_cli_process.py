"""``sleuth discover`` as people run it: a real process, on a pipe and on a terminal (a pty)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

from discover.conversations import STRIPE
from discover.llm_settings import discover_env
from discover.registries import Registries
from sleuth.errors import EXIT_CODES


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    return clean | {
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "SLEUTH_CACHE": "memory",
        "TERM": "dumb",
        **extra,
    }


def run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sleuth", "discover", *args],
        capture_output=True,
        text=True,
        env=environment(tmp_path, **env),
        timeout=60,
        check=False,
    )


def on_terminal(
    tmp_path: Path, args: list[str], answers: list[tuple[str, str]], **env: str
) -> tuple[int, str]:
    """Run on a pseudo-terminal; each time ``expect`` has appeared, type ``answer``."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "sleuth", "discover", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=environment(tmp_path, **env),
        close_fds=True,
    )
    os.close(slave)
    screen = bytearray()

    def read_more() -> bool:
        """Wait for output; False once the child has closed the terminal."""
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            raise AssertionError(f"no output for 60 s; so far: {screen.decode(errors='replace')}")
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child is gone
            return False
        screen.extend(chunk)
        return bool(chunk)

    try:
        for expect, answer in answers:
            while expect.encode() not in screen:
                if not read_more():
                    raise AssertionError(
                        f"never saw {expect!r} in: {screen.decode(errors='replace')}"
                    )
            os.write(master, answer.encode() + b"\n")
        while read_more():
            pass
        code = process.wait(timeout=60)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    return code, screen.decode(errors="replace").replace("\r\n", "\n")


def test_ripgrep_from_the_installed_command(tmp_path: Path) -> None:
    done = run(tmp_path, "ripgrep")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "github:BurntSushi/ripgrep"
    json_done = run(tmp_path, "rg", "--json")
    assert json_done.returncode == 0
    assert json.loads(json_done.stdout)["source"] == "BurntSushi/ripgrep"


def test_a_bad_name_is_one_line_and_its_own_exit_code(tmp_path: Path) -> None:
    done = run(tmp_path, "kubeсtl")
    assert done.returncode == EXIT_CODES["suspicious_name"]
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_person_confirms_a_web_found_source(tmp_path: Path, regs: Registries) -> None:
    STRIPE.serve_web(regs)
    args = ["stripe-cli", "--stages", "ecosystem,llm"]
    code, screen = on_terminal(
        tmp_path, args, [("Use this source? (y/N)", "y")], **discover_env(regs)
    )
    assert code == 0, screen
    display = screen.split("Use this source?")[0]
    assert "searching the web with the LLM..." in display  # progress, for the person waiting
    assert "→ web_search 'stripe-cli official github repository'" in display
    assert "Discovered via web search:" in display
    assert "Repository: github.com/stripe/stripe-cli" in display
    assert "Stars: 1,834" in display
    assert "Owner: stripe (Organization)" in display
    assert "Confidence: 95%" in display
    assert "docs.stripe.com/stripe-cli" in display
    assert screen.rstrip().splitlines()[-2] == "github:stripe/stripe-cli"


def test_a_person_who_says_no_gets_confirmation_denied(tmp_path: Path, regs: Registries) -> None:
    STRIPE.serve_web(regs)
    args = ["stripe-cli", "--stages", "ecosystem,llm"]
    code, screen = on_terminal(tmp_path, args, [("(y/N)", "")], **discover_env(regs))
    assert code == EXIT_CODES["confirmation_denied"], screen
    assert "was not confirmed" in screen


def test_a_person_picks_among_ambiguous_matches(tmp_path: Path, regs: Registries) -> None:
    regs.npm("thing", downloads=1_000, versions=20, repository="https://github.com/x/y")
    regs.crate("thing", downloads=400, versions=6, repository=None)
    code, screen = on_terminal(
        tmp_path, ["thing", "--json", "--deterministic-only"], [("Which one?", "2")], **regs.env()
    )
    assert code == 0, screen
    assert "1. npm:thing" in screen
    assert "2. crates.io:thing" in screen
    data = json.loads(screen[screen.index("{") :])
    assert (data["builder"], data["selection_reason"]) == ("crates.io", "user_choice")
    assert data["alternatives"] == ["npm:thing"]

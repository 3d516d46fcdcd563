"""Fixtures for discover: loopback registries and ``sleuth discover`` run as the CLI runs it.

``cli`` calls the real entry point (``sleuth.cli._run``: argument parsing, exit codes,
stdout and stderr) in this process, which keeps the many CLI tests quick; the
subprocess tests in ``test_cli_process.py`` check the installed command end to end.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from discover.registries import Registries, registries


@dataclass
class Done:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)

    def lines(self) -> list[Any]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


CLI = Callable[..., Done]


@pytest.fixture(autouse=True)
def _fresh_search_health(monkeypatch: pytest.MonkeyPatch) -> None:
    """Search cooldowns are process-wide (a CLI session remembers failures); a test that
    makes searching fail must not cool the provider down for the tests after it."""
    from sleuth.websearch.health import PROCESS_HEALTH

    monkeypatch.setattr(PROCESS_HEALTH, "_breakers", {})


@pytest.fixture
def regs() -> Iterator[Registries]:
    with registries() as running:
        yield running


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> CLI:
    from sleuth import cli as module

    def run(*args: str, stdin: str = "", **env: str) -> Done:
        base = {
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "SLEUTH_CACHE": "memory",
            "SLEUTH_DISCOVER_REGISTRY": str(tmp_path / "no-registry"),
        }
        for key, value in {**base, **env}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.setattr(sys, "argv", ["sleuth", *args])
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        module.STATE.json = False
        module.STATE.verbose = 0
        capsys.readouterr()
        code = module._run()
        out, err = capsys.readouterr()
        return Done(code, out, err)

    return run

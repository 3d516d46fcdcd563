"""``downloads_ratio`` keeps full precision in JSON; only the line for people rounds it."""

from __future__ import annotations

from discover.conftest import CLI
from discover.registries import Registries


def test_json_keeps_the_ratio_unrounded(cli: CLI, regs: Registries) -> None:
    regs.npm("thing", downloads=1_000, versions=20, repository="https://github.com/x/y")
    regs.crate("thing", downloads=300, versions=6, repository=None)
    done = cli("discover", "thing", "--batch", "--json", **regs.env())
    assert done.code == 0, done.stderr
    assert done.json["downloads_ratio"] == 1_000 / 300  # 3.3333333333333335, not 3.33


def test_the_summary_line_rounds_for_people(cli: CLI, regs: Registries) -> None:
    regs.npm("thing", downloads=1_000, versions=20, repository="https://github.com/x/y")
    regs.crate("thing", downloads=300, versions=6, repository=None)
    done = cli("discover", "thing", "--batch", **regs.env())
    assert done.code == 0, done.stderr
    assert "3.3x the runner-up's downloads" in done.stderr
    assert "3.33333" not in done.stderr

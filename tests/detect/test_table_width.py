"""The detect table uses the terminal's width, and cuts a path in its middle, never its end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sleuth.stack import Project, render_table
from test_cli_terminal import ANSI, run_on_terminal

LONG = "crates/cli/tests/fixtures/workspaces/nested/members/alpha-service"


def nested_repo(root: Path) -> Path:
    for name in ("alpha-service", "beta-service"):
        folder = root / LONG.replace("alpha-service", name)
        folder.mkdir(parents=True)
        (folder / "package.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
        (folder / "index.js").write_text("console.log(1)\n")
    return root


def test_a_path_is_cut_in_the_middle_so_its_last_folder_shows() -> None:
    rows = [Project(path=LONG, project_name="alpha-service", confidence=0.7)]
    line = render_table(rows, width=90).splitlines()[1]
    path_cell = line.split("  ")[0]
    assert "…" in path_cell
    assert path_cell.startswith("crates")
    assert path_cell.rstrip().endswith("alpha-service")


def test_no_width_cuts_nothing() -> None:
    rows = [Project(path=LONG, project_name="alpha-service", confidence=0.7)]
    assert LONG in render_table(rows, width=None)


@pytest.mark.parametrize("columns", [220, 100])
def test_the_terminal_width_is_used(tmp_path: Path, columns: int) -> None:
    repo = nested_repo(tmp_path / "repo")
    code, shown, _ = run_on_terminal(
        "detect", str(repo), terminal=("stdout",), env={"COLUMNS": str(columns)}
    )
    assert code == 0
    lines = [line for line in ANSI.sub("", shown).splitlines() if "service" in line]
    assert len(lines) == 2
    assert all(len(line.rstrip()) <= columns for line in lines)
    if columns == 220:  # room for the whole path
        assert any(LONG in line for line in lines)
    else:  # cut in the middle: the two members stay apart
        assert any(line.split()[0].endswith("alpha-service") for line in lines)
        assert any(line.split()[0].endswith("beta-service") for line in lines)


def test_a_pipe_gets_whole_paths(tmp_path: Path) -> None:
    repo = nested_repo(tmp_path / "repo")
    code, _, piped = run_on_terminal("detect", str(repo), terminal=("stderr",))
    assert code == 0
    assert LONG in piped


def test_a_wide_terminal_never_pads_a_short_path() -> None:
    rows = [Project(path=".", project_name="app", confidence=0.7)]
    header = render_table(rows, width=220).splitlines()[0]
    assert header.startswith("PATH  NAME")

"""The scripts a contributor runs: ``scripts/test --help`` says what it does without
installing anything, and ``scripts/layers.py`` finds the layer graph clean."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_help_installs_nothing_and_explains_itself(tmp_path: Path) -> None:
    # Only `cat` on PATH: any attempt to install (apt-get, python3, pip) would exit 127.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cat = shutil.which("cat")
    assert cat
    os.symlink(cat, bin_dir / "cat")
    result = subprocess.run(
        ["/bin/bash", str(ROOT / "scripts" / "test"), "--help"],
        env={"PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "usage: scripts/test" in result.stdout
    for promise in ("redis-server", "chromium", "'.[test]'", "passed to pytest"):
        assert promise in result.stdout


def test_the_layer_graph_has_no_violations() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "layers.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.stderr == ""
    assert result.returncode == 0
    last = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ units, \d+ arrows, 0 violations", last), last


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_layer_check_reports_imports_that_run_up_or_sideways_and_circles() -> None:
    layers = _script("layers")
    found = layers.violations({"net": {"session", "cache", "config"}, "made_up": set()})
    assert found == [
        "made_up is on no layer: add it to LAYERS",
        "net -> cache runs sideways",
        "net -> session runs up",
    ]
    assert layers.circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_python_api_lines_are_the_ones_the_registry_derives() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bindings.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")


def test_the_bindings_check_names_a_file_out_of_date_and_the_rewrite_mends_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bindings = _script("bindings")
    api = tmp_path / "api.py"
    init = tmp_path / "__init__.py"
    current = (ROOT / "src" / "sleuth" / "api.py").read_text("utf-8")
    api.write_text(current.replace("    fill = Bound(sleuth.ops.fill.fill)\n", ""), "utf-8")
    init.write_text((ROOT / "src" / "sleuth" / "__init__.py").read_text("utf-8"), "utf-8")
    monkeypatch.setattr(bindings, "API", api)
    monkeypatch.setattr(bindings, "INIT", init)
    monkeypatch.setattr(bindings, "ROOT", tmp_path)
    monkeypatch.setattr(sys, "argv", ["bindings.py", "--check"])
    assert bindings.main() == 1
    assert "out of date: api.py" in capsys.readouterr().err
    monkeypatch.setattr(sys, "argv", ["bindings.py"])
    assert bindings.main() == 0
    assert api.read_text("utf-8") == current


def test_no_one_shot_is_derived_for_a_name_a_module_or_builtin_holds() -> None:
    bindings = _script("bindings")
    assert bindings._shortcut("fetch", "call")
    assert not bindings._shortcut("suggest", "call")  # the package sleuth.suggest
    assert not bindings._shortcut("config", "call")  # the module sleuth.config
    assert not bindings._shortcut("map", "call")  # the builtin
    assert not bindings._shortcut("fetch", "stream")  # only what returns once

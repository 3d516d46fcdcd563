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


def _layers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("layers", ROOT / "scripts" / "layers.py")
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_layer_check_reports_imports_that_run_up_or_sideways_and_circles() -> None:
    layers = _layers()
    found = layers.violations({"net": {"session", "cache", "config"}, "made_up": set()})
    assert found == [
        "made_up is on no layer: add it to LAYERS",
        "net -> cache runs sideways",
        "net -> session runs up",
    ]
    assert layers.circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]

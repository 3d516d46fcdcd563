"""``scripts/test --help`` says what the script does without installing anything."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

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

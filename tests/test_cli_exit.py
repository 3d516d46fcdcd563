"""How a finished command leaves its process: without the interpreter's teardown, but
with the exit handlers run, the streams flushed, the exit code kept, and no other thread
cut short."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    env.pop("PYTHONUNBUFFERED", None)  # stdout to a pipe is block-buffered, as for a user
    env |= {"PYTHONPATH": SRC, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_exit_handlers_run_and_buffered_output_is_written(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(
        "<html><head><title>Bees</title></head><body><article><p>"
        + "Beekeepers in the valley have tracked their hives for three decades. " * 4
        + "</p></article></body></html>",
        encoding="utf-8",
    )
    done = _python(
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('handler ran\\n'))\n"
        f"sys.argv = ['sleuth', 'extract', {str(page)!r}]\n"
        "from sleuth.cli import main\n"
        "main()\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Beekeepers in the valley")
    assert done.stderr.endswith("handler ran\n")


def test_the_exit_code_is_kept(tmp_path: Path) -> None:
    done = _python(
        f"import sys; sys.argv = ['sleuth', 'extract', {str(tmp_path / 'missing.html')!r}]\n"
        "from sleuth.cli import main\n"
        "main()\n",
        tmp_path,
    )
    assert done.returncode == 2
    assert "missing.html" in done.stderr


def test_another_thread_is_waited_for(tmp_path: Path) -> None:
    """A thread still running when the command returns ends its work before the process
    does, as with Python's own exit."""
    done = _python(
        "import sys, threading\n"
        "go = threading.Event()\n"
        "def late():\n"
        "    go.wait()\n"
        "    sys.stdout.write('thread done\\n')\n"
        "threading.Thread(target=late).start()\n"
        "sys.argv = ['sleuth', '--version']\n"
        "from sleuth import cli\n"
        "real_exit = cli.sys.exit\n"
        "def exiting(code=0):\n"
        "    go.set()  # the thread finishes only once the command is leaving\n"
        "    real_exit(code)\n"
        "cli.sys.exit = exiting\n"
        "cli.main()\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("thread done\n")

"""``sleuth detect`` as people and scripts run it: a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from detect.llm_model import CASSETTES, write_repo
from sleuth.errors import EXIT_CODES


def run_sleuth(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    clean |= {"XDG_CONFIG_HOME": str(tmp_path / "config"), "SLEUTH_CACHE": "memory", **env}
    return subprocess.run(
        [sys.executable, "-m", "sleuth", *args],
        capture_output=True,
        text=True,
        env=clean,
        timeout=60,
        check=False,
    )


def polyglot(root: Path) -> Path:
    (root / "api" / "src").mkdir(parents=True)
    (root / "api" / "Cargo.toml").write_text('[package]\nname = "api"\nversion = "0.1.0"\n')
    (root / "api" / "src" / "main.rs").write_text("fn main() {}\n")
    (root / "web").mkdir()
    (root / "web" / "package.json").write_text(
        json.dumps(
            {"name": "web", "scripts": {"build": "next build"}, "dependencies": {"next": "15"}}
        )
    )
    (root / "web" / "package-lock.json").write_text("{}")
    write_repo(root, "zig-tool")
    return root


def test_json_is_an_array_sorted_by_path_with_every_field(tmp_path: Path) -> None:
    root = polyglot(tmp_path / "repo")
    done = run_sleuth(tmp_path, "detect", str(root), "--mode", "static", "--json")
    assert done.returncode == 0, done.stderr
    projects = json.loads(done.stdout)
    assert [p["path"] for p in projects] == ["api", "web", "zig-tool"]
    assert list(projects[0]) == [
        "project_name",
        "path",
        "language",
        "build_system",
        "framework",
        "runtime",
        "orchestrator",
        "manifests",
        "build",
        "run",
        "confidence",
        "evidence",
        "source",
    ]
    web = projects[1]
    assert (web["language"], web["build_system"], web["framework"]) == (
        "JavaScript",
        "npm",
        "Next.js",
    )
    assert projects[0]["build"]["commands"] == ["cargo build --release"]


def test_the_table_is_readable_and_llm_mode_replays_from_cassettes(tmp_path: Path) -> None:
    folder = write_repo(tmp_path, "deno-api")
    done = run_sleuth(
        tmp_path,
        "detect",
        str(folder),
        SLEUTH_DETECTION_MODE="llm_only",
        SLEUTH_LLM_PROVIDER="openai",
        SLEUTH_LLM_BASE_URL="http://127.0.0.1:9/v1",
        SLEUTH_LLM_MODEL="qwen3-coder:30b",
        SLEUTH_LLM_RECORD="replay",
        SLEUTH_LLM_CASSETTE_DIR=str(CASSETTES),
    )
    assert done.returncode == 0, done.stderr
    header, row = done.stdout.splitlines()[:2]
    assert header.split()[:4] == ["PATH", "NAME", "LANGUAGE", "BUILD"]
    assert row.split()[:5] == [".", "deno-api", "TypeScript", "Deno", "Hono"]
    assert "*" in row  # the LLM named it


def test_bad_input_gets_one_line_and_its_own_exit_code(tmp_path: Path) -> None:
    missing = run_sleuth(tmp_path, "detect", str(tmp_path / "nope"))
    assert missing.returncode == EXIT_CODES["usage_error"]
    assert missing.stderr.startswith("sleuth: error: ")
    assert "Traceback" not in missing.stderr
    no_llm = run_sleuth(tmp_path, "detect", str(tmp_path), "--mode", "llm")
    assert no_llm.returncode == EXIT_CODES["llm_not_configured"]
    bad_env = run_sleuth(tmp_path, "detect", str(tmp_path), SLEUTH_DETECTION_MODE="psychic")
    assert bad_env.returncode == EXIT_CODES["config_error"]
    assert "detection_mode" in bad_env.stderr

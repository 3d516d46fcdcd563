"""Mode names and bad input are caught before any file is read, with a way out in the message."""

from __future__ import annotations

from pathlib import Path

import pytest

from detect.trees import Repo
from sleuth.commands.output import error_text
from sleuth.errors import UsageError
from sleuth.stack import detect_path, detect_projects, normalize_mode


@pytest.mark.parametrize(
    ("raw", "mode"),
    [
        ("full", "full"),
        ("static", "static"),
        ("llm", "llm"),
        ("llm_only", "llm"),
        ("LLM-Only", "llm"),
        ("  Static ", "static"),
    ],
)
def test_modes_normalise(raw: str, mode: str) -> None:
    assert normalize_mode(raw) == mode


def test_unknown_mode_lists_the_valid_ones() -> None:
    with pytest.raises(UsageError) as caught:
        normalize_mode("fast")
    text = str(caught.value)
    assert "'fast'" in text
    assert "full, static, llm" in text
    assert caught.value.exit_code == 2


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist") as caught:
        detect_path(tmp_path / "nope")
    assert "pass the folder of a repository" in str(caught.value)


def test_file_path_is_a_usage_error(tmp_path: Path) -> None:
    file = tmp_path / "Cargo.toml"
    file.write_text("")
    with pytest.raises(UsageError, match="is a file, not a folder"):
        detect_path(file)


def test_llm_mode_without_a_fallback_says_what_to_do(repo: Repo) -> None:
    with pytest.raises(UsageError, match="no LLM detector is configured") as caught:
        detect_path(repo({}), mode="llm")
    assert 'mode: "static"' in str(caught.value)
    assert "--mode static" in error_text(caught.value)  # the CLI names its flag


def test_bad_mode_is_rejected_before_the_path_is_checked(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown detection mode"):
        detect_path(tmp_path / "nope", mode="everything")


def test_non_positive_size_cap_is_rejected(repo: Repo) -> None:
    with pytest.raises(UsageError, match="max_file_bytes"):
        detect_path(repo({}), max_file_bytes=0)


async def test_async_entry_point_matches_the_sync_one(repo: Repo) -> None:
    root = repo({"go.mod": "module a/b\n", "main.go": "package main\n"})
    assert await detect_projects(root, mode="static") == detect_path(root)


def test_empty_folder_has_no_projects(repo: Repo) -> None:
    assert detect_path(repo({"README.md": "# hi\n", "docs/guide.md": "\n"})) == []


def test_path_may_be_a_string_and_paths_stay_relative(repo: Repo) -> None:
    root = repo({"svc/go.mod": "module x\n"})
    project = detect_path(str(root))[0]
    assert project.path == "svc"
    assert project.manifests == ["svc/go.mod"]

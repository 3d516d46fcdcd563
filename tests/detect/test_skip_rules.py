"""What detection never looks at: ignored, vendored, generated and oversized files."""

from __future__ import annotations

from pathlib import Path

import pytest

from detect.trees import Repo
from sleuth.stack import detect_path

PKG = {"name": "x", "dependencies": {"express": "4"}}


def paths(root: Path, **kwargs: int) -> list[str]:
    return [p.path for p in detect_path(root, **kwargs)]


@pytest.mark.parametrize(
    "folder",
    [
        "node_modules/left-pad",
        "vendor/github.com/x",
        "target/debug",
        "build/generated",
        "dist/pkg",
        "out/x",
        ".venv/lib",
        "venv/lib",
        "__pycache__/x",
        ".gradle/x",
        ".next/server",
        ".git/modules/x",
        "app/obj",
    ],
)
def test_build_outputs_and_dependency_folders_are_skipped(repo: Repo, folder: str) -> None:
    root = repo(
        {"app/package.json": PKG, "app/app.csproj": "<Project/>", f"{folder}/package.json": PKG}
    )
    assert f"{folder}" not in paths(root)
    assert "app" in paths(root)


def test_bin_is_output_only_next_to_a_dotnet_project(repo: Repo) -> None:
    root = repo(
        {
            "svc/Svc.csproj": "<Project/>",
            "svc/bin/Release/package.json": PKG,
            "dart/pubspec.yaml": "name: d\n",
            "dart/bin/main.dart": "\n",
        }
    )
    projects = {p.path: p for p in detect_path(root)}
    assert "svc/bin/Release" not in projects
    assert projects["dart"].run.command == "bin/main"


def test_root_gitignore_prunes_folders_and_files(repo: Repo) -> None:
    root = repo(
        {
            ".gitignore": "generated/\n*.local.json\n/scratch\n",
            "generated/api/package.json": PKG,
            "scratch/package.json": PKG,
            "keep/scratch/package.json": PKG,
            "svc/package.json": PKG,
            "svc/package.local.json": PKG,
        }
    )
    assert paths(root) == ["keep/scratch", "svc"]
    svc = detect_path(root)[1]
    assert all("local" not in m for m in svc.manifests)


def test_nested_gitignore_applies_below_its_folder_and_can_reinclude(repo: Repo) -> None:
    root = repo(
        {
            ".gitignore": "*.py\n",
            "tools/.gitignore": "!keep.py\nfixtures/\n",
            "tools/keep.py": "\n",
            "tools/drop.py": "\n",
            "tools/fixtures/package.json": PKG,
            "other/fixtures/package.json": PKG,
        }
    )
    projects = {p.path: p for p in detect_path(root)}
    assert sorted(projects) == ["other/fixtures", "tools"]
    assert projects["tools"].language == "Python"
    assert "1 of 1 source files are Python" in projects["tools"].evidence[0].reason


def test_git_info_exclude_is_honoured(repo: Repo) -> None:
    root = repo(
        {".git/info/exclude": "private/\n", "private/package.json": PKG, "pub/package.json": PKG}
    )
    assert paths(root) == ["pub"]


def test_negated_file_inside_an_ignored_folder_stays_ignored(repo: Repo) -> None:
    root = repo({".gitignore": "gen/\n!gen/package.json\n", "gen/package.json": PKG})
    assert paths(root) == []


def test_oversized_manifest_is_not_read_and_says_so(repo: Repo) -> None:
    root = repo({"package.json": {"name": "big", "description": "x" * 5000}, "index.js": "\n"})
    small = detect_path(root, max_file_bytes=1024)[0]
    skipped = [e for e in small.evidence if e.file == "package.json" and "not read" in e.reason]
    assert skipped
    assert "over the 1.0 KiB limit" in skipped[0].reason
    assert small.project_name == "repo"  # the name inside was never read
    full = detect_path(root)[0]
    assert full.project_name == "big"
    assert full.confidence > small.confidence


def test_default_cap_is_one_mebibyte(repo: Repo) -> None:
    root = repo({"requirements.txt": "django\n" + "#" * (1 << 20)})
    project = detect_path(root)[0]
    assert project.framework is None
    assert any("over the 1.0 MiB limit" in e.reason for e in project.evidence)


def test_symlinks_are_never_followed(repo: Repo, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "package.json").write_text('{"name": "secret"}')
    root = repo({"app/Cargo.toml": '[package]\nname = "a"\n'})
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "app" / "package.json").symlink_to(outside / "package.json")
    projects = detect_path(root)
    assert [p.path for p in projects] == ["app"]
    assert projects[0].manifests == ["app/Cargo.toml"]

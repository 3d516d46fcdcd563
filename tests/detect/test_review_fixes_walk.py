"""Repositories as people really lay them out: the cases a review of detect turned up."""

from __future__ import annotations

from pathlib import Path

from detect.trees import Repo
from sleuth.stack import detect_path
from sleuth.stack.llm import summarize
from sleuth.stack.walk import _Walk


def layout(project: Path) -> list[tuple[str, str | None, str | None]]:
    return [(p.path, p.language, p.build_system) for p in detect_path(project)]


def test_an_invalid_gitignore_line_is_skipped_as_git_skips_it(repo: Repo) -> None:
    root = repo(
        {
            ".gitignore": "node_modules\n!\n\\\n[z-a]\nsecret/\n",
            "p/package.json": {"name": "p"},
            "secret/package.json": {"name": "s"},
        }
    )
    assert layout(root) == [("p", "JavaScript", "npm")]


def test_workspace_members_named_like_build_output_are_kept(repo: Repo) -> None:
    root = repo(
        {
            "package.json": {"name": "mono", "workspaces": ["packages/*"]},
            "packages/build/package.json": {"name": "build-tools"},
            "packages/env/package.json": {"name": "env"},
            "packages/core/package.json": {"name": "core"},
            "dist/package.json": {"name": "mono-dist"},  # output beside its own manifest
            "tools/target/debug/package.json": {"name": "never"},  # no manifest on top
        }
    )
    assert [path for path, _, _ in layout(root)] == [
        ".",
        "packages/build",
        "packages/core",
        "packages/env",
    ]


def test_native_and_python_projects_inside_a_node_repo_are_their_own(repo: Repo) -> None:
    root = repo(
        {
            "package.json": {"name": "tooling", "devDependencies": {"husky": "9"}},
            "engine/CMakeLists.txt": "project(engine CXX)\nadd_executable(engine a.cpp)\n",
            "engine/a.cpp": "int main() {}\n",
            "legacy/setup.py": "from setuptools import setup\nsetup(name='legacy')\n",
            "legacy/legacy.py": "\n",
        }
    )
    assert layout(root) == [
        (".", "JavaScript", "npm"),
        ("engine", "C++", "CMake"),
        ("legacy", "Python", "setuptools"),
    ]


def test_a_framework_app_beats_the_toolchain_of_its_frontend(repo: Repo) -> None:
    root = repo(
        {
            "requirements.txt": "Django==4.2\n",
            "manage.py": "import django\n",
            "shop/settings.py": "\n",
            "package.json": {"name": "assets", "scripts": {"build": "vite build"}},
            "package-lock.json": "{}",
            **{f"static/js/m{i}.js": "\n" for i in range(7)},
        }
    )
    [project] = detect_path(root)
    assert (project.language, project.framework) == ("Python", "Django")


def test_the_models_summary_lists_paths_in_a_stable_order(repo: Repo) -> None:
    root = repo(
        {
            "stack.yaml": "resolver: lts-22.0\n",
            "zeta/Z.hs": "\n",
            "mid/M.hs": "\n",
            "alpha/A.hs": "\n",
        }
    )
    walk = _Walk(root, 1 << 20)
    [candidate] = [c for level in walk.levels() for c in level]
    paths_line = next(
        line for line in summarize(candidate).splitlines() if line.startswith("Some paths")
    )
    listed = paths_line.removeprefix("Some paths: ").split(", ")
    # The folder's own files, then its sub-folders in name order, whatever the disk's order.
    assert listed == ["stack.yaml", "alpha/A.hs", "mid/M.hs", "zeta/Z.hs"]

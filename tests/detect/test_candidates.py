"""Which folders are candidates: manifests start projects, fragments and loose sources only
where nothing encloses them, and an app's platform folders never do."""

from __future__ import annotations

from pathlib import Path

from detect.trees import Repo
from sleuth.stack.candidate import Files
from sleuth.stack.scan import scan
from sleuth.stack.spots import Spot, find_spots


def spots(root: Path) -> dict[str, Spot]:
    return {s.path: s for s in find_spots(scan(root, max_file_bytes=1 << 20))}


def test_fragments_belong_to_the_enclosing_project(repo: Repo) -> None:
    root = repo(
        {
            "CMakeLists.txt": "project(a)\n",
            "lib/CMakeLists.txt": "\n",
            "lib/x.c": "\n",
            "docs/Makefile": "html:\n",
            "pkg/BUILD.bazel": "\n",
        }
    )
    found = spots(root)
    assert sorted(found) == ["."]
    assert found["."].extensions == {".txt": 2, ".c": 1, ".bazel": 1}
    assert "lib" in found["."].folders


def test_a_fragment_with_nothing_around_it_starts_a_project(repo: Repo) -> None:
    root = repo({"native/Makefile": "all:\n", "native/a.c": "\n", "web/package.json": {}})
    assert sorted(spots(root)) == ["native", "web"]


def test_loose_sources_are_candidates_only_at_the_top(repo: Repo) -> None:
    root = repo(
        {
            "scripts/a.py": "\n",
            "scripts/sub/b.py": "\n",
            "svc/go.mod": "module x\n",
            "svc/tools/gen.py": "\n",
            "notes/todo.md": "\n",
        }
    )
    found = spots(root)
    assert sorted(found) == ["scripts", "svc"]
    assert found["scripts"].reason == "sources"
    assert found["scripts"].extensions == {".py": 2}
    assert found["svc"].extensions == {".mod": 1, ".py": 1}


def test_project_like_manifests_are_candidates(repo: Repo) -> None:
    root = repo({"h/stack.yaml": "\n", "c/project.clj": "\n", "n/x.nimble": "\n"})
    found = spots(root)
    assert sorted(found) == ["c", "h", "n"]
    assert found["n"].manifests == ("x.nimble",)


def test_nested_candidates_keep_their_own_counts(repo: Repo) -> None:
    root = repo({"package.json": {}, "a.ts": "\n", "sub/package.json": {}, "sub/b.js": "\n"})
    found = spots(root)
    assert found["."].extensions == {".json": 1, ".ts": 1}
    assert found["sub"].extensions == {".json": 1, ".js": 1}


def test_flutter_platform_folders_do_not_start_projects(repo: Repo) -> None:
    root = repo(
        {
            "pubspec.yaml": "name: app\n",
            "android/settings.gradle": "\n",
            "android/app/build.gradle": "\n",
            "ios/Podfile": "\n",
            "packages/plugin/pubspec.yaml": "name: plugin\n",
        }
    )
    assert sorted(spots(root)) == [".", "packages/plugin"]


def test_reads_are_cached_and_confined(repo: Repo) -> None:
    root = repo({"a/package.json": {"name": "a"}})
    tree = scan(root, max_file_bytes=100)
    files = Files(tree, 100)
    first = files.read("a/package.json")
    (root / "a/package.json").write_text("changed")
    assert files.read("a/package.json") is first
    assert files.read("a/missing.json").text is None

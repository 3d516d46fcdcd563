"""A file is a manifest by its name and its shape: registry data named ``deno.json`` is not Deno."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sleuth.stack import detect_path
from sleuth.stack.manifests import looks_like_manifest

# The shape of a package-registry entry that happens to be named after a tool.
REGISTRY_ENTRY = {
    "schema_version": 1,
    "builder": "github",
    "source": "denoland/deno",
    "binary": "deno",
    "description": "A modern runtime for JavaScript and TypeScript",
}


def write(root: Path, files: dict[str, object]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return root


@pytest.mark.parametrize("name", ["deno.json", "deno.jsonc", "rush.json", "composer.json"])
def test_registry_data_named_like_a_manifest_is_no_project(tmp_path: Path, name: str) -> None:
    root = write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "host"\nversion = "1"\n',
            "host/__init__.py": "",
            f"recipes/discovery/x/xy/{name}": REGISTRY_ENTRY,
        },
    )
    paths = [p.path for p in detect_path(root)]
    assert paths == ["."]


@pytest.mark.parametrize(
    ("name", "content", "build"),
    [
        ("deno.json", {"tasks": {"start": "deno run main.ts"}}, "Deno"),
        ("deno.json", {}, "Deno"),  # an empty configuration is a valid one
        ("composer.json", {"name": "acme/app", "require": {"php": ">=8.2"}}, "Composer"),
        ("composer.json", {"autoload": {"psr-4": {"App\\": "src/"}}}, "Composer"),
    ],
)
def test_real_manifests_still_make_projects(
    tmp_path: Path, name: str, content: object, build: str
) -> None:
    root = write(tmp_path, {f"app/{name}": content, "app/main.ts": "console.log(1)\n"})
    found = {p.path: p for p in detect_path(root)}
    assert found["app"].build_system == build


def test_rush_json_with_rush_keys_is_a_rush_monorepo(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "rush.json": {"rushVersion": "5.100.0", "projects": []},
            "apps/web/package.json": {"name": "web", "version": "1.0.0"},
        },
    )
    found = {p.path: p for p in detect_path(root)}
    assert found["."].orchestrator == "Rush"


def test_broken_json_under_a_manifest_name_is_still_reported() -> None:
    # Text that is not JSON cannot be judged by its keys: the detector names the problem.
    assert looks_like_manifest("composer.json", "not json")
    assert looks_like_manifest("package.json", {})
    assert not looks_like_manifest("package.json", {"schema_version": 1, "binary": "x"})
    assert looks_like_manifest("Makefile", {"anything": 1})  # a name without a shape
    assert not looks_like_manifest("Cargo.toml", {"anything": 1})

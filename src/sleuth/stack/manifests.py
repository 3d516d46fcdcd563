"""Which file names mark a folder as a project, and which only describe a piece of one.

A folder holding any of these names is a candidate. The deterministic detectors understand
``KNOWN``; ``PROJECT_LIKE`` names mark projects of ecosystems only the LLM fallback can name.
``FRAGMENTS`` appear in every sub-folder of a native build (``add_subdirectory``, recursive
make, Bazel packages), so they start a project only where no enclosing project of the same
build tool exists; a ``setup.py`` inside a Python project is far more often a module of that
name than a build script.
"""

from __future__ import annotations

from collections.abc import Collection

KNOWN: frozenset[str] = frozenset(
    {
        "Cargo.toml",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "build.sbt",
        "package.json",
        "rush.json",
        "deno.json",
        "deno.jsonc",
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "requirements.txt",
        "Pipfile",
        "go.mod",
        "go.work",
        "Gemfile",
        "composer.json",
        "mix.exs",
        "Package.swift",
        "pubspec.yaml",
        "build.zig",
        "build.zig.zon",
        "CMakeLists.txt",
        "meson.build",
        "Makefile",
        "makefile",
        "GNUmakefile",
        "WORKSPACE",
        "WORKSPACE.bazel",
        "MODULE.bazel",
        "BUILD",
        "BUILD.bazel",
    }
)
KNOWN_SUFFIXES: tuple[str, ...] = (".csproj", ".fsproj", ".vbproj", ".sln", ".gemspec")

PROJECT_LIKE: frozenset[str] = frozenset(
    {
        "project.clj",
        "deps.edn",
        "build.boot",
        "stack.yaml",
        "cabal.project",
        "dune-project",
        "rebar.config",
        "gleam.toml",
        "shard.yml",
        "Project.toml",
        "cpanfile",
        "Makefile.PL",
        "dist.ini",
        "v.mod",
        "build.xml",
        "SConstruct",
        "premake5.lua",
        "xmake.lua",
        "BUCK",
        "pants.toml",
        "Earthfile",
        "flake.nix",
        "elm.json",
        "spago.yaml",
        "spago.dhall",
        "Podfile",
        "conanfile.txt",
        "conanfile.py",
        "vcpkg.json",
        "project.json",
    }
)
PROJECT_LIKE_SUFFIXES: tuple[str, ...] = (".cabal", ".opam", ".nimble", ".rockspec")

FRAGMENTS: frozenset[str] = frozenset(
    {
        "CMakeLists.txt",
        "meson.build",
        "Makefile",
        "makefile",
        "GNUmakefile",
        "BUILD",
        "BUILD.bazel",
        "setup.py",
    }
)

# Which manifests make a fragment part of the enclosing project: a Makefile or CMakeLists.txt
# inside a native build (CMake, Make, Meson, Bazel) is a piece of it, inside an npm package it
# is a C/C++ project of its own; a setup.py is a piece only of a Python project.
_NATIVE = frozenset(
    {
        "CMakeLists.txt",
        "meson.build",
        "Makefile",
        "makefile",
        "GNUmakefile",
        "BUILD",
        "BUILD.bazel",
        "WORKSPACE",
        "WORKSPACE.bazel",
        "MODULE.bazel",
    }
)
FRAGMENT_FAMILIES: dict[str, frozenset[str]] = {
    **dict.fromkeys(FRAGMENTS - {"setup.py"}, _NATIVE),
    "setup.py": frozenset({"setup.py", "setup.cfg", "pyproject.toml", "requirements.txt"}),
}

# JSON manifests share their names with plenty of other JSON (a registry's ``deno.json`` entry
# describing the deno binary, a fixture): such a file marks a project only when it holds at
# least one key its tool reads. An empty object is a valid, minimal configuration.
JSON_SHAPES: dict[str, frozenset[str]] = {
    "deno.json": frozenset(
        {
            "$schema",
            "compilerOptions",
            "imports",
            "importMap",
            "scopes",
            "tasks",
            "lint",
            "fmt",
            "workspace",
            "name",
            "version",
            "exports",
            "nodeModulesDir",
            "lock",
            "test",
            "bench",
            "publish",
            "unstable",
            "exclude",
            "include",
            "vendor",
            "license",
            "patch",
            "links",
            "deploy",
            "lib",
        }
    ),
    "rush.json": frozenset(
        {
            "$schema",
            "rushVersion",
            "projects",
            "pnpmVersion",
            "npmVersion",
            "yarnVersion",
            "nodeSupportedVersionRange",
            "projectFolderMinDepth",
            "projectFolderMaxDepth",
            "gitPolicy",
            "repository",
            "eventHooks",
            "variants",
            "telemetryEnabled",
        }
    ),
    "composer.json": frozenset(
        {
            "name",
            "require",
            "require-dev",
            "autoload",
            "autoload-dev",
            "type",
            "config",
            "scripts",
            "repositories",
            "minimum-stability",
            "prefer-stable",
            "extra",
            "bin",
        }
    ),
    "package.json": frozenset(
        {
            "name",
            "version",
            "dependencies",
            "devDependencies",
            "peerDependencies",
            "optionalDependencies",
            "scripts",
            "main",
            "module",
            "exports",
            "bin",
            "private",
            "workspaces",
            "type",
            "engines",
            "packageManager",
            "browser",
            "types",
            "files",
        }
    ),
}
JSON_SHAPES["deno.jsonc"] = JSON_SHAPES["deno.json"]


def looks_like_manifest(name: str, data: object) -> bool:
    """Whether parsed JSON named ``name`` is plausibly that tool's manifest.

    Text that is not JSON stays a (broken) manifest: the detector reports it as a problem.
    """
    keys = JSON_SHAPES.get(name)
    if keys is None or not isinstance(data, dict) or not data:
        return True
    return not keys.isdisjoint(data)


_ALL = KNOWN | PROJECT_LIKE
_ALL_SUFFIXES = KNOWN_SUFFIXES + PROJECT_LIKE_SUFFIXES
SUFFIX_EXTENSIONS = frozenset(_ALL_SUFFIXES)  # every suffix is a whole extension


def manifests_in(
    names: Collection[str], extensions: Collection[str] = SUFFIX_EXTENSIONS
) -> list[str]:
    """The manifest names among ``names``, sorted.

    ``extensions`` (lower-cased, with the dot) lets a caller that has already counted them
    skip the per-name suffix test in folders that cannot hold a suffix-named manifest.
    """
    found = set(_ALL.intersection(names))
    if not SUFFIX_EXTENSIONS.isdisjoint(extensions):
        found.update(n for n in names if n.endswith(_ALL_SUFFIXES))
    return sorted(found)


def is_known(name: str) -> bool:
    """Whether a deterministic detector reads this manifest."""
    return name in KNOWN or name.endswith(KNOWN_SUFFIXES)

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
        "mkdocs.yml",
        "mkdocs.yaml",
        "hugo.toml",
        "hugo.yaml",
        "hugo.json",
        "book.toml",
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

# Manifests in JSON, TOML or YAML share their names with plenty of other data (a registry's
# ``deno.json`` record describing the deno binary, a fixture): such a file counts as a manifest
# only when it holds at least one key its tool reads. An empty document is a valid, minimal
# configuration. Every such name that detect knows has a shape here.
SHAPES: dict[str, frozenset[str]] = {
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
    "elm.json": frozenset(
        {
            "type",
            "source-directories",
            "elm-version",
            "dependencies",
            "test-dependencies",
            "exposed-modules",
            "name",
            "summary",
            "license",
            "version",
        }
    ),
    "vcpkg.json": frozenset(
        {
            "$schema",
            "name",
            "version",
            "version-string",
            "version-semver",
            "version-date",
            "port-version",
            "dependencies",
            "default-features",
            "features",
            "builtin-baseline",
            "overrides",
            "supports",
            "vcpkg-configuration",
        }
    ),
    "project.json": frozenset(  # Nx
        {
            "$schema",
            "name",
            "root",
            "sourceRoot",
            "projectType",
            "targets",
            "architect",
            "tags",
            "implicitDependencies",
            "namedInputs",
        }
    ),
    "Cargo.toml": frozenset(
        {
            "package",
            "workspace",
            "dependencies",
            "dev-dependencies",
            "build-dependencies",
            "target",
            "lib",
            "bin",
            "features",
            "patch",
            "replace",
            "profile",
            "lints",
        }
    ),
    "pyproject.toml": frozenset({"project", "build-system", "tool", "dependency-groups"}),
    "gleam.toml": frozenset(
        {"name", "version", "target", "dependencies", "dev-dependencies", "gleam"}
    ),
    "Project.toml": frozenset(  # Julia
        {"name", "uuid", "version", "deps", "compat", "extras", "targets", "weakdeps"}
    ),
    "pants.toml": frozenset({"GLOBAL", "source", "python", "anonymous-telemetry"}),
    "book.toml": frozenset({"book", "build", "output", "preprocessor", "rust"}),  # mdBook
    "hugo.toml": frozenset(
        {"baseURL", "title", "theme", "languageCode", "params", "menu", "module", "markup"}
    ),
    "pubspec.yaml": frozenset(
        {
            "name",
            "version",
            "environment",
            "dependencies",
            "dev_dependencies",
            "dependency_overrides",
            "flutter",
            "publish_to",
            "executables",
            "workspace",
        }
    ),
    "stack.yaml": frozenset(  # Haskell Stack
        {"resolver", "snapshot", "packages", "extra-deps", "flags", "ghc-options", "compiler"}
    ),
    "spago.yaml": frozenset({"package", "workspace"}),
    "shard.yml": frozenset(  # Crystal
        {"name", "version", "dependencies", "development_dependencies", "targets", "crystal"}
    ),
    "mkdocs.yml": frozenset(
        {"site_name", "nav", "theme", "docs_dir", "plugins", "markdown_extensions"}
    ),
}
SHAPES["deno.jsonc"] = SHAPES["deno.json"]
SHAPES["hugo.yaml"] = SHAPES["hugo.json"] = SHAPES["hugo.toml"]
SHAPES["mkdocs.yaml"] = SHAPES["mkdocs.yml"]


def shape_format(name: str) -> str | None:
    """How a shaped manifest is parsed: ``json``, ``toml`` or ``yaml``; None if it has no shape."""
    if name not in SHAPES:
        return None
    return name.rpartition(".")[2].replace("jsonc", "json").replace("yml", "yaml")


def looks_like_manifest(name: str, data: object) -> bool:
    """Whether parsed data named ``name`` is plausibly that tool's manifest.

    Text that does not parse stays a (broken) manifest: the detector reports it as a problem.
    """
    keys = SHAPES.get(name)
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

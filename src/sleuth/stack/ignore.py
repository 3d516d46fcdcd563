"""Which paths a repository keeps out of version control, and so out of detection.

Folders that are build output or dependency caches in some ecosystem are skipped by name
before any ``.gitignore`` is consulted. Each ``.gitignore`` is compiled once, for the folder
it sits in; a deeper file overrides a shallower one, as in git. ``pathspec`` gives git's exact
semantics but costs a regex per pattern per path, so every file's patterns are also joined into
one regex that answers the common case ("no pattern matches") in a single call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pathspec

# Dependency caches and tool state, by folder name: never a project of their own. Hidden
# folders (".git", ".venv", ".next", ...) are skipped wholesale by the scanner.
SKIP_DIRS: frozenset[str] = frozenset(
    {
        "node_modules",
        "bower_components",
        "jspm_packages",
        "vendor",
        "__pycache__",
        "site-packages",
        "htmlcov",
        "zig-cache",
        "zig-out",
        "cmake-build-debug",
        "cmake-build-release",
        "bazel-bin",
        "bazel-out",
        "bazel-testlogs",
        "Pods",
        "DerivedData",
        "elm-stuff",
    }
)

# Names that are build output in some ecosystem but also fine names for a workspace member
# ("packages/build", "tools/env"): skipped unless the folder holds a manifest of its own.
OUTPUT_DIRS: frozenset[str] = frozenset(
    {
        "target",
        "build",
        "dist",
        "out",
        "obj",
        "venv",
        "env",
        "coverage",
        "_build",
        "builddir",
        "tmp",
    }
)

# Folders that are build output only next to a given manifest: .NET's bin/ (elsewhere bin/
# holds sources, as in Dart, or scripts), Mix's deps/.
CONTEXT_SKIPS: dict[str, tuple[str, ...]] = {
    "bin": (".csproj", ".fsproj", ".vbproj"),
    "obj": (".csproj", ".fsproj", ".vbproj"),
    "deps": ("mix.exs",),
    # Output folders that sit right beside the manifest producing them, whatever they hold.
    "target": ("Cargo.toml", "pom.xml", "build.sbt"),
    "build": ("build.gradle", "build.gradle.kts", "CMakeLists.txt", "pyproject.toml", "setup.py"),
    "dist": ("package.json", "pyproject.toml", "setup.py"),
}

_NAMED_GROUP = re.compile(r"\(\?P<[^>]+>")


class IgnoreFile:
    """The patterns of one ``.gitignore``, matched against paths relative to its folder.

    Paths of folders end with ``/`` so that ``build/`` matches the folder and not a file.
    """

    __slots__ = ("_any", "_spec", "folders_only")

    def __init__(self, lines: Iterable[str]) -> None:
        self._spec = pathspec.GitIgnoreSpec.from_lines(_valid(lines))
        active = [
            p
            for p in self._spec.patterns
            if p.include is not None and p.regex is not None and isinstance(p.regex.pattern, str)
        ]
        parts = [f"(?:{_NAMED_GROUP.sub('(?:', p.regex.pattern)})" for p in active]  # type: ignore[union-attr]
        self._any: re.Pattern[str] | None = None
        if parts:
            try:
                self._any = re.compile("|".join(parts))
            except re.error:  # an unusual pattern: let pathspec judge every path
                self._any = re.compile("")
        # Patterns ending in "/" match folders only; files need no check against such a file.
        self.folders_only = all(str(p.pattern).rstrip().endswith("/") for p in active)

    def __bool__(self) -> bool:
        return self._any is not None

    def suspects(self, prefix: str, names: list[str], tail: str) -> list[str]:
        """Names that some pattern may match (``prefix + name + tail``); a cheap superset."""
        if self._any is None or (self.folders_only and not tail):
            return []
        match = self._any.match
        return [n for n in names if match(f"{prefix}{n}{tail}")]

    def verdict(self, path: str) -> bool | None:
        """True when ignored, False when re-included by ``!``, None when no pattern matches."""
        if self._any is None or self._any.match(path) is None:
            return None
        include = self._spec.check_file(path).include
        return None if include is None else bool(include)


# A run of stars matches what one star matches unless it is a whole path segment, where it
# is "**" (git's wildmatch); collapsing runs keeps "*****...*.log" from backtracking for ever.
_STAR_RUN = re.compile(r"(?<!\\)\*{2,}")


def _collapse_stars(line: str) -> str:
    def one(match: re.Match[str]) -> str:
        start, end = match.span()
        whole = (start == 0 or line[start - 1] == "/") and (end == len(line) or line[end] == "/")
        return "**" if whole else "*"

    return _STAR_RUN.sub(one, line)


# Separate stars in one path segment ("*a*b*c*d*e.log") cost a backtracking regex matcher
# about len(name) ** stars steps on a miss: a hostile repository could stall detection with
# one line. No real .gitignore needs more than a few, so such a line is set aside.
MAX_STARS_PER_SEGMENT = 4


def _too_many_stars(line: str) -> bool:
    return any(segment.count("*") > MAX_STARS_PER_SEGMENT for segment in line.split("/"))


def _valid(lines: Iterable[str]) -> list[str]:
    """The lines git would use: an invalid pattern (``!`` alone, ``[z-a]``) is skipped, as git
    skips it, instead of spoiling the whole file; so is a line of too many stars to match in
    bounded time."""
    kept = []
    for line in map(_collapse_stars, lines):
        if _too_many_stars(line):
            continue
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except (ValueError, re.error):  # pathspec's pattern errors are ValueErrors
            continue
        kept.append(line)
    return kept


def parse_ignore(text: str) -> IgnoreFile | None:
    """Compile a ``.gitignore``; None when it holds no patterns."""
    rules = IgnoreFile(text.splitlines())
    return rules if rules else None

"""Member patterns and gitignore matching, each against the rules their tools document."""

from __future__ import annotations

import pytest

from sleuth.stack.globs import MemberGlobs, glob_regex
from sleuth.stack.ignore import parse_ignore


@pytest.mark.parametrize(
    ("base", "patterns", "path", "member"),
    [
        (".", ["packages/*"], "packages/a", True),
        (".", ["packages/*"], "packages/a/b", False),
        (".", ["packages/**"], "packages/a/b", True),
        (".", ["./apps/web/"], "apps/web", True),
        (".", ["apps/*", "!apps/legacy"], "apps/legacy", False),
        (".", ["**", "!**/test/**"], "x/test/y", False),
        ("sub", ["crates/*"], "sub/crates/a", True),
        ("sub", ["crates/*"], "crates/a", False),
        ("parent", ["../shared"], "shared", True),
        (".", ["{a,b}/*"], "b/x", True),
        (".", ["svc-[0-9]"], "svc-7", True),
        (".", ["svc-[!0-9]"], "svc-7", False),
        (".", [], "anything", False),
    ],
)
def test_member_globs(base: str, patterns: list[str], path: str, member: bool) -> None:
    assert MemberGlobs(base, patterns).matches(path) is member


def test_glob_regex_keeps_literals_literal() -> None:
    assert glob_regex("a.b+c") == r"a\.b\+c"


@pytest.mark.parametrize(
    ("lines", "path", "verdict"),
    [
        ("build/\n", "build/", True),
        ("build/\n", "build", None),  # a file named build is not the folder
        ("/build\n", "src/build/", None),
        ("build\n", "src/build/", True),
        ("*.log\n!keep.log\n", "keep.log", False),
        ("*.log\n!keep.log\n", "x/a.log", True),
        ("docs/**/*.md\n", "docs/a/b.md", True),
        ("# just a comment\n\n", "x", None),
    ],
)
def test_gitignore_verdicts(lines: str, path: str, verdict: bool | None) -> None:
    rules = parse_ignore(lines)
    if rules is None:
        assert verdict is None
    else:
        assert rules.verdict(path) is verdict

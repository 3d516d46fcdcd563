"""Workspace member patterns (``crates/*``, ``packages/**``, ``!**/test/**``) as one matcher.

Package managers agree on the essentials: ``*`` stays inside one folder, ``**`` crosses any
number of them, a leading ``!`` excludes. Patterns are rebased on the scanned root so that
members outside the declaring folder (Maven's ``../shared``) still match.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable


def _segment(part: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(part):
        ch = part[i]
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[" and "]" in part[i + 1 :]:
            end = part.index("]", i + 1)
            body = part[i + 1 : end].replace("\\", "\\\\")
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end
        elif ch == "{" and "}" in part[i + 1 :]:
            end = part.index("}", i + 1)
            choices = part[i + 1 : end].split(",")
            out.append("(?:" + "|".join(_segment(c) for c in choices) + ")")
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def glob_regex(pattern: str) -> str:
    """A regex (for ``fullmatch``) equivalent to one ``/``-separated glob."""
    parts = pattern.split("/")
    out: list[str] = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
        else:
            out.append(_segment(part) + ("" if last else "/"))
    return "".join(out)


def clean(pattern: str) -> str:
    """Strip the spellings that mean nothing: ``./``, trailing ``/``, surrounding blanks."""
    p = pattern.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p.rstrip("/") or "."


class MemberGlobs:
    """Whether a folder (relative to the scanned root) is one of a workspace's members."""

    __slots__ = ("_exclude", "_include")

    def __init__(self, base: str, patterns: Iterable[str]) -> None:
        include: list[str] = []
        exclude: list[str] = []
        for raw in patterns:
            negated = raw.strip().startswith("!")
            p = clean(raw.strip()[1:] if negated else raw)
            rebased = posixpath.normpath(p if base == "." else f"{base}/{p}")
            (exclude if negated else include).append(glob_regex(rebased))
        self._include = re.compile("|".join(f"(?:{r})" for r in include)) if include else None
        self._exclude = re.compile("|".join(f"(?:{r})" for r in exclude)) if exclude else None

    def matches(self, rel: str) -> bool:
        if self._include is None or self._include.fullmatch(rel) is None:
            return False
        return self._exclude is None or self._exclude.fullmatch(rel) is None

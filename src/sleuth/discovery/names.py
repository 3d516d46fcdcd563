"""A tool name as typed, made safe to look up: trimmed, NFKC, ASCII only, lower-case.

Look-alike letters from other scripts (Cyrillic ``р`` for Latin ``p``) are how a
typosquatter makes a name read as a famous one, so any non-ASCII character that
survives NFKC is refused, never silently mapped. Near misses of registry names
(``ripgerp``) are allowed but warned about.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from sleuth.discovery.sources import FROM
from sleuth.errors import Ref, SuspiciousName, UsageError

MAX_LENGTH = 214  # npm's limit, the longest of the ecosystems
_ALLOWED = re.compile(r"^[a-z0-9@][a-z0-9._+@/-]*$")


def _script(char: str) -> str:
    """The script a character's Unicode name starts with (``CYRILLIC``, ``GREEK`` ...)."""
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else f"U+{ord(char):04X}"


def normalize_name(raw: str) -> str:
    name = raw.strip()
    if not name:
        raise UsageError(
            "the tool name is empty",
            hint="name a tool, e.g. {jq}",
            refs={"jq": Ref("example_tool", words='name: "jq"')},
        )
    name = unicodedata.normalize("NFKC", name)
    foreign = [char for char in name if ord(char) > 127]
    if foreign:
        scripts = sorted({_script(char) for char in foreign})
        has_ascii_letters = any(char.isascii() and char.isalpha() for char in name)
        kind = "mixes scripts" if has_ascii_letters else "is not ASCII"
        shown = ", ".join(
            f"{char!r} (U+{ord(char):04X} {unicodedata.name(char, '?')})" for char in foreign[:3]
        )
        raise SuspiciousName(
            f"refusing {raw.strip()!r}: the name {kind} ({', '.join(scripts)}: {shown}); "
            "look-alike letters are how typosquatted tools pass for real ones",
            hint="type the name in plain ASCII letters, or name the source with {from}",
            refs={"from": FROM},
        )
    name = name.lower()
    if len(name) > MAX_LENGTH:
        raise UsageError(f"the tool name is {len(name)} characters long; at most {MAX_LENGTH}")
    if not _ALLOWED.match(name) or ".." in name or "//" in name:
        raise UsageError(
            f"{raw.strip()!r} is not a tool name",
            hint="use letters, digits and . _ + @ - (and / for Go modules)",
        )
    return name


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, or ``limit + 1`` as soon as it must exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def _limit(name: str) -> int:
    """Short names sit one or two edits from many others; only longer ones are compared
    at distance two."""
    if len(name) <= 3:
        return 0
    return 1 if len(name) <= 5 else 2


def near_misses(name: str, known: Iterable[str]) -> list[str]:
    """Registry names 1-2 edits away from ``name`` (a name never near-misses itself)."""
    limit = _limit(name)
    if limit == 0:
        return []
    found = [
        (edit_distance(name, other, limit), other)
        for other in known
        if other != name and abs(len(other) - len(name)) <= limit and _limit(other) > 0
    ]
    return [other for distance, other in sorted(found) if 1 <= distance <= limit][:3]


def read_names(lines: Iterable[str]) -> list[str]:
    """Names for batch mode: one a line; blank lines and ``#`` comments skipped."""
    names = []
    for line in lines:
        text = line.split("#", 1)[0].strip()
        if text:
            names.append(text)
    return names

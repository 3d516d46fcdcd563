"""Custom properties (``--x: none``) and the ``var()`` that reads them.

``.note{--h:none} .note{display:var(--h)}`` hides the note in a browser: a value with
``var()`` is valid until the element's custom properties are known, then it is the
value with each reference replaced (the custom property's value, else the fallback
after the first comma); with neither, the declaration is invalid at computed-value
time and the property acts as ``unset``. A custom property inherits, and its name is
case-sensitive.

The cascade asks two things of this module: whether a value could hide with any value
the page gives its references (so only those rules are matched and resolved), and the
value an element computes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

# Past this many combinations of the page's values a value is taken to possibly hide.
_COMBINATIONS = 64
# Past this depth of var() inside values a value is invalid (a browser gives up on
# cycles; it does not end them at a depth).
_DEPTH = 16
# Keywords that make a custom property take its parent's value, or none at all.
INHERITING = frozenset(("inherit", "unset", "revert", "revert-layer"))
INITIAL = "initial"


def uses_variables(value: str) -> bool:
    return "var(" in value.lower()


def _reference(value: str) -> tuple[int, int, str, str | None] | None:
    """The first ``var()`` of a value: where it starts and ends, the name it reads, and
    its fallback (None: none given; an empty one is valid)."""
    lower = value.lower()
    start = lower.find("var(")
    while start > 0 and (value[start - 1].isalnum() or value[start - 1] in "-_"):
        start = lower.find("var(", start + 4)  # "somevar(" is another function
    if start < 0:
        return None
    depth, end = 1, start + 4
    while end < len(value) and depth:
        depth += (value[end] == "(") - (value[end] == ")")
        end += 1
    inner = value[start + 4 : end - 1] if depth == 0 else value[start + 4 :]
    name, comma, fallback = inner.partition(",")
    return start, end, name.strip(), fallback.strip() if comma else None


def substitute(value: str, lookup: Callable[[str], str | None], depth: int = 0) -> str | None:
    """``value`` with every ``var()`` replaced (``lookup(name)``: the custom property's
    computed value, None when it has none); None when the value is invalid at
    computed-value time."""
    parts: list[str] = []
    while True:
        found = _reference(value)
        if found is None:
            parts.append(value)
            return "".join(parts)
        start, end, name, fallback = found
        if depth >= _DEPTH or not name.startswith("--"):
            return None
        replacement = lookup(name)
        if replacement is None:
            if fallback is None:
                return None
            replacement = substitute(fallback, lookup, depth + 1)
            if replacement is None:
                return None
        parts.append(value[:start])
        parts.append(replacement)
        value = value[end:]


def could_be(value: str, values: Mapping[str, Collection[str]]) -> list[str] | None:
    """Every value ``value`` can compute to on this page (``values``: what the page
    declares for each custom property), None when there are too many to tell."""
    pending, done = [value], []
    for _ in range(_DEPTH):
        following: list[str] = []
        for text in pending:
            found = _reference(text)
            if found is None:
                done.append(text)
                continue
            start, end, name, fallback = found
            options = list(values.get(name, ()))
            if fallback is not None:
                options.append(fallback)
            following += [text[:start] + option + text[end:] for option in options]
        if len(following) + len(done) > _COMBINATIONS:
            return None
        if not following:
            return done
        pending = following
    return None

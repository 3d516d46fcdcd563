"""Hypothesis strategies that mutate realistic inputs rather than invent random noise.

A parser rejects pure noise at its first byte; the bugs live one step away from valid
input. So each strategy starts from a seed (a real page, a provider's documented reply,
a manifest as people write them) and applies a few edits: bytes spliced, tokens the
format cares about inserted, JSON nodes replaced by values of another type.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from hypothesis import strategies as st

# Values that break code which trusts a JSON field's type or size.
_ODD_SCALARS: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    1.5,
    -1e308,
    2**63,
    -(2**70),
    "",
    " ",
    "\x00",
    "\ud800",
    "null",
    "0",
    "-1",
    "1e999",
    "NaN",
    "http://",
    "https://[::1",
    "javascript:alert(1)",
    "//evil.example/x",
    "a" * 300,
    "\u202e\u200b",
    "<b>x</b>&amp;",
)


@cache
def json_values(max_leaves: int = 6) -> st.SearchStrategy[Any]:
    """Small arbitrary JSON values, biased towards the awkward ones."""
    scalars = st.one_of(
        st.sampled_from(_ODD_SCALARS),
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=20),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=max_leaves,
    )


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value, the value itself included."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _nodes(item, (*path, index))
    return found


def _apply(root: Any, path: tuple[Any, ...], op: str, new: Any) -> Any:
    if not path:
        return new if op != "delete" else {}
    parent = root
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    current = parent[last]
    if op == "delete":
        del parent[last]
    elif op == "replace":
        parent[last] = new
    elif op == "wrap":
        parent[last] = [current]
    elif op == "unwrap" and isinstance(current, list | dict) and current:
        parent[last] = next(iter(current.values() if isinstance(current, dict) else current))
    elif op == "duplicate" and isinstance(parent, list):
        parent.insert(last, copy.deepcopy(current))
    elif op == "stringify":
        parent[last] = json.dumps(current)
    elif op == "empty":
        parent[last] = type(current)() if isinstance(current, list | dict | str) else None
    return root


@st.composite
def mutated_json(draw: st.DrawFn, seeds: Sequence[Any], max_edits: int = 4) -> Any:
    """A seed JSON document with a few nodes deleted, replaced, wrapped or retyped."""
    value = copy.deepcopy(draw(st.sampled_from(list(seeds))))
    for _ in range(draw(st.integers(0, max_edits))):
        paths = _nodes(value)
        path = draw(st.sampled_from(paths))
        op = draw(
            st.sampled_from(
                [
                    "replace",
                    "replace",
                    "delete",
                    "wrap",
                    "unwrap",
                    "duplicate",
                    "stringify",
                    "empty",
                ]
            )
        )
        new = draw(json_values()) if op == "replace" else None
        value = _apply(value, path, op, new)
    return value


@st.composite
def mutated_text(
    draw: st.DrawFn,
    seeds: Sequence[str],
    tokens: Sequence[str] = (),
    max_edits: int = 6,
) -> str:
    """A seed text with a few slices deleted, duplicated or moved and tokens inserted."""
    text = draw(st.sampled_from(list(seeds)))
    pool = [*list(tokens), "\x00", "\n", "\r\n", "\t", " ", "\\", '"', "'", "\ufeff", "é"]
    for _ in range(draw(st.integers(0, max_edits))):
        size = len(text)
        at = draw(st.integers(0, size))
        length = draw(st.integers(0, min(64, size - at)))
        op = draw(st.sampled_from(["insert", "insert", "delete", "duplicate", "truncate", "noise"]))
        if op == "insert":
            text = text[:at] + draw(st.sampled_from(pool)) + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + length :]
        elif op == "duplicate":
            text = (
                text[: at + length] + text[at : at + length] * draw(st.integers(1, 50)) + text[at:]
            )
        elif op == "truncate":
            text = text[:at]
        else:
            text = text[:at] + draw(st.text(max_size=8)) + text[at + length :]
    return text


def window(text: str, start: float, size: int) -> str:
    """A slice of a big document: mutations near its middle reach code a prefix never does."""
    if len(text) <= size:
        return text
    begin = int((len(text) - size) * start)
    return text[begin : begin + size]

"""The part of YAML that manifests use: nested mappings, lists and plain scalars.

``pnpm-workspace.yaml``, ``pubspec.yaml`` and Spring's ``application.yml`` need nothing
more, and sleuth does not depend on a YAML library. Only the first document is read (later
ones are profile overrides in Spring). Anchors, tags and block scalars come back as strings
or are skipped; nothing here ever raises on odd input. The parser recurses once per level of
nesting, so nodes nested deeper than :data:`MAX_DEPTH` come back as None (a flow collection as
its text) instead of exhausting the stack.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 100  # manifests nest a handful of levels; this only stops hostile input

_KEY = re.compile(r"""^(?P<key>"[^"]*"|'[^']*'|[^\s#:'"\[\]{}][^:#]*?)\s*:(?:\s+|$)(?P<rest>.*)$""")


def _strip_comment(value: str) -> str:
    quote = ""
    for i, ch in enumerate(value):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or value[i - 1] in " \t"):
            return value[:i].rstrip()
    return value.strip()


def scalar(value: str, depth: int = 0) -> Any:
    """A plain, quoted or flow (``[a, b]``, ``{a: b}``) value."""
    value = _strip_comment(value)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    if depth >= MAX_DEPTH:
        return value or None
    if value.startswith("[") and value.endswith("]"):
        inner = value[1:-1].strip()
        parts = inner.split(",") if inner else []
        return [scalar(part, depth + 1) for part in parts if part.strip()]
    if value.startswith("{") and value.endswith("}"):
        out: dict[str, Any] = {}
        for part in value[1:-1].split(","):
            key, sep, rest = part.partition(":")
            if sep and key.strip():
                out[str(scalar(key, depth + 1))] = scalar(rest, depth + 1)
        return out
    if value in ("", "~", "null"):
        return None
    return value


class _Lines:
    def __init__(self, text: str) -> None:
        self.items: list[tuple[int, str]] = []
        seen_content = False
        for raw in text.splitlines():
            if raw.startswith("---"):
                if seen_content:
                    break
                continue
            if raw.startswith("..."):
                break
            stripped = raw.strip()
            if not stripped or stripped.startswith("#"):
                continue
            indent = len(raw) - len(raw.lstrip(" "))
            self.items.append((indent, stripped))
            seen_content = True


def _block(lines: _Lines, i: int, indent: int, depth: int) -> tuple[Any, int]:
    """The node whose lines start at ``i`` with exactly ``indent`` spaces."""
    if i >= len(lines.items):
        return None, i
    text = lines.items[i][1]
    if depth >= MAX_DEPTH:  # too deep to be a manifest: drop the node and what it holds
        return None, _skip_node(lines, i, indent)
    if text == "-" or text.startswith("- "):
        return _sequence(lines, i, indent, depth)
    if _KEY.match(text):
        return _mapping(lines, i, indent, depth)
    return scalar(text), i + 1


def _child(lines: _Lines, i: int, parent: int, allow_same: bool, depth: int) -> tuple[Any, int]:
    if i < len(lines.items):
        indent, text = lines.items[i]
        if indent > parent or (allow_same and indent == parent and text.startswith("-")):
            return _block(lines, i, indent, depth + 1)
    return None, i


def _skip_deeper(lines: _Lines, i: int, indent: int) -> int:
    while i < len(lines.items) and lines.items[i][0] > indent:
        i += 1
    return i


def _skip_node(lines: _Lines, i: int, indent: int) -> int:
    """Past the node starting at ``i``: its entries at ``indent`` and everything deeper."""
    sequence = lines.items[i][1].startswith("-")
    i += 1
    while i < len(lines.items):
        at, text = lines.items[i]
        same = text.startswith("-") if sequence else _KEY.match(text) is not None
        if at < indent or (at == indent and not same):
            break
        i += 1
    return i


def _mapping(lines: _Lines, i: int, indent: int, depth: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    while i < len(lines.items) and lines.items[i][0] == indent:
        match = _KEY.match(lines.items[i][1])
        if match is None:
            break
        key = str(scalar(match.group("key")))
        rest = match.group("rest")
        i += 1
        if _strip_comment(rest) in ("", "|", ">", "|-", ">-", "|+", ">+"):
            if _strip_comment(rest):  # a block scalar: keep its lines as text
                start = i
                i = _skip_deeper(lines, i, indent)
                out[key] = "\n".join(t for _, t in lines.items[start:i])
            else:
                out[key], i = _child(lines, i, indent, True, depth)
        elif rest.startswith(("&", "!")):  # anchors and tags: not needed, skip their bodies
            out[key] = None
            i = _skip_deeper(lines, i, indent)
        else:
            out[key] = scalar(rest)
    return out, i


def _sequence(lines: _Lines, i: int, indent: int, depth: int) -> tuple[list[Any], int]:
    out: list[Any] = []
    while i < len(lines.items) and lines.items[i][0] == indent:
        text = lines.items[i][1]
        if not (text == "-" or text.startswith("- ")):
            break
        body = text[1:].strip()
        if not body:
            value, i = _child(lines, i + 1, indent, False, depth)
            out.append(value)
        elif _KEY.match(body):
            inner = indent + (len(text) - len(body))
            lines.items[i] = (inner, body)
            value, i = _mapping(lines, i, inner, depth + 1)
            out.append(value)
        else:
            out.append(scalar(body))
            i += 1
    return out, i


def load(text: str) -> Any:
    """The first document of ``text`` as dicts, lists and strings (None if empty)."""
    lines = _Lines(text)
    if not lines.items:
        return None
    value, _ = _block(lines, 0, lines.items[0][0], 0)
    return value


def lookup(data: Any, dotted: str) -> Any:
    """``a.b.c`` down nested mappings; also accepts a literal ``a.b`` key (Spring allows both)."""
    if not isinstance(data, dict):
        return None
    if dotted in data:
        return data[dotted]
    head, sep, tail = dotted.partition(".")
    while sep:
        if head in data:
            found = lookup(data[head], tail)
            if found is not None:
                return found
        more, sep, tail = tail.partition(".")
        head = f"{head}.{more}"
    return None

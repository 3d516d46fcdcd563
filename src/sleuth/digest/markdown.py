"""Markdown for people: bullets citing ``[n]`` inline, the sources listed at the end.

Page text is data, so it is rendered inert: whitespace is collapsed to one
line, markdown punctuation that could open links, emphasis, code, tables or
raw HTML is backslash-escaped, and text that begins a list item cannot open
a heading, a nested list or a rule. URLs are percent-encoded where markdown would end them.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from sleuth.digest.models import Digest, DigestError

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")
_ENTITY = re.compile(r"&(?=#?\w+;)")
_BLOCK_MARKER = re.compile(r"^(?:(\d{1,9})([.)])(?=\s|$)|(#{1,6})(?=\s|$)|([-+])(?=[\s-]|$))")
_URL_SAFE = ":/?#@!$&'*+,;=%~-._[]"


def inline(text: str) -> str:
    """One line of literal text, safe inside a line of markdown."""
    flat = " ".join(text.split())
    return _ENTITY.sub(r"\\&", _SPECIAL.sub(r"\\\1", flat))


def _unmark(match: re.Match[str]) -> str:
    number, delimiter, hashes, dash = match.groups()
    return f"{number}\\{delimiter}" if number else "\\" + (hashes or dash)


def line_start(text: str) -> str:
    """:func:`inline`, and unable to open a heading, list or rule where a line begins."""
    return _BLOCK_MARKER.sub(_unmark, inline(text))


def link(title: str, url: str) -> str:
    """``[title](url)`` for http(s) URLs; anything else is shown as inert text."""
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        return inline(f"{title} ({url})")
    return f"[{inline(title)}]({quote(url, safe=_URL_SAFE)})"


def render_markdown(digest: Digest) -> str:
    lines = [f"## {inline(digest.query)}", ""]
    if digest.bullets:
        for bullet in digest.bullets:
            marks = "".join(f"[{n}]" for n in bullet.citations)
            lines.append(f"- {line_start(bullet.text)} {marks}")
    else:
        lines.append("_No findings._")
    if digest.citations:
        lines += ["", "**Sources**", ""]
        for citation in digest.citations:
            details = ", ".join(inline(d) for d in (citation.domain, citation.published) if d)
            lines.append(f"{citation.id}. {link(citation.title, citation.url)} ({details})")
    for heading, errors in _error_groups(digest):
        lines += ["", f"**{heading}**", ""]
        for error in errors:
            where = f"{error.url}: " if error.url else ""
            lines.append(f"- {line_start(where + error.code)}: {inline(error.message)}")
    return "\n".join(lines) + "\n"


def _error_groups(digest: Digest) -> list[tuple[str, list[DigestError]]]:
    """The digest's errors under headings that say what failed."""
    searched = [e for e in digest.errors if not e.url and e.code.startswith(_SEARCH_CODES)]
    pages = [e for e in digest.errors if e.url]
    other = [e for e in digest.errors if e not in searched and e not in pages]
    groups = [
        ("Search failed", searched),
        ("Pages that could not be read", pages),
        ("Why there are no findings" if not digest.bullets else "Notes", other),
    ]
    return [(heading, errors) for heading, errors in groups if errors]


_SEARCH_CODES = ("search_", "provider_")

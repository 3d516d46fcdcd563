"""Where a page's style sheets come from, for the visibility engine.

Extraction is synchronous and never touches the network: whoever hands it a page (the
fetcher, or ``extract`` of a local file) first reads the sheets the page links, through
its own guarded path, and hands them over here by absolute URL. This module finds them:
``<link rel="stylesheet">`` (not ``alternate``, not ``preload``) in the page, and the
``@import`` rules at the top of a ``<style>`` block or of a sheet.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

import tinycss2
from tinycss2 import ast as css_ast

# A browser follows at most this many levels of @import here; deeper ones are unread.
MAX_IMPORT_DEPTH = 4

# What may hold a brace that opens no block: a comment or a quoted string (an escape
# included); else the first brace, where the rules of a sheet begin.
_FIRST_BLOCK_RE = re.compile(
    r"""/\*.*?(?:\*/|\Z)|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\{""", re.DOTALL
)
_SHEET_HINT_RE = re.compile(r"stylesheet|@(?:import|[\w-]*\\)", re.IGNORECASE)
# Bounded, so a page of unclosed tags costs a window per tag, not the rest of the page.
_LINK_RE = re.compile(r"<link\b[^>]{0,4096}>", re.IGNORECASE)
_BASE_RE = re.compile(r"<base\b[^>]{0,4096}>", re.IGNORECASE)
_CHARSET_RE = re.compile(rb'^@charset "([A-Za-z0-9_.:-]{1,40})";')
_ATTRIBUTE_RE = re.compile(
    r"""([^\s=/>"']{1,256})(?:\s{0,8}=\s{0,8}(?:"([^"]{0,4096})"|'([^']{0,4096})'"""
    r"""|([^\s"'=<>`]{1,4096})))?""",
    re.DOTALL,
)


@dataclass
class Styles:
    """The page's base address and its linked sheets: ``load(url)`` is the text of a
    sheet the caller read, or None for one it could not (``unread`` says why)."""

    base: str | None
    load: Callable[[str], str | None]
    unread: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Import:
    """One ``@import``: the sheet's address as written, and the conditions it carries."""

    url: str
    media: str  # a media query list, "" for all
    supports: str | None  # a supports() condition
    layer: str | None  # "" for an anonymous layer


def _attributes(tag: str) -> dict[str, str]:
    found: dict[str, str] = {}
    body = tag[tag.find(" ") + 1 : -1] if " " in tag else ""
    for match in _ATTRIBUTE_RE.finditer(body):
        name = match.group(1).lower()
        value = next((v for v in match.groups()[1:] if v is not None), "")
        found.setdefault(name, value)
    return found


def is_stylesheet_link(rel: str | None) -> bool:
    """``rel="stylesheet"``, not an alternate sheet (applied only when a reader picks it)."""
    words = (rel or "").lower().split()
    return "stylesheet" in words and "alternate" not in words


def _top_imports(css: str) -> str:
    """The part of a sheet where ``@import`` may stand: before the first block (a brace
    in a comment or a string opens none)."""
    if "{" not in css:
        return css
    for found in _FIRST_BLOCK_RE.finditer(css):
        if found.group() == "{":
            return css[: found.start()]
    return css


def parse_imports(css: str) -> list[Import]:
    """The sheet's ``@import`` rules, in order (only those a browser honours: at the top;
    the at-keyword in any case, escapes included, as tinycss2 reads it)."""
    head = _top_imports(css)
    if "@" not in head:
        return []
    imports: list[Import] = []
    for rule in tinycss2.parse_stylesheet(head, skip_comments=True):
        if not isinstance(rule, css_ast.AtRule):
            if isinstance(rule, css_ast.QualifiedRule):
                break
            continue
        if rule.lower_at_keyword in ("charset", "layer"):
            continue
        if rule.lower_at_keyword != "import":
            break
        parsed = _import(rule.prelude)
        if parsed is not None:
            imports.append(parsed)
    return imports


def _import(prelude: list[css_ast.Node]) -> Import | None:
    tokens = [t for t in prelude if t.type not in ("whitespace", "comment")]
    if not tokens:
        return None
    first = tokens[0]
    if isinstance(first, css_ast.StringToken | css_ast.URLToken):
        url = first.value
    elif isinstance(first, css_ast.FunctionBlock) and first.lower_name == "url":
        strings = [t for t in first.arguments if isinstance(t, css_ast.StringToken)]
        if not strings:
            return None
        url = strings[0].value
    else:
        return None
    layer: str | None = None
    supports: str | None = None
    rest = tokens[1:]
    if rest and isinstance(rest[0], css_ast.IdentToken) and rest[0].lower_value == "layer":
        layer, rest = "", rest[1:]
    elif rest and isinstance(rest[0], css_ast.FunctionBlock) and rest[0].lower_name == "layer":
        layer, rest = tinycss2.serialize(rest[0].arguments).strip(), rest[1:]
    if rest and isinstance(rest[0], css_ast.FunctionBlock) and rest[0].lower_name == "supports":
        supports, rest = tinycss2.serialize(rest[0].arguments).strip(), rest[1:]
    media = " ".join(tinycss2.serialize([t]) for t in rest).strip()
    return Import(url.strip(), media, supports, layer)


def base_url(html: str, page_url: str | None) -> str | None:
    """The address the page's relative links resolve against (``<base href>`` first)."""
    for tag in _BASE_RE.findall(html):
        href = _attributes(tag).get("href", "").strip()
        if href:
            return urljoin(page_url or "", href) if page_url else href
    return page_url


def _style_blocks(html: str) -> list[str]:
    """The text of each ``<style>`` block that may hold an ``@import`` (any at-keyword:
    it may be spelled with an escape), found with ``find``: linear however the page
    leaves its tags open."""
    lower = html.lower()
    blocks: list[str] = []
    start = lower.find("<style")
    while start >= 0:
        opened = lower.find(">", start)
        end = lower.find("</style", opened) if opened >= 0 else -1
        if end < 0:
            break
        if "@" in lower[opened:end]:
            blocks.append(html[opened + 1 : end])
        start = lower.find("<style", end)
    return blocks


def may_use_sheets(text: str) -> bool:
    """Whether a page may link or import a sheet (``rel=stylesheet``, an ``@import`` in
    any case, or an at-keyword spelled with an escape): the cheap test that spares
    looking for sheets in a page that has none."""
    return _SHEET_HINT_RE.search(text) is not None


def linked_sheets(html: str, page_url: str | None) -> list[str]:
    """Absolute addresses of the sheets a page links, then of those its ``<style>``
    blocks import (a sheet's own imports are found by :func:`parse_imports`; the
    cascade orders them all as the document does)."""
    base = base_url(html, page_url)
    found: list[str] = []
    for tag in _LINK_RE.findall(html):
        attributes = _attributes(tag)
        href = attributes.get("href", "").strip()
        if href and is_stylesheet_link(attributes.get("rel")):
            found.append(urljoin(base or "", href))
    for block in _style_blocks(html):
        found += [urljoin(base or "", item.url) for item in parse_imports(block)]
    return list(dict.fromkeys(url for url in found if url))


def decode_sheet(body: bytes, declared: str | None) -> str:
    """A sheet's text: its BOM, then ``@charset``, then the declared charset, else UTF-8."""
    for bom, name in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le")):
        if body.startswith(bom):
            return body[len(bom) :].decode(name, errors="replace")
    if body.startswith(codecs.BOM_UTF16_BE):
        return body[2:].decode("utf-16-be", errors="replace")
    found = _CHARSET_RE.match(body)
    charset = found.group(1).decode() if found else None
    if charset is None and declared and "charset=" in declared.lower():
        charset = declared.lower().split("charset=")[-1].split(";")[0].strip(" \"'")
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")

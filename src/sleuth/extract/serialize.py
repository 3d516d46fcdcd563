"""Turn a main-content tree (plain HTML vocabulary) into text, Markdown or clean HTML.

One walk serves text and Markdown: block elements become paragraphs separated by a
blank line; list items and table rows stay one per line (a line break or a block
inside an item continues it on an indented line); one ``<br>`` is a line break and
two a paragraph break; a block inside inline content is on lines of its own, as a
browser shows it. Markdown adds heading marks, numbered lists, emphasis, quotes,
code fences, tables and ``^`` before a superscript; text keeps the words as a reader
sees them and the ``- `` bullets, which carry meaning. Link targets are left out of
both: the extractor's job is the prose, and URLs would double its size.
"""

from __future__ import annotations

import re
from html import escape
from typing import Literal

from lxml import etree

from sleuth.extract.dom import itertext
from sleuth.extract.text import strip_invisible

Format = Literal["text", "markdown", "html"]

HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
# Between the cells of a table row in plain text (a reader's own row is cells side by side).
CELL_SEPARATOR = " | "
_LISTS = frozenset(("ul", "ol", "dl", "menu"))
_BLOCKS = frozenset(
    (
        *HEADINGS,
        *_LISTS,
        "li",
        "dt",
        "dd",
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "footer",
        "aside",
        "nav",
        "figure",
        "figcaption",
        "address",
        "details",
        "summary",
        "center",
        "form",
        "fieldset",
        "legend",
        "hgroup",
        "body",
        "html",
        "caption",
        "hr",
        "table",
        "tr",
        "pre",
        "blockquote",
    )
)
_MARKS = {"strong": "**", "b": "**", "em": "*", "i": "*", "code": "`", "kbd": "`", "samp": "`"}
# Tags kept in HTML output; anything else is unwrapped to its content.
_HTML_TAGS = frozenset(
    (
        *(_BLOCKS - {"body", "html", "form", "fieldset", "legend", "nav", "center"}),
        *_MARKS,
        *("br", "u", "sub", "sup", "del", "s", "mark", "q", "cite", "abbr", "time"),
        *("thead", "tbody", "tfoot", "th", "td"),
    )
)
_SPACE_RE = re.compile(r"\s+")
# Where a block sits inside inline content: a line break, however many blocks meet
# there (innerText's rule); whitespace to ``_SPACE_RE``, so a one-line context (a
# heading, a table cell) reads it as a space.
_BLOCK_BREAK = "\x1e"
_BLOCK_BREAK_RE = re.compile(f"\\s*{_BLOCK_BREAK}[\\s{_BLOCK_BREAK}]*")
_BLANK_RUN_RE = re.compile(r"\n{2,}")


def _tag(element: etree._Element) -> str:
    return element.tag if isinstance(element.tag, str) else ""


def _flat(text: str | None) -> str:
    """Source whitespace (newlines included) is one space; only ``<br>`` breaks lines."""
    return _SPACE_RE.sub(" ", text) if text else ""


def _one_line(text: str) -> str:
    return _SPACE_RE.sub(" ", text).strip()


def _wrap(inner: str, mark: str) -> str:
    """Mark the words, keeping surrounding spaces outside the marks."""
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return f"{lead}{mark}{_one_line(inner)}{mark}{trail}"


def _block_break(match: re.Match[str]) -> str:
    return "\n\n" if match.group().count("\n") > 1 else "\n"


def _join_lines(text: str) -> str:
    """Collapse spaces; one line break stays, two or more make a paragraph break."""
    if "\n" not in text and _BLOCK_BREAK not in text:
        return _one_line(text)  # most blocks: one line
    text = _BLOCK_BREAK_RE.sub(_block_break, text)
    lines = "\n".join(_one_line(line) for line in text.split("\n"))
    return _BLANK_RUN_RE.sub("\n\n", lines).strip("\n")


class _Writer:
    """Collects blocks; a block marked tight follows the previous one on the next line."""

    def __init__(self, markdown: bool) -> None:
        self.markdown = markdown
        self.blocks: list[tuple[str, bool]] = []
        self.inline: list[str] = []

    # -- inline content -------------------------------------------------------------

    def inline_text(self, element: etree._Element, *, skip_lists: bool = False) -> str:
        """The inline rendering of an element's content (not its tail)."""
        parts = [_flat(element.text)]
        for child in element:
            if not (skip_lists and _tag(child) in _LISTS):
                parts.append(self._inline(child))
            parts.append(_flat(child.tail))
        return "".join(parts)

    def _inline(self, element: etree._Element) -> str:
        tag = _tag(element)
        if tag == "br":
            return "\n"
        inner = self.inline_text(element)
        if tag in _BLOCKS:  # a block inside inline content: on lines of its own
            return f"{_BLOCK_BREAK}{inner}{_BLOCK_BREAK}"
        if not inner.strip():
            return inner
        if tag == "sup" and self.markdown:
            return "^" + inner  # 2^n, not 2n (text shows what a reader sees: 2n)
        mark = _MARKS.get(tag)
        return _wrap(inner, mark) if mark and self.markdown else inner

    # -- blocks ---------------------------------------------------------------------

    def emit(self, text: str, *, tight: bool = False) -> None:
        if text:
            self.blocks.append((text, tight))

    def flush(self) -> None:
        self.emit(_join_lines("".join(self.inline)))
        self.inline.clear()

    def block(self, element: etree._Element) -> None:
        tag = _tag(element)
        if tag in HEADINGS:
            self.flush()
            text = _one_line(self.inline_text(element))
            self.emit(f"{'#' * int(tag[1])} {text}" if self.markdown and text else text)
        elif tag in _LISTS:
            self.flush()
            self.list(element, depth=0)
        elif tag == "pre":
            self.flush()
            self.pre(element)
        elif tag == "table":
            self.flush()
            self.table(element)
        elif tag == "blockquote" and self.markdown:
            self.flush()
            self.quote(element)
        else:
            self.container(element)

    def container(self, element: etree._Element) -> None:
        self.flush()
        self.inline.append(_flat(element.text))
        for child in element:
            if _tag(child) in _BLOCKS:
                self.block(child)
            else:
                self.inline.append(self._inline(child))
            self.inline.append(_flat(child.tail))
        self.flush()

    def list(self, element: etree._Element, depth: int) -> None:
        ordered = self.markdown and _tag(element) == "ol"  # plain text: bullets only
        start = element.get("start") or "1"
        number = int(start) if start.isdigit() else 1
        first = True
        for item in element:
            tag = _tag(item)
            if tag in _LISTS:
                self.list(item, depth + 1)
                continue
            text = _join_lines(self.inline_text(item, skip_lists=True))
            if text:
                if tag == "dd":
                    marker = "  "
                elif ordered:
                    marker = f"{number}. "
                    number += 1
                else:
                    marker = "- "
                indent = "  " * depth
                # a line break inside the item (a block or a <br>) continues it, indented
                text = "\n".join(line for line in text.split("\n") if line)
                text = text.replace("\n", "\n" + indent + " " * len(marker))
                self.emit(f"{indent}{marker}{text}", tight=depth > 0 or not first)
                first = False
            for child in item:
                if _tag(child) in _LISTS:
                    self.list(child, depth + 1)

    def pre(self, element: etree._Element) -> None:
        code = "".join(itertext(element)).strip("\n")
        if not code.strip():
            return
        if self.markdown:
            fence = "~~~~" if "```" in code else "```"
            self.emit(f"{fence}\n{code}\n{fence}")
        else:
            self.emit(code)

    def table(self, element: etree._Element) -> None:
        own = [row for row in element.iter("tr") if next(row.iterancestors("table")) is element]
        if element.find(".//table") is not None:
            # a layout table (tables in its cells): each cell is a block, read once, and
            # the tables inside it are tables of their own
            for row in own:
                for cell in row:
                    if _tag(cell) in ("td", "th"):
                        self.container(cell)
            return
        rows = [
            [_one_line(self.inline_text(cell)) for cell in row if _tag(cell) in ("td", "th")]
            for row in own
        ]
        rows = [row for row in rows if any(row)]
        if not rows:
            return
        width = max(len(row) for row in rows)
        if self.markdown and width > 1:
            lines = [
                "| "
                + " | ".join(c.replace("|", "\\|") for c in row + [""] * (width - len(row)))
                + " |"
                for row in rows
            ]
            lines.insert(1, "|" + " --- |" * width)
            self.emit("\n".join(lines))
        else:
            self.emit("\n".join(CELL_SEPARATOR.join(cell for cell in row if cell) for row in rows))

    def quote(self, element: etree._Element) -> None:
        inner = _Writer(self.markdown)
        inner.container(element)
        text = inner.result()
        self.emit("\n".join(f"> {line}" if line else ">" for line in text.split("\n")))

    def result(self) -> str:
        out: list[str] = []
        for text, tight in self.blocks:
            if out:
                out.append("\n" if tight else "\n\n")
            out.append(text)
        return "".join(out)


def to_text(content: etree._Element, *, markdown: bool) -> str:
    writer = _Writer(markdown)
    writer.block(content)
    return strip_invisible(writer.result())


def to_html(content: etree._Element) -> str:
    """A clean HTML fragment: known tags only, and no attributes at all."""
    for element in content.iter():
        element.attrib.clear()
    unknown = {tag for e in content.iterdescendants() if (tag := _tag(e))} - _HTML_TAGS
    if unknown:
        etree.strip_tags(content, *unknown)
    content.tag = "article"
    html = etree.tostring(content, method="html", encoding="unicode", with_tail=False)
    return strip_invisible(html)


def render(content: etree._Element, output: Format) -> str:
    if output == "html":
        return to_html(content)
    return to_text(content, markdown=output == "markdown")


def plain_to_html(text: str) -> str:
    """Plain text as HTML paragraphs, for ``output="html"`` on a text/plain document."""
    paragraphs = (escape(p).replace("\n", "<br>") for p in text.split("\n\n") if p)
    return "<article>" + "".join(f"<p>{p}</p>" for p in paragraphs) + "</article>"

"""Turn a main-content tree (plain HTML vocabulary) into text, Markdown or clean HTML.

One walk serves text and Markdown: block elements become paragraphs separated by a
blank line, list items and table rows stay one per line. Markdown adds heading
marks, list bullets, emphasis, links and code fences; text keeps only the words (and
the bullets, which carry meaning).
"""

from __future__ import annotations

import re
from html import escape
from typing import Literal
from urllib.parse import urljoin

from lxml import etree

from sleuth.extract.text import strip_invisible

Format = Literal["text", "markdown", "html"]

HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_LISTS = frozenset(("ul", "ol", "dl", "menu"))
_ITEMS = frozenset(("li", "dt", "dd"))
_BLOCKS = frozenset(
    (
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
        *HEADINGS,
        *_LISTS,
        *_ITEMS,
    )
)
_MARKS = {"strong": "**", "b": "**", "em": "*", "i": "*", "code": "`", "kbd": "`", "samp": "`"}
# Tags kept in HTML output; anything else is unwrapped to its content.
_HTML_TAGS = frozenset(
    (
        *_BLOCKS - {"body", "html", "form", "fieldset", "legend", "nav", "center"},
        *_MARKS,
        "a",
        "br",
        "u",
        "sub",
        "sup",
        "del",
        "s",
        "mark",
        "q",
        "cite",
        "abbr",
        "time",
        "thead",
        "tbody",
        "tfoot",
        "th",
        "td",
    )
)
_SAFE_SCHEMES = ("http://", "https://", "mailto:")
_SPACE_RE = re.compile(r"\s+")


def _tag(element: etree._Element) -> str:
    return element.tag if isinstance(element.tag, str) else ""


def _href(element: etree._Element, base_url: str | None) -> str | None:
    """An absolute link target a reader could follow, never ``javascript:`` and the like."""
    href = (element.get("href") or "").strip()
    if not href or href.startswith("#"):
        return None
    if base_url:
        href = urljoin(base_url, href)
    return href if href.lower().startswith(_SAFE_SCHEMES) else None


class _Writer:
    """Collects blocks; a block marked tight follows the previous one on the next line."""

    def __init__(self, markdown: bool, base_url: str | None) -> None:
        self.markdown = markdown
        self.base_url = base_url
        self.blocks: list[tuple[str, bool]] = []
        self.inline: list[str] = []

    # -- inline content -------------------------------------------------------------

    def inline_text(self, element: etree._Element) -> str:
        """The inline rendering of an element's content (not its tail)."""
        parts = [element.text or ""]
        for child in element:
            parts.append(self._inline_child(child))
            parts.append(child.tail or "")
        return "".join(parts)

    def _inline_child(self, element: etree._Element) -> str:
        tag = _tag(element)
        if tag == "br":
            return "\n"
        if not tag or tag in _LISTS or tag == "table":
            return " " + _SPACE_RE.sub(" ", self.inline_text(element)) + " " if tag else ""
        inner = self.inline_text(element)
        if tag in _BLOCKS:
            return f" {inner} "
        if not self.markdown or not inner.strip():
            return inner
        mark = _MARKS.get(tag)
        if mark:
            return _wrap(inner, mark, mark)
        if tag == "a" and (href := _href(element, self.base_url)):
            return _wrap(inner, "[", f"]({href})")
        return inner

    # -- blocks ---------------------------------------------------------------------

    def flush(self, *, tight: bool = False, prefix: str = "") -> None:
        text = _join_lines("".join(self.inline))
        self.inline.clear()
        if text:
            self.emit(prefix + text, tight=tight)

    def emit(self, text: str, *, tight: bool = False) -> None:
        self.blocks.append((text, tight))

    def block(self, element: etree._Element) -> None:
        tag = _tag(element)
        if tag in HEADINGS:
            self.flush()
            text = _SPACE_RE.sub(" ", self.inline_text(element)).strip()
            if text:
                self.emit(f"{'#' * int(tag[1])} {text}" if self.markdown else text)
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
        self.inline.append(element.text or "")
        for child in element:
            if _tag(child) in _BLOCKS:
                self.block(child)
            else:
                self.inline.append(self._inline_child(child))
            self.inline.append(child.tail or "")
        self.flush()

    def list(self, element: etree._Element, depth: int) -> None:
        ordered = _tag(element) == "ol"
        number = int(element.get("start") or 1) if (element.get("start") or "1").isdigit() else 1
        indent = "  " * depth
        first = True
        for item in element:
            tag = _tag(item)
            if tag in _LISTS:
                self.list(item, depth + 1)
                continue
            nested = [child for child in item if _tag(child) in _LISTS]
            text = _SPACE_RE.sub(" ", self._item_text(item)).strip()
            if text:
                if tag == "dd":
                    marker = "  "
                elif ordered:
                    marker = f"{number}. "
                    number += 1
                else:
                    marker = "- "
                self.emit(f"{indent}{marker}{text}", tight=not first)
                first = False
            for child in nested:
                self.list(child, depth + 1)

    def _item_text(self, item: etree._Element) -> str:
        parts = [item.text or ""]
        for child in item:
            if _tag(child) not in _LISTS:
                parts.append(self._inline_child(child))
            parts.append(child.tail or "")
        return "".join(parts)

    def pre(self, element: etree._Element) -> None:
        code = "".join(element.itertext()).strip("\n")
        if not code.strip():
            return
        if self.markdown:
            fence = "```" if "```" not in code else "~~~~"
            self.emit(f"{fence}\n{code}\n{fence}")
        else:
            self.emit(code)

    def table(self, element: etree._Element) -> None:
        rows = []
        for row in element.iter("tr"):
            cells = [
                _SPACE_RE.sub(" ", self.inline_text(cell)).strip()
                for cell in row
                if _tag(cell) in ("td", "th")
            ]
            if any(cells):
                rows.append(cells)
        if not rows:
            return
        if self.markdown and max(len(r) for r in rows) > 1:
            width = max(len(r) for r in rows)
            lines = [
                "| " + " | ".join(c.replace("|", "\\|") for c in r + [""] * (width - len(r))) + " |"
                for r in rows
            ]
            lines.insert(1, "|" + " --- |" * width)
            self.emit("\n".join(lines))
        else:
            self.emit("\n".join(" | ".join(c for c in r if c) for r in rows))

    def quote(self, element: etree._Element) -> None:
        inner = _Writer(self.markdown, self.base_url)
        inner.container(element)
        text = inner.result()
        if text:
            self.emit("\n".join(f"> {line}" if line else ">" for line in text.split("\n")))

    def result(self) -> str:
        out: list[str] = []
        for text, tight in self.blocks:
            if out:
                out.append("\n" if tight else "\n\n")
            out.append(text)
        return "".join(out)


def _wrap(inner: str, opening: str, closing: str) -> str:
    """Wrap the words, keeping surrounding spaces outside the marks."""
    stripped = inner.strip()
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return f"{lead}{opening}{_SPACE_RE.sub(' ', stripped)}{closing}{trail}"


def _join_lines(text: str) -> str:
    lines = (_SPACE_RE.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def to_text(content: etree._Element, *, markdown: bool, base_url: str | None = None) -> str:
    writer = _Writer(markdown, base_url)
    writer.block(content)
    return strip_invisible(writer.result())


def to_html(content: etree._Element, base_url: str | None = None) -> str:
    """A clean HTML fragment: known tags only, no attributes but safe absolute links."""
    for element in content.iter():
        tag = _tag(element)
        if tag == "a":
            href = _href(element, base_url)
            element.attrib.clear()
            if href:
                element.set("href", href)
        elif tag:
            element.attrib.clear()
    unwanted = {
        _tag(e) for e in content.iterdescendants() if _tag(e) and _tag(e) not in _HTML_TAGS
    }
    if unwanted:
        etree.strip_tags(content, *unwanted)
    content.tag = "article"
    html = etree.tostring(content, method="html", encoding="unicode", with_tail=False)
    return strip_invisible(html)


def render(content: etree._Element, output: Format, base_url: str | None = None) -> str:
    if output == "html":
        return to_html(content, base_url)
    return to_text(content, markdown=output == "markdown", base_url=base_url)


def plain_to_html(text: str) -> str:
    """Plain text as HTML paragraphs, for ``output="html"`` on a text/plain document."""
    paragraphs = (escape(p).replace("\n", "<br>") for p in text.split("\n\n") if p)
    return "<article>" + "".join(f"<p>{p}</p>" for p in paragraphs) + "</article>"

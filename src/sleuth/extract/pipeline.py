"""``extract()``: one page in, its main text, metadata and a verdict out.

decode -> parse once -> read signals and metadata -> sanitise -> find the main
content -> render -> judge. The title lives in ``Extraction.title``; a leading
heading that merely repeats it is not repeated in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from lxml import etree

from sleuth.errors import UsageError
from sleuth.extract.content import main_content
from sleuth.extract.decode import decode
from sleuth.extract.metadata import read_metadata
from sleuth.extract.parse import parse_html
from sleuth.extract.quality import Outcome, judge, observe
from sleuth.extract.render import HEADINGS, Format, plain_to_html, render
from sleuth.extract.sanitize import sanitize
from sleuth.extract.text import clean_plain

_WORD_RE = re.compile(r"\w+")
_SPACE_RE = re.compile(r"\s+")


@dataclass(frozen=True)
class Extraction:
    """The readable part of a page.

    ``text`` is in the requested format; ``metadata`` holds title, description,
    canonical_url, published (ISO 8601), site_name, language, author and json_ld, each
    only when found; ``outcome`` says whether the text is usable and ``reason`` why not;
    ``method`` names the extractor that produced the text.
    """

    title: str | None
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    outcome: Outcome = "ok"
    reason: str | None = None
    method: str = "trafilatura"


def _is_plain_text(content_type: str | None) -> bool:
    return bool(content_type) and content_type.split(";")[0].strip().lower() == "text/plain"


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.casefold())


def _repeats_title(heading: etree._Element, title: str) -> bool:
    words, title_words = _words("".join(heading.itertext())), _words(title)
    if not words or not title_words:
        return False
    # "Headline | Site" titles: the heading is the title's leading part.
    return words == title_words or (
        title_words[: len(words)] == words and len(words) >= 0.6 * len(title_words)
    )


def _drop_title_heading(content: etree._Element, title: str | None) -> None:
    """Remove the first heading when it only restates the title and starts the text."""
    if not title:
        return
    for element in content.iterdescendants():
        if element.tag in HEADINGS:
            if _repeats_title(element, title):
                _remove(element)
            return
        if (element.text or "").strip():
            return


def _remove(element: etree._Element) -> None:
    """Remove an element but keep its tail text in place."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def _plain(text: str, output: Format) -> Extraction:
    cleaned = clean_plain(text)
    rendered = plain_to_html(cleaned) if output == "html" else cleaned
    if not cleaned:
        return Extraction(None, "", {}, "empty_extraction", "the document is empty", "plain")
    return Extraction(None, rendered, {}, "ok", None, "plain")


def extract(
    document: str | bytes,
    *,
    url: str | None = None,
    output: Format = "text",
    content_type: str | None = None,
) -> Extraction:
    """Main text of an HTML (or plain-text) document, with metadata and a verdict."""
    if output not in get_args(Format):
        raise UsageError(
            f"unknown output format {output!r}", hint="use one of: text, markdown, html"
        )
    text = decode(document, content_type)
    if _is_plain_text(content_type):
        return _plain(text, output)
    root = parse_html(text)
    if root is None:
        return Extraction(None, "", {}, "empty_extraction", "the document is empty", "none")

    signals = observe(root, len(document))
    metadata = read_metadata(root, url)
    title: str | None = metadata.get("title")
    sanitize(root)
    content = main_content(root)

    rendered, plain, method = "", "", "none"
    if content is not None:
        _drop_title_heading(content.root, title)
        plain = _SPACE_RE.sub(" ", "".join(content.root.itertext())).strip()
        rendered = render(content.root, output, url) if plain else ""
        method = content.method
    outcome, reason = judge(signals, root, title, plain)
    return Extraction(title, rendered, metadata, outcome, reason, method)

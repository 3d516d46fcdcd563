"""``extract()``: one page in, its main text, metadata and a verdict out.

decode -> parse once -> read signals and metadata -> sanitise -> find the main
content -> render -> judge. The title lives in ``Extraction.title``; a leading
heading that merely repeats it is not repeated in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, get_args

from lxml import etree

from sleuth.errors import UsageError
from sleuth.extract.content import main_content
from sleuth.extract.decode import decode
from sleuth.extract.dom import remove, text_of
from sleuth.extract.metadata import page_title, read_metadata
from sleuth.extract.parse import parse_html
from sleuth.extract.quality import Outcome, judge, observe
from sleuth.extract.render import HEADINGS, Format, plain_to_html, render
from sleuth.extract.sanitize import sanitize
from sleuth.extract.text import clean_plain

_WORD_RE = re.compile(r"\w+")


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
    return content_type is not None and content_type.split(";")[0].strip().lower() == "text/plain"


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.casefold())


def _restates(words: list[str], reference: list[str]) -> bool:
    """Same words, or most of a longer title ("Opinion | Headline", "Headline - Site")."""
    if not words or not reference:
        return False
    if words == reference:
        return True
    size = len(words)
    if size < 0.6 * len(reference):
        return False
    return any(reference[i : i + size] == words for i in range(len(reference) - size + 1))


def _drop_restated_headings(content: etree._Element, references: list[str]) -> None:
    """Drop the headings that open the text when they restate the title or summary.

    Both are in ``Extraction.title`` and ``metadata["description"]``; repeating them
    as the first lines of the text only costs the reader (or the model) tokens.
    """
    reference_words = [_words(reference) for reference in references if reference]
    for element in list(content.iterdescendants()):
        if any(ancestor.tag in HEADINGS for ancestor in element.iterancestors()):
            continue  # inside a heading already judged
        if element.tag in HEADINGS:
            words = _words(text_of(element))
            if not any(_restates(words, reference) for reference in reference_words):
                return
            remove(element)
        elif (element.text or "").strip() or (element.tail or "").strip():
            return


def _last_text_holder(content: etree._Element) -> etree._Element | None:
    """The element whose text (or tail, i.e. its parent's text) ends the content."""
    for element in reversed(list(content.iter())):
        if (element.tail or "").strip():
            return element.getparent()
        if (element.text or "").strip():
            return element
    return None


def _drop_trailing_headings(content: etree._Element) -> None:
    """Headings that end the text head nothing (a newsletter box, a teaser list)."""
    while (holder := _last_text_holder(content)) is not None:
        heading = next((e for e in (holder, *holder.iterancestors()) if e.tag in HEADINGS), None)
        if heading is None:
            return
        remove(heading)


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
    references = [title or "", page_title(root), metadata.get("description") or ""]
    sanitize(root)
    content = main_content(root)

    rendered, plain, method = "", "", "none"
    if content is not None:
        _drop_restated_headings(content.root, references)
        _drop_trailing_headings(content.root)
        plain = text_of(content.root)
        rendered = render(content.root, output) if plain else ""
        method = content.method
    outcome, reason = judge(signals, root, title, plain)
    return Extraction(title, rendered, metadata, outcome, reason, method)

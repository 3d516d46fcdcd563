"""``extract()``: one page in, its main text, metadata and a verdict out.

decode -> parse once -> read signals and metadata -> judge the page type -> sanitise
-> find the main content -> tidy its edges -> serialise -> judge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, get_args
from urllib.parse import urlsplit

from sleuth.errors import UsageError
from sleuth.extract.content import is_discussion, main_content
from sleuth.extract.decode import decode
from sleuth.extract.dom import text_of
from sleuth.extract.kind import page_type
from sleuth.extract.links import collect, judge_links
from sleuth.extract.metadata import page_title, product_description, read_metadata
from sleuth.extract.parse import parse_html
from sleuth.extract.quality import Outcome, judge, observe
from sleuth.extract.sanitize import sanitize
from sleuth.extract.serialize import Format, plain_to_html, render
from sleuth.extract.styles import Styles
from sleuth.extract.text import clean_plain
from sleuth.extract.tidy import tidy
from sleuth.extract.verbatim import not_verbatim
from sleuth.log import Stopwatch, event


@dataclass(frozen=True)
class Extraction:
    """The readable part of a page.

    ``text`` is in the requested format; ``metadata`` holds title, description,
    canonical_url, published (ISO 8601), site_name, language, author and json_ld, each
    only when found, and page_type (article, forum, product, collection, listing,
    documentation or service) for every HTML page; ``outcome`` says whether the text
    is usable and ``reason`` why not;
    ``method`` names the extractor that produced the text: "trafilatura", "density"
    (the fallback), "trafilatura+density" (a split body joined), "page" (the visible
    page without its chrome: content spread over many blocks, or a short page), "plain"
    or "none".
    """

    title: str | None
    text: str
    metadata: dict[str, Any]
    outcome: Outcome
    reason: str | None
    method: str
    # {url, text, rel, in_content} and {url, alt}, read after sanitising (hidden ones gone)
    links: list[dict[str, Any]] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)


def _is_plain_text(content_type: str | None) -> bool:
    return content_type is not None and content_type.split(";")[0].strip().lower() == "text/plain"


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
    links: bool = False,
    styles: Styles | None = None,
    judged_by: str | None = None,
) -> Extraction:
    """Main text of an HTML (or plain-text) document, with metadata and a verdict.

    ``links=True`` also lists the page's visible links and images (fetch results carry
    them; a plain extraction does not pay for them). ``styles`` holds the sheets the
    page links (read by the caller); ``judged_by`` names the attribute a browser wrote
    on each element it found hidden, for a rendered page: then the browser decides.
    """
    if output not in get_args(Format):
        raise UsageError(
            f"unknown output format {output!r}", hint="use one of: text, markdown, html"
        )
    try:
        urlsplit(url or "")  # read for forum paths, page types and the canonical URL
    except ValueError as exc:  # "http://[::1/"
        raise UsageError(
            f"url {url!r} is not a valid URL: {exc}", hint="pass the page's absolute address"
        ) from None
    clock = Stopwatch()
    result = _extract(
        decode(document, content_type),
        len(document),
        url,
        output,
        content_type,
        with_links=links,
        styles=styles,
        judged_by=judged_by,
    )
    event(
        "extract",
        url=url,
        method=result.method,
        outcome=result.outcome,
        chars=len(result.text),
        latency_ms=clock.ms,
    )
    return result


def _extract(
    text: str,
    size: int,
    url: str | None,
    output: Format,
    content_type: str | None,
    *,
    with_links: bool,
    styles: Styles | None = None,
    judged_by: str | None = None,
) -> Extraction:
    if _is_plain_text(content_type):
        return _plain(text, output)
    root = parse_html(text)
    if root is None:
        return Extraction(None, "", {}, "empty_extraction", "the document is empty", "none")

    signals = observe(root, size)
    metadata = read_metadata(root, url)
    title: str | None = metadata.get("title")
    references = [title or "", page_title(root), metadata.get("description") or ""]
    discussion = is_discussion(metadata.get("json_ld", []), url)
    kind = page_type(root, url, metadata.get("json_ld", []))
    metadata["page_type"] = kind
    cleaned = sanitize(root, reader=output == "text", styles=styles, judged_by=judged_by)
    if styles is not None and styles.unread:
        metadata["styles_unread"] = list(styles.unread)
    found_links, images = collect(root, url) if with_links else ([], [])
    declared = product_description(metadata.get("json_ld", [])) if kind == "product" else None
    content = main_content(root, discussion=discussion, page_type=kind, declared=declared)

    rendered, plain, method = "", "", "none"
    if content is not None:
        tidy(content.root, references, items=kind != "article")
        plain = text_of(content.root)
        rendered = render(content.root, output) if plain else ""
        method = content.method
    if cleaned.reader is not None and rendered:
        # spans a digest must not quote; offsets into the whole text (see ``verbatim``)
        metadata["not_verbatim"] = [list(span) for span in not_verbatim(rendered, cleaned.reader)]
    outcome, reason = judge(signals, root, title, plain, cleaned.hidden)
    judged = judge_links(found_links, plain) if with_links else []
    return Extraction(title, rendered, metadata, outcome, reason, method, judged, images)

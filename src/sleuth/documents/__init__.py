"""Documents besides web pages: PDFs and the text family, read as safely as pages.

:func:`read` is the one door: it sniffs what a body is (:mod:`.sniff`), sends HTML to
the page extractor, text to :mod:`.textual` and PDFs to PDFium in a worker process
(:mod:`.worker`, :mod:`.pdf`), and turns every failure into the typed error of its
outcome (``encrypted``, ``corrupt_document``, ``no_text_layer``, ``timeout``,
``too_large``, ``unsupported_type``).
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate
from typing import Literal

from sleuth.documents.sniff import (
    GENERIC_TYPES,
    PDF_TYPES,
    READABLE_TYPES,
    Kind,
    binary_type,
    is_pdf,
    kind_by_name,
    media_type,
    page_content_type,
    sniff,
)
from sleuth.errors import (
    CorruptDocument,
    Encrypted,
    NoTextLayer,
    SleuthError,
    TooLarge,
)
from sleuth.extract import Extraction, extract
from sleuth.extract.styles import Styles

Output = Literal["text", "markdown", "html"]

_FAILURES: dict[str, type[SleuthError]] = {
    "encrypted": Encrypted,
    "corrupt_document": CorruptDocument,
    "no_text_layer": NoTextLayer,
    "too_large": TooLarge,
}

__all__ = [
    "GENERIC_TYPES",
    "PDF_TYPES",
    "READABLE_TYPES",
    "Kind",
    "binary_type",
    "is_document",
    "is_pdf",
    "kind_by_name",
    "media_type",
    "read",
    "sniff",
]


# libxml2's HTML parser stops descending at 256 levels and drops what lies deeper; a
# little under it, counting the html and body elements and a few inline ones.
MAX_DEPTH = 250
_DIV_TAG = re.compile(rb"<(/?d)iv[\s>/]")
_STEPS = bytes.maketrans(b"d/", b"\x01\xfe")  # "d" opens (+1), "/d" closes (-2 + 1)


def div_depth(data: bytes) -> int:
    """How deep ``<div>`` elements nest at most: a lower bound on the page's depth.

    A ``</div>`` closes the innermost open ``<div>`` and whatever it holds, and a
    stray one is ignored, so the running count of open ``<div>`` elements never
    exceeds the tree's depth; a page with fewer ``<div>`` tags than the limit is
    not scanned at all.
    """
    if data.count(b"<div") + data.count(b"<DIV") + data.count(b"<Div") <= MAX_DEPTH:
        return 0
    # One signed byte per tag, +1 opening and -1 closing, summed in C: the loop in Python
    # would cost more than the parse on a page of many <div>s.
    steps = array("b", b"".join(_DIV_TAG.findall(data.lower())).translate(_STEPS))
    return max(accumulate(steps), default=0)


def is_document(extraction: Extraction) -> bool:
    """Whether an extraction came from a PDF or a text file (no browser can improve it)."""
    return extraction.method == "pdf" or extraction.method.startswith("text/")


def read_pdf(
    data: bytes,
    *,
    output: Output = "text",
    max_pages: int = 200,
    timeout: float = 10.0,
    url: str | None = None,
) -> Extraction:
    """A PDF's text through a worker process; failures raise their typed error."""
    from sleuth.documents.worker import checked, parse_pdf

    def said(message: str) -> str:
        return f"{url}: {message}" if url else message

    record = checked(
        lambda: parse_pdf(
            data, markdown=output == "markdown", max_pages=max_pages, timeout=timeout
        ),
        what="PDF",
        timeout=timeout,
        url=url,
    )
    outcome = str(record.get("outcome"))
    reason = str(record.get("reason") or outcome)
    if outcome in _FAILURES:
        hint = "raise SLEUTH_MAX_DOCUMENT_BYTES" if outcome == "too_large" else None
        raise _FAILURES[outcome](said(reason), url=url, hint=hint)
    metadata = dict(record.get("metadata") or {})
    text = str(record.get("text") or "")
    if output == "html" and text:
        from sleuth.extract.serialize import plain_to_html

        text = plain_to_html(text)
    verdict: Literal["ok", "empty_extraction"] = "ok" if outcome == "ok" else "empty_extraction"
    title = record.get("title")
    return Extraction(
        title if isinstance(title, str) else None,
        text,
        metadata,
        verdict,
        None if verdict == "ok" else reason,
        "pdf",
    )


def read(
    data: bytes,
    *,
    content_type: str | None = None,
    name: str | None = None,
    url: str | None = None,
    output: Output = "text",
    max_pages: int = 200,
    timeout: float = 10.0,
    links: bool = False,
    styles: Styles | None = None,
    judged_by: str | None = None,
) -> Extraction:
    """Any body sleuth reads, as an Extraction; a binary it does not read is UnsupportedType.

    ``name`` is a local file's name: its extension picks a text kind, and local files
    are always sniffed for ``%PDF-``. ``links`` asks a web page for its links and images;
    ``styles`` and ``judged_by`` are handed to the page extractor (see ``extract``).
    """
    kind = sniff(data, content_type, name)
    if kind == "pdf":
        return read_pdf(data, output=output, max_pages=max_pages, timeout=timeout, url=url)
    if kind == "html":
        depth = div_depth(data)
        if depth > MAX_DEPTH:
            where = f"{url}: " if url else ""
            raise TooLarge(
                f"{where}the page nests at least {depth:,} elements deep; sleuth reads "
                f"{MAX_DEPTH} levels, and the text deeper down would be lost",
                url=url,
                hint="the page is malformed or hostile; no setting raises this limit",
            )
        return extract(
            data,
            url=url,
            output=output,
            content_type=page_content_type(content_type),
            links=links,
            styles=styles,
            judged_by=judged_by,
        )
    from sleuth.documents.worker import read_text

    return read_text(data, kind, output=output, content_type=content_type, timeout=timeout, url=url)

"""Documents besides web pages: PDFs and the text family, read as safely as pages.

:func:`read` is the one door: it sniffs what a body is (:mod:`.sniff`), sends HTML to
the page extractor, text to :mod:`.textual` and PDFs to PDFium in a worker process
(:mod:`.worker`, :mod:`.pdf`), and turns every failure into the typed error of its
outcome (``encrypted``, ``corrupt_document``, ``no_text_layer``, ``timeout``,
``too_large``, ``unsupported_type``).
"""

from __future__ import annotations

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
    sniff,
)
from sleuth.errors import (
    CorruptDocument,
    Encrypted,
    FetchTimeout,
    NoTextLayer,
    SleuthError,
    TooLarge,
)
from sleuth.extract import Extraction, extract

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
    from sleuth.documents.worker import WorkerFailed, WorkerTimeout, parse_pdf

    def said(message: str) -> str:
        return f"{url}: {message}" if url else message

    try:
        record = parse_pdf(
            data, markdown=output == "markdown", max_pages=max_pages, timeout=timeout
        )
    except WorkerTimeout:
        raise FetchTimeout(
            said(f"reading the PDF took longer than {timeout:g} s"),
            url=url,
            hint="raise SLEUTH_DOCUMENT_TIMEOUT if the document is legitimate",
            retryable=False,
        ) from None
    except WorkerFailed as exc:
        raise CorruptDocument(said(f"the PDF crashed its reader ({exc})"), url=url) from None
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
) -> Extraction:
    """Any body sleuth reads, as an Extraction; a binary it does not read is UnsupportedType.

    ``name`` is a local file's name: its extension picks a text kind, and local files
    are always sniffed for ``%PDF-``.
    """
    kind = sniff(data, content_type, name)
    if kind == "pdf":
        return read_pdf(data, output=output, max_pages=max_pages, timeout=timeout, url=url)
    if kind == "html":
        declared = media_type(content_type)
        html_type = content_type if declared in ("text/html", "application/xhtml+xml") else None
        return extract(data, url=url, output=output, content_type=html_type)
    from sleuth.documents.textual import read_text

    return read_text(data, kind, output, content_type)

"""What a body is: HTML, a PDF, a kind of text, or a binary sleuth does not read.

Bytes decide binary against text (magic numbers, NUL bytes), never a file name: an
executable named ``notes.txt`` is still an executable. For text, the declared type or
the extension picks the kind, since Markdown, CSV and plain text cannot be told apart by
their bytes.
"""

from __future__ import annotations

import re
from typing import Literal

from lxml import etree

from sleuth.errors import UnsupportedType

Kind = Literal["html", "pdf", "plain", "markdown", "rst", "csv", "json", "xml"]

PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES: dict[str, Kind] = {
    "text/plain": "plain",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/x-rst": "rst",
    "text/csv": "csv",
    "application/json": "json",
    "application/ld+json": "json",
    "application/xml": "xml",
    "text/xml": "xml",
    "application/rss+xml": "xml",
    "application/atom+xml": "xml",
}
# Every type a fetch may ask for and read; the rest are unsupported_type without a download.
READABLE_TYPES = PDF_TYPES | GENERIC_TYPES | HTML_TYPES | frozenset(TEXT_TYPES)

EXTENSIONS: dict[str, Kind] = {
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".txt": "plain",
    ".text": "plain",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".csv": "csv",
    ".json": "json",
    ".jsonld": "json",
    ".xml": "xml",
    ".rss": "xml",
    ".atom": "xml",
}

# Magic numbers of common binaries, so a refusal can name what the file is.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x7fELF", "application/x-executable (ELF)"),
    (b"MZ", "application/x-msdownload (Windows executable)"),
    (b"\xcf\xfa\xed\xfe", "application/x-mach-binary"),
    (b"\xca\xfe\xba\xbe", "application/java-vm or Mach-O"),
    (b"\x00asm", "application/wasm"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"BM", "image/bmp"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"PK\x03\x04", "application/zip (or an Office document)"),
    (b"\x1f\x8b", "application/gzip"),
    (b"BZh", "application/x-bzip2"),
    (b"\xfd7zXZ\x00", "application/x-xz"),
    (b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
    (b"Rar!", "application/vnd.rar"),
    (b"\x28\xb5\x2f\xfd", "application/zstd"),
    (b"SQLite format 3\x00", "application/vnd.sqlite3"),
    (b"OggS", "audio/ogg"),
    (b"ID3", "audio/mpeg"),
    (b"fLaC", "audio/flac"),
    (b"\x1aE\xdf\xa3", "video/webm"),
    (b"\xd0\xcf\x11\xe0", "application/x-ole-storage (an old Office document)"),
    (b"%!PS", "application/postscript"),
    (b"wOFF", "font/woff"),
    (b"wOF2", "font/woff2"),
)
# "12 0 obj" or a trailer: PDF syntax, whatever the first bytes say.
_PDF_SYNTAX = re.compile(rb"(?:^|[\r\n])\d{1,10}\s+\d{1,5}\s+obj\b|\btrailer\s*<<|\bstartxref\b")
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
XHTML_NAMESPACE = "http://www.w3.org/1999/xhtml"
_XHTML_ROOT = f"{{{XHTML_NAMESPACE}}}html"
_XHTML_HEAD = 65536  # the prolog (a doctype with its internal subset) and the root's start tag


def media_type(content_type: str | None) -> str:
    """``text/html; charset=utf-8`` -> ``text/html``."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_pdf(data: bytes) -> bool:
    """``%PDF-`` within the first 1,024 bytes (readers accept junk before the header)."""
    return b"%PDF-" in data[:1024]


def binary_type(data: bytes) -> str | None:
    """The binary type ``data`` is, or None for text (magic numbers, then NUL bytes)."""
    head = data[:8192]
    if head.startswith(_BOMS):
        return None  # UTF-16 text holds NULs; a BOM says so
    for magic, name in _MAGIC:
        if head.startswith(magic):
            if magic in (b"MZ", b"BM") and b"\x00" not in head:
                continue  # "MZ..." or "BM..." as the start of a text
            return name
    if head[4:12] in (b"ftypisom", b"ftypmp42", b"ftypqt  ") or head[4:8] == b"ftyp":
        return "video/mp4"
    if head.startswith(b"RIFF") and head[8:12] in (b"WAVE", b"AVI ", b"WEBP"):
        return {b"WAVE": "audio/wav", b"AVI ": "video/x-msvideo", b"WEBP": "image/webp"}[head[8:12]]
    if b"\x00" in head:
        return "application/octet-stream"
    controls = sum(head.count(bytes([c])) for c in (*range(1, 8), *range(14, 27), *range(28, 32)))
    if head and controls * 20 > len(head):  # more than 5% control bytes: not text
        return "application/octet-stream"
    return None


def _extension(name: str | None) -> str:
    if not name:
        return ""
    base = name.lower().rsplit("/", 1)[-1].removesuffix(".gz")
    dot = base.rfind(".")
    return base[dot:] if dot > 0 else ""


def kind_by_name(name: str | None) -> Kind | None:
    """The kind a file name promises, or None without a known extension."""
    return EXTENSIONS.get(_extension(name))


def _looks_like_markup(data: bytes) -> bool:
    head = data[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<!--", b"<meta"))


def _looks_like_xml(data: bytes) -> bool:
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<?xml", b"<rss", b"<feed"))


def is_xhtml(data: bytes) -> bool:
    """Whether the root element is ``<html>`` in the XHTML namespace.

    A browser shows such a document as a styled page whatever type it was served as
    (``application/xml``, ``text/xml``, a ``.xml`` file), so it must be read the way a page
    is, its hidden text dropped, and never as generic XML.
    """
    head = data[:_XHTML_HEAD]
    if b"1999/xhtml" not in head:
        return False
    parser = etree.XMLPullParser(
        events=("start",),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        recover=True,
        huge_tree=False,
    )
    try:
        parser.feed(head)
        for _, element in parser.read_events():
            return isinstance(element, etree._Element) and element.tag == _XHTML_ROOT
    except (etree.XMLSyntaxError, ValueError):
        return False
    return False


def page_content_type(content_type: str | None) -> str | None:
    """The type handed to the page extractor (which reads only its charset) for a body
    sniffed as HTML: a page's own type, or the XML type XHTML was served as."""
    media = media_type(content_type)
    return content_type if media in HTML_TYPES or TEXT_TYPES.get(media) == "xml" else None


def sniff(data: bytes, content_type: str | None = None, name: str | None = None) -> Kind:
    """The kind of ``data``, or UnsupportedType naming the binary type it is.

    A declared PDF type, or ``%PDF-`` at the start of a generic or local body, is a PDF;
    a declared HTML or text type is taken at its word; otherwise other binaries are
    refused, and text takes its kind from the extension, then from a look at its first
    bytes (markup is HTML, ``<?xml`` is XML). XML whose root is XHTML's ``<html>`` is HTML.
    """
    kind = _sniff(data, content_type, name)
    return "html" if kind == "xml" and is_xhtml(data) else kind


def _sniff(data: bytes, content_type: str | None, name: str | None) -> Kind:
    media = media_type(content_type)
    if media in PDF_TYPES or ((media in GENERIC_TYPES or name is not None) and is_pdf(data)):
        return "pdf"
    if (media in GENERIC_TYPES or name is not None) and (
        kind_by_name(name) == "pdf" or _PDF_SYNTAX.search(data[:8192])
    ):
        return "pdf"  # a damaged header, or a name that says so: PDFium judges, never as text
    if media in HTML_TYPES:  # a server's word for a web page: garbage is an empty page
        return "html"
    if media in TEXT_TYPES:
        return TEXT_TYPES[media]
    found = binary_type(data)
    if found is not None:
        where = f"{name}: " if name else ""
        raise UnsupportedType(f"{where}the content is {found}, not a page or text")
    by_name = kind_by_name(name)
    if by_name is not None and by_name != "pdf":
        return by_name
    if _looks_like_xml(data) and not _looks_like_markup(data):
        return "xml"
    if media in GENERIC_TYPES and data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] not in (b"<", b""):
        return "plain"  # no type and no markup: text, not an empty web page
    return "html"

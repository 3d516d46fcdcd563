"""Bytes to text, trusting the page's own signals in the order browsers do.

Order: byte-order mark, the ``charset`` of the Content-Type header, a ``<meta>``
charset (or XML declaration) near the top of the document, then UTF-8 if the bytes
are valid UTF-8 and windows-1252 otherwise (the web's de-facto legacy default).
"""

from __future__ import annotations

import codecs
import re

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_HEADER_CHARSET_RE = re.compile(r"""charset\s*=\s*["']?\s*([\w.:\-]+)""", re.IGNORECASE)
_META_CHARSET_RE = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([\w.:\-]+)"""
    rb"""|<\?xml[^>]+?encoding\s*=\s*["']([\w.:\-]+)""",
    re.IGNORECASE,
)
# How far into the document a <meta charset> is looked for.
_PRESCAN_BYTES = 8192
# Labels whose WHATWG meaning is a superset codec: decoding with the superset never
# loses characters a real page uses.
_SUPERSETS = {
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "euc-kr": "cp949",
    "tis-620": "cp874",
}


def _codec(label: str, *, in_document: bool) -> str | None:
    """A Python codec name for a charset label, or None when the label is unknown."""
    name = label.lower()
    try:
        codec = codecs.lookup(_SUPERSETS.get(name, name)).name
    except LookupError:
        return None
    # A <meta> we could read as ASCII proves the bytes are not UTF-16, whatever it says.
    return "utf-8" if in_document and codec.startswith("utf-16") else codec


def _declared(data: bytes, content_type: str | None) -> str | None:
    """The codec the header or the document names, if Python knows it."""
    header = _HEADER_CHARSET_RE.search(content_type) if content_type else None
    if header and (codec := _codec(header.group(1), in_document=False)):
        return codec
    meta = _META_CHARSET_RE.search(data, 0, _PRESCAN_BYTES)
    if meta:
        label = (meta.group(1) or meta.group(2)).decode("ascii", "ignore")
        return _codec(label, in_document=True)
    return None


def sniff_encoding(data: bytes, content_type: str | None = None) -> tuple[str, bool]:
    """The codec to use, and whether it was declared (so decoding errors mean damage)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, True
    declared = _declared(data, content_type)
    return (declared, True) if declared else ("utf-8", False)


def decode(document: str | bytes, content_type: str | None = None) -> str:
    """Text of a document; a str is returned as is (minus a leading BOM)."""
    if isinstance(document, str):
        return document.removeprefix("\ufeff")
    codec, declared = sniff_encoding(document, content_type)
    if codec == "utf-8":
        try:
            return document.decode("utf-8-sig")
        except UnicodeDecodeError:
            # Undeclared and not UTF-8: a legacy page. Declared UTF-8: damaged bytes.
            return document.decode("utf-8-sig" if declared else "cp1252", "replace")
    try:
        return document.decode(codec, "replace").removeprefix("\ufeff")
    except (LookupError, ValueError):  # a codec Python knows but cannot run here
        return document.decode("utf-8", "replace")

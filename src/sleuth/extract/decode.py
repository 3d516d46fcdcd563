"""Bytes to text, trusting the page's own signals in the order browsers do.

Order: byte-order mark, the ``charset`` of the Content-Type header, a ``<meta>``
charset (or XML declaration) in the first 1024 bytes, then UTF-8 if the bytes are
valid UTF-8 and windows-1252 otherwise (the web's de-facto legacy default).

Only labels of the WHATWG Encoding Standard count. Python knows many more codecs
(``utf-7``, ``unicode_escape`` ...) that no browser applies; honouring one would let a
page show a reader a comment and hand us, decoded, the instruction hidden inside it.
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
    rb"""<meta[\s/][^>]*?charset\s*=\s*["']?\s*([\w.:\-]+)"""
    rb"""|<\?xml[^>]+?encoding\s*=\s*["']([\w.:\-]+)""",
    re.IGNORECASE,
)
# A browser's prescan skips comments; one left open hides the rest of the prescan.
_COMMENT_RE = re.compile(rb"<!(?=--).*?(?:-->|\Z)", re.DOTALL)
# Browsers look for a <meta charset> in this many leading bytes only.
_PRESCAN_BYTES = 1024
# Browsers decode these labels as a single U+FFFD: the page shows nothing.
_REPLACEMENT = "replacement"
# WHATWG encoding labels, by the Python codec that decodes the encoding. GBK, Big5,
# Shift_JIS, EUC-KR and windows-874 map to the supersets browsers actually decode;
# x-user-defined has no Python codec and counts as undeclared.
_ENCODINGS = {
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "cp866": "866 cp866 csibm866 ibm866",
    "iso8859-2": "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 "
    "iso_8859-2:1987 l2 latin2",
    "iso8859-3": "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 "
    "iso_8859-3:1988 l3 latin3",
    "iso8859-4": "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 "
    "iso_8859-4:1988 l4 latin4",
    "iso8859-5": "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 "
    "iso_8859-5 iso_8859-5:1988",
    "iso8859-6": "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 "
    "iso-8859-6 iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 "
    "iso_8859-6:1987",
    "iso8859-7": "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 "
    "iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    "iso8859-8": "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 "
    "iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual "
    "csiso88598i iso-8859-8-i logical",
    "iso8859-10": "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    "iso8859-13": "iso-8859-13 iso8859-13 iso885913",
    "iso8859-14": "iso-8859-14 iso8859-14 iso885914",
    "iso8859-15": "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
    "iso8859-16": "iso-8859-16",
    "koi8-r": "cskoi8r koi koi8 koi8-r koi8_r",
    "koi8-u": "koi8-ru koi8-u",
    "mac-roman": "csmacintosh mac macintosh x-mac-roman",
    "cp874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "cp1250": "cp1250 windows-1250 x-cp1250",
    "cp1251": "cp1251 windows-1251 x-cp1251",
    "cp1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 "
    "iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
    "cp1253": "cp1253 windows-1253 x-cp1253",
    "cp1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
    "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254",
    "cp1255": "cp1255 windows-1255 x-cp1255",
    "cp1256": "cp1256 windows-1256 x-cp1256",
    "cp1257": "cp1257 windows-1257 x-cp1257",
    "cp1258": "cp1258 windows-1258 x-cp1258",
    "mac-cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "gb18030": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 "
    "x-gbk gb18030",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc_jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "iso2022_jp": "csiso2022jp iso-2022-jp",
    "cp932": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "cp949": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 "
    "ksc5601 ksc_5601 windows-949",
    _REPLACEMENT: "csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr replacement",
    "utf-16-be": "unicodefffe utf-16be",
    "utf-16-le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
}
LABELS = {label: codec for codec, labels in _ENCODINGS.items() for label in labels.split()}


def _codec(label: str, *, in_document: bool) -> str | None:
    """The Python codec for a WHATWG label, or None for a label browsers do not know."""
    codec = LABELS.get(label.strip().lower())
    # A <meta> we could read as ASCII proves the bytes are not UTF-16, whatever it says.
    return "utf-8" if in_document and codec in ("utf-16-le", "utf-16-be") else codec


def _declared(data: bytes, content_type: str | None) -> str | None:
    """The codec the header or else the document names; the first known label wins."""
    header = _HEADER_CHARSET_RE.search(content_type) if content_type else None
    if header and (codec := _codec(header.group(1), in_document=False)):
        return codec
    prescan = _COMMENT_RE.sub(b"", data[:_PRESCAN_BYTES])
    for meta in _META_CHARSET_RE.finditer(prescan):
        label = (meta.group(1) or meta.group(2)).decode("ascii", "ignore")
        if codec := _codec(label, in_document=True):
            return codec
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
    if codec == _REPLACEMENT:
        return "\ufffd"
    return document.decode(codec, "replace").removeprefix("\ufeff")

"""Bytes are decoded with the page's own signals: BOM, header, <meta>, then a fallback."""

from __future__ import annotations

import pytest

from sleuth.extract import extract
from sleuth.extract.decode import decode, sniff_encoding

MENU = "Crème brûlée, jalapeño and smörgåsbord were on the menu — priced at €12."
PAGE = (
    "<html><head>{meta}<title>Menu</title></head><body><article><h1>Menu</h1>"
    + f"<p>{MENU} The kitchen closes at ten.</p>" * 3
    + "</article></body></html>"
)


def _page(meta: str = "") -> str:
    return PAGE.format(meta=meta)


@pytest.mark.parametrize(
    ("document", "content_type"),
    [
        pytest.param(_page().encode("cp1252"), "text/html; charset=windows-1252", id="header"),
        pytest.param(_page('<meta charset="windows-1252">').encode("cp1252"), None, id="meta"),
        pytest.param(
            _page(
                '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
            ).encode("cp1252"),
            "text/html",
            id="meta-http-equiv-latin1-read-as-windows-1252",
        ),
        pytest.param(
            _page('<meta charset="utf-8">').encode("cp1252"),
            "text/html; charset=cp1252",
            id="header-beats-meta",
        ),
        pytest.param(
            b"\xef\xbb\xbf" + _page('<meta charset="iso-8859-1">').encode("utf-8"),
            "text/html; charset=iso-8859-1",
            id="bom-beats-header-and-meta",
        ),
        pytest.param(_page().encode("utf-16"), None, id="utf16-bom"),
        pytest.param(_page().encode("utf-16-le"), "text/html; charset=UTF-16LE", id="utf16-header"),
        pytest.param(_page().encode("utf-8"), None, id="undeclared-utf8"),
        pytest.param(_page().encode("cp1252"), None, id="undeclared-legacy-falls-back"),
        pytest.param(
            _page('<meta charset="no-such-charset">').encode("utf-8"), None, id="unknown-label"
        ),
    ],
)
def test_bytes_are_decoded(document: bytes, content_type: str | None) -> None:
    result = extract(document, content_type=content_type)
    assert result.outcome == "ok"
    assert MENU in result.text


def test_meta_charset_for_a_multibyte_encoding() -> None:
    sentence = "潮汐発電の試験設備が冬の間に予想の二倍の電力を生み出した。"
    document = (
        '<html><head><meta charset="Shift_JIS"><title>潮汐</title></head><body><article>'
        + f"<p>{sentence * 4}</p>" * 2
        + "</article></body></html>"
    ).encode("shift_jis")
    assert sentence in extract(document).text


def test_xml_declaration_in_a_str_document() -> None:
    document = '<?xml version="1.0" encoding="ISO-8859-1"?>\n' + _page()
    assert MENU in extract(document).text


def test_damaged_bytes_in_a_declared_utf8_page_are_replaced_not_fatal() -> None:
    document = _page('<meta charset="utf-8">').encode("utf-8").replace(b"The kitchen", b"\xff\xfe")
    result = extract(document)
    assert MENU in result.text
    assert "\ufffd" in result.text


def test_sniffing_reports_where_the_encoding_came_from() -> None:
    assert sniff_encoding(b"\xef\xbb\xbf<p>x</p>") == ("utf-8", True)
    assert sniff_encoding(b"<p>x</p>", "text/html; charset=Shift_JIS") == ("cp932", True)
    assert sniff_encoding(b'<meta charset="gb2312"><p>x</p>') == ("gb18030", True)
    assert sniff_encoding(b'<meta charset="utf-16"><p>x</p>') == ("utf-8", True)
    assert sniff_encoding(b"<p>x</p>") == ("utf-8", False)


def test_str_documents_are_taken_as_they_are() -> None:
    assert decode("\ufeff<p>é</p>") == "<p>é</p>"


def test_text_plain_is_not_parsed_as_html() -> None:
    body = "Release notes\n\n<b>not bold</b> &amp; not an entity\n\n\n\nLast line."
    result = extract(body.encode(), content_type="text/plain; charset=utf-8")
    assert result.method == "plain"
    assert result.text == "Release notes\n\n<b>not bold</b> &amp; not an entity\n\nLast line."
    html = extract(body.encode(), content_type="text/plain", output="html").text
    assert "&lt;b&gt;not bold&lt;/b&gt; &amp;amp; not an entity" in html

"""Bytes are decoded with the page's own signals: BOM, header, <meta>, then a fallback."""

from __future__ import annotations

import codecs

import pytest

from sleuth.extract import extract
from sleuth.extract.decode import LABELS, decode, sniff_encoding

from .pages import INJECTION, VISIBLE, article_with

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


# -- labels browsers do not know ------------------------------------------------------
# Each payload is an HTML comment to a browser (which ignores the label), but decodes to
# a comment that closes early, exposing the paragraph, under the Python codec of that name.
SMUGGLED = {
    "utf-7": f"<!-- +AC0-+AC0-+AD4-<p>{INJECTION}</p><!-- -->",
    "unicode_escape": f"<!-- \\u002d\\u002d\\u003e<p>{INJECTION}</p><!-- -->",
    "raw_unicode_escape": f"<!-- \\u002d\\u002d\\u003e<p>{INJECTION}</p><!-- -->",
}


def _smuggling_page(label: str, *, in_meta: bool) -> bytes:
    meta = f'<meta charset="{label}">' if in_meta else '<meta name="x" content="y">'
    return article_with(SMUGGLED[label]).replace('<meta charset="utf-8">', meta).encode()


@pytest.mark.parametrize("output", ["text", "markdown", "html"])
@pytest.mark.parametrize("in_meta", [True, False], ids=["meta", "header"])
@pytest.mark.parametrize("label", SMUGGLED)
def test_codecs_browsers_ignore_cannot_unhide_a_comment(
    label: str, in_meta: bool, output: str
) -> None:
    content_type = None if in_meta else f"text/html; charset={label}"
    result = extract(
        _smuggling_page(label, in_meta=in_meta),
        content_type=content_type,
        output=output,  # type: ignore[arg-type]
    )
    assert "PWNED" not in result.text
    assert all(sentence in result.text for sentence in VISIBLE)


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("latin1", "cp1252"),
        ("ISO-8859-1", "cp1252"),
        ("ascii", "cp1252"),
        ("us-ascii", "cp1252"),
        ("x-sjis", "cp932"),
        ("gbk", "gb18030"),
        ("big5", "big5hkscs"),
        ("iso-8859-8-i", "iso8859-8"),
        ("x-mac-ukrainian", "mac-cyrillic"),
        (" Windows-1251 ", "cp1251"),
        ("utf-16", "utf-16-le"),
        ("unicodefffe", "utf-16-be"),
    ],
)
def test_whatwg_labels_map_to_what_browsers_decode(label: str, codec: str) -> None:
    assert sniff_encoding(b"<p>x</p>", f"text/html; charset={label}") == (codec, True)


@pytest.mark.parametrize("label", ["utf-7", "unicode_escape", "rot13", "cp037", "utf-32", "x"])
def test_labels_outside_the_encoding_standard_count_as_undeclared(label: str) -> None:
    assert sniff_encoding(b"<p>x</p>", f"text/html; charset={label}") == ("utf-8", False)
    assert sniff_encoding(f'<meta charset="{label}"><p>x</p>'.encode()) == ("utf-8", False)


def test_every_encoding_in_the_label_table_has_a_python_codec() -> None:
    for codec in set(LABELS.values()) - {"replacement"}:
        assert codecs.lookup(codec).name == codec


def test_replacement_labels_decode_to_nothing_readable() -> None:
    # Browsers render a page labelled hz-gb-2312 or iso-2022-kr as one U+FFFD.
    document = article_with("").replace('charset="utf-8"', 'charset="hz-gb-2312"').encode()
    result = extract(document)
    assert result.outcome != "ok"
    assert not any(sentence in result.text for sentence in VISIBLE)


def test_only_the_first_1024_bytes_are_prescanned() -> None:
    meta = b'<meta charset="koi8-r">'
    assert sniff_encoding(b"<head>" + b" " * 900 + meta) == ("koi8-r", True)
    assert sniff_encoding(b"<head>" + b" " * 1100 + meta) == ("utf-8", False)


def test_prescan_skips_comments_and_unknown_labels() -> None:
    assert sniff_encoding(b'<!-- <meta charset="koi8-r"> --><meta charset="cp1251">') == (
        "cp1251",
        True,
    )
    assert sniff_encoding(b'<!--> <meta charset="koi8-r">') == ("koi8-r", True)
    assert sniff_encoding(b'<!-- unclosed <meta charset="koi8-r">') == ("utf-8", False)
    assert sniff_encoding(b'<meta charset="utf-7"><meta charset="koi8-r">') == ("koi8-r", True)
    assert sniff_encoding(b'<metadata charset="koi8-r">') == ("utf-8", False)

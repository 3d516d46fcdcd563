"""Plain text, Markdown, reST, CSV, JSON and XML feeds, and how a body's kind is decided."""

from __future__ import annotations

import pytest

from sleuth.documents import read, sniff
from sleuth.errors import UnsupportedType

RSS = b"""<?xml version="1.0"?>
<rss version="2.0"><channel><title>Harbour news</title>
<item><title>Storm warning</title><link>https://example.org/storm</link>
<pubDate>Tue, 05 Mar 2024 08:00:00 GMT</pubDate><description>Gale tonight.</description></item>
<item><title>New keeper</title><link>https://example.org/keeper</link></item>
</channel></rss>"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Lamp log</title>
<entry><title>Lens cleaned</title><link href="https://example.org/lens"/>
<updated>2024-03-05T08:00:00Z</updated></entry></feed>"""


def test_plain_text_keeps_its_lines_and_indentation_without_invisible_characters() -> None:
    body = "Notes\u200b on the lamp\n\n    indented\u2066 line\x1b[31m\n\n\n\nlast"
    result = read(body.encode(), content_type="text/plain")
    assert result.text == "Notes on the lamp\n\n    indented line[31m\n\nlast"
    assert result.method == "text/plain"


@pytest.mark.parametrize("media", ["text/markdown", "text/x-markdown"])
def test_markdown_is_kept_as_written_and_titled_by_its_first_heading(media: str) -> None:
    body = "# Harbour log\n\n- item one\n  - nested\n\n```\ncode  block\n```"
    result = read(body.encode(), content_type=media)
    assert result.text == body
    assert result.title == "Harbour log"


def test_rest_is_kept_and_titled() -> None:
    body = "Harbour log\n===========\n\nThe lamp was lit."
    result = read(body.encode(), content_type="text/x-rst")
    assert (result.text, result.title) == (body, "Harbour log")


def test_csv_rows_become_lines() -> None:
    body = 'port,ships,note\nWick,412,"calm, mostly"\nThurso,98,stormy\n'
    result = read(body.encode(), content_type="text/csv")
    assert result.text == "port | ships | note\nWick | 412 | calm, mostly\nThurso | 98 | stormy"


@pytest.mark.parametrize("media", ["application/json", "application/ld+json"])
def test_json_is_pretty_printed(media: str) -> None:
    result = read(b'{"port":"Wick","ships":[412,98]}', content_type=media)
    assert result.text == '{\n  "port": "Wick",\n  "ships": [\n    412,\n    98\n  ]\n}'


def test_json_that_is_not_json_comes_as_sent() -> None:
    assert read(b"{not json", content_type="application/json").text == "{not json"


def test_rss_is_a_list_of_entries() -> None:
    result = read(RSS, content_type="application/rss+xml")
    assert result.title == "Harbour news"
    assert result.text == (
        "Storm warning\nhttps://example.org/storm\nTue, 05 Mar 2024 08:00:00 GMT\n\n"
        "New keeper\nhttps://example.org/keeper"
    )
    markdown = read(RSS, content_type="application/rss+xml", output="markdown")
    assert markdown.text.splitlines()[0] == (
        "- [Storm warning](https://example.org/storm) (Tue, 05 Mar 2024 08:00:00 GMT)"
    )


def test_atom_is_a_list_of_entries() -> None:
    result = read(ATOM, content_type="application/atom+xml")
    assert result.text == "Lens cleaned\nhttps://example.org/lens\n2024-03-05T08:00:00Z"


def test_other_xml_is_its_text_and_entities_stay_unexpanded() -> None:
    body = (
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b"<r><a>First part</a><b>second &x; part</b></r>"
    )
    result = read(body, content_type="application/xml")
    assert "root:" not in result.text
    assert result.text.splitlines()[0] == "First part"


def test_an_empty_text_is_an_empty_extraction() -> None:
    result = read("  \n\u200b\n".encode(), content_type="text/plain")
    assert result.outcome == "empty_extraction"


@pytest.mark.parametrize(
    ("data", "content_type", "name", "kind"),
    [
        (b"%PDF-1.7 ...", "application/pdf", None, "pdf"),
        (b"junk\n%PDF-1.4 ...", "application/octet-stream", None, "pdf"),
        (b"%PDF-1.4 ...", None, None, "pdf"),
        (b"%PDF-1.4 ...", None, "report.txt", "pdf"),  # local files are always sniffed
        (b"%PDF-1.4 ...", "text/html", None, "html"),  # a declared page stays a page
        (b"<!doctype html><p>hi", None, "page", "html"),
        (b"# Title", None, "notes.md", "markdown"),
        (b"a,b\n1,2", None, "data.csv", "csv"),
        (b"a,b\n1,2", "text/csv; charset=utf-8", None, "csv"),
        (b"<?xml version='1.0'?><rss/>", None, "feed", "xml"),
        (b"just words", None, "README", "plain"),
        (b"just words", "application/octet-stream", None, "plain"),
        (b"\xef\xbb\xbfwords with a BOM", None, "x.txt", "plain"),
        ("UTF-16 words".encode("utf-16"), None, "x.txt", "plain"),
    ],
)
def test_sniff(data: bytes, content_type: str | None, name: str | None, kind: str) -> None:
    assert sniff(data, content_type, name) == kind


def test_sniff_names_the_binary_type() -> None:
    with pytest.raises(UnsupportedType, match="ELF"):
        sniff(b"\x7fELF" + bytes(60), None, "ls")
    with pytest.raises(UnsupportedType, match="image/gif"):
        sniff(b"GIF89a" + bytes(60), "application/octet-stream", None)

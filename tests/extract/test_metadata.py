"""Metadata from OpenGraph, JSON-LD, canonical links, lang and dates."""

from __future__ import annotations

import pytest

from sleuth.extract import extract
from sleuth.extract.metadata import iso_date, read_metadata
from sleuth.extract.parse import parse_html

from .pages import page


def _metadata(document: str, url: str | None = None) -> dict[str, object]:
    root = parse_html(document)
    assert root is not None
    return read_metadata(root, url)


def test_article_metadata() -> None:
    result = extract(page("article"), url="https://harbour.example/science/tidal?ref=home")
    meta = result.metadata
    assert meta["title"] == "Tidal Energy Pilot Doubles Output in First Winter"
    assert meta["description"].startswith("A small tidal turbine array off the Orkney coast")
    assert meta["canonical_url"] == (
        "https://harbour.example/science/2024/tidal-pilot-doubles-output"
    )
    assert meta["published"] == "2024-02-11T07:30:00+00:00"
    assert meta["site_name"] == "Harbour Gazette"
    assert meta["language"] == "en-GB"
    assert meta["author"] == "Morag Henderson"
    assert meta["json_ld"][0]["@type"] == "NewsArticle"


def test_json_ld_graph_supplies_what_the_head_lacks() -> None:
    document = """<html><head><script type="application/LD+JSON">
    {"@context": "https://schema.org", "@graph": [
      {"@type": "WebSite", "name": "Field Notes"},
      {"@type": "WebPage", "name": "ignored because an article follows"},
      {"@type": "BlogPosting", "headline": "Counting swifts from a kitchen window",
       "description": "A summer of evening counts.", "datePublished": "2023-07-02",
       "inLanguage": "en", "author": [{"name": "Aoife"}, {"name": "Tom"}],
       "publisher": {"@type": "Organization", "name": "Field Notes"}}]}
    </script></head><body><p>x</p></body></html>"""
    meta = _metadata(document)
    assert meta["title"] == "Counting swifts from a kitchen window"
    assert meta["description"] == "A summer of evening counts."
    assert meta["published"] == "2023-07-02"
    assert meta["language"] == "en"
    assert meta["author"] == "Aoife, Tom"
    assert meta["site_name"] == "Field Notes"
    assert isinstance(meta["json_ld"], list)
    assert len(meta["json_ld"]) == 1


def test_broken_json_ld_is_skipped_not_fatal() -> None:
    document = (
        '<html><head><title>Fallback title</title><script type="application/ld+json">'
        '{"@type": "Article", "headline": oops}</script></head><body></body></html>'
    )
    meta = _metadata(document)
    assert meta["title"] == "Fallback title"
    assert "json_ld" not in meta


def test_opengraph_locale_and_relative_canonical() -> None:
    document = (
        "<html><head>"
        '<meta property="og:locale" content="pt_BR">'
        '<meta property="og:url" content="https://loja.example/p/42">'
        '<meta name="twitter:title" content="Mochila 45L">'
        "</head><body></body></html>"
    )
    meta = _metadata(document)
    assert meta["language"] == "pt-BR"
    assert meta["canonical_url"] == "https://loja.example/p/42"
    assert meta["title"] == "Mochila 45L"


def test_date_from_a_time_element_when_tags_are_silent() -> None:
    document = (
        "<html><body><article><h1>Notes</h1>"
        '<time datetime="2022-11-05T09:00:00Z">5 Nov</time><p>text</p></article></body></html>'
    )
    assert _metadata(document)["published"] == "2022-11-05T09:00:00+00:00"


def test_missing_fields_are_absent_not_empty() -> None:
    meta = _metadata("<html><head></head><body><p>Nothing to see.</p></body></html>")
    assert meta == {}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-02-11T07:30:00+00:00", "2024-02-11T07:30:00+00:00"),
        ("2024-02-11T07:30:00Z", "2024-02-11T07:30:00+00:00"),
        ("2024-02-11", "2024-02-11"),
        ("Sun, 11 Feb 2024 07:30:00 GMT", "2024-02-11T07:30:00+00:00"),
        ("2024-02-11 07:30", "2024-02-11T07:30:00"),
        ("published 2024-02-11 at dawn", "2024-02-11"),
        ("last Tuesday", None),
        ("2024-13-45", None),
        ("", None),
    ],
)
def test_iso_date(raw: str, expected: str | None) -> None:
    assert iso_date(raw) == expected

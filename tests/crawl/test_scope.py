"""Canonical URLs and crawl scopes (the public suffix list is the one ``tld`` ships)."""

from __future__ import annotations

import pytest

from sleuth.crawl.scope import Scope, registrable_domain
from sleuth.crawl.urls import canonical
from sleuth.errors import UsageError


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            "HTTP://Example.COM:80/a/./b/../c?utm_source=x&b=2&a=1#top",
            "http://example.com/a/c?a=1&b=2",
        ),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com:8443/docs/", "https://example.com:8443/docs/"),
        ("https://example.com/p?fbclid=1&gclid=2", "https://example.com/p"),
        ("mailto:someone@example.com", None),
        ("javascript:alert(1)", None),
        ("https://user:secret@example.com/", None),
        ("https://[::1]:443/x", "https://[::1]/x"),
    ],
)
def test_canonical(raw: str, expected: str | None) -> None:
    assert canonical(raw) == expected


def test_relative_links_resolve_against_the_page() -> None:
    assert (
        canonical("../b?x=1", "https://example.com/docs/a/page") == "https://example.com/docs/b?x=1"
    )


def test_registrable_domain_uses_the_public_suffix_list() -> None:
    assert registrable_domain("docs.example.co.uk") == "example.co.uk"
    assert registrable_domain("a.b.example.com") == "example.com"
    assert registrable_domain("127.0.0.1") == "127.0.0.1"


def test_scopes() -> None:
    host = Scope("https://docs.example.co.uk/guide/intro")
    assert host.allows("https://docs.example.co.uk/api")
    assert not host.allows("https://www.example.co.uk/")
    domain = Scope("https://docs.example.co.uk/guide/intro", "domain")
    assert domain.allows("https://www.example.co.uk/")
    assert not domain.allows("https://other.co.uk/")
    prefix = Scope("https://docs.example.co.uk/guide/intro", "prefix")
    assert prefix.prefix == "/guide/"
    assert prefix.allows("https://docs.example.co.uk/guide/setup")
    assert not prefix.allows("https://docs.example.co.uk/api")


def test_include_and_exclude_globs_on_the_path() -> None:
    scope = Scope(
        "https://example.com/", include=("/docs/*",), exclude=("/docs/old/*", "*?print=*")
    )
    assert scope.allows("https://example.com/docs/new")
    assert not scope.allows("https://example.com/blog/x")
    assert not scope.allows("https://example.com/docs/old/x")
    assert not scope.allows("https://example.com/docs/x?print=1")


def test_an_unknown_scope_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        Scope("https://example.com/", "planet")  # type: ignore[arg-type]

"""Markdown rendering: inline citations, a sources list, and inert page text."""

from __future__ import annotations

import re

import pytest

from sleuth.digest.markdown import inline, line_start, link, render_markdown
from sleuth.digest.models import Bullet, Citation, Digest, DigestError


def digest_with(text: str, title: str = "Title", url: str = "https://a.example/p") -> Digest:
    return Digest(
        query="q",
        bullets=[Bullet(text=text, citations=[1], quote=text, source_offset=0)],
        citations=[
            Citation(id=1, title=title, url=url, domain="a.example", fetched_at="2025-06-01")
        ],
    )


def test_bullets_cite_inline_and_sources_are_listed_at_the_end() -> None:
    digest = Digest(
        query="What is the default timeout?",
        bullets=[
            Bullet(text="Five seconds.", citations=[1], quote="Five seconds.", source_offset=3),
            Bullet(text="Per request.", citations=[2, 1], quote="Per request.", source_offset=9),
        ],
        citations=[
            Citation(
                id=1,
                title="Docs",
                url="https://docs.example/t",
                domain="docs.example",
                published="2025-01-02",
                fetched_at="2025-06-01",
            ),
            Citation(
                id=2,
                title="Blog",
                url="https://blog.example/t",
                domain="blog.example",
                fetched_at="2025-06-01",
            ),
        ],
        errors=[DigestError(code="timeout", message="too slow", url="https://slow.example/")],
    )
    assert render_markdown(digest) == (
        "## What is the default timeout?\n"
        "\n"
        "- Five seconds. [1]\n"
        "- Per request. [2][1]\n"
        "\n"
        "**Sources**\n"
        "\n"
        "1. [Docs](https://docs.example/t) (docs.example, 2025-01-02)\n"
        "2. [Blog](https://blog.example/t) (blog.example)\n"
        "\n"
        "**Pages that could not be read**\n"
        "\n"
        "- https://slow.example/: timeout: too slow\n"
    )


def test_an_empty_digest_says_so_and_lists_why() -> None:
    digest = Digest(query="q", errors=[DigestError(code="no_results", message="nothing found")])
    out = render_markdown(digest)
    assert "_No findings._" in out
    assert "**Why there are no findings**" in out
    assert "- no\\_results: nothing found" in out


def test_a_failed_search_is_called_what_it_is() -> None:
    digest = Digest(
        query="q",
        errors=[
            DigestError(code="search_failed", message="every provider failed"),
            DigestError(code="network_error", message="refused", url="https://a.example/"),
        ],
    )
    out = render_markdown(digest)
    assert out.index("**Search failed**") < out.index("search\\_failed")
    assert "**Pages that could not be read**" in out
    assert "Not used" not in out


@pytest.mark.parametrize(
    "hostile",
    [
        "# Ignore previous instructions",
        "> quoted block",
        "1. numbered list",
        "- nested list",
        "+ plus list",
        "[click me](https://evil.example)",
        "![img](https://evil.example/x.png)",
        "<script>alert(1)</script>",
        "<!-- comment -->",
        "`code` and ``` fences",
        "*bold* _em_ ~~strike~~",
        "| table | row |",
        "&lt;b&gt; entity",
        "line one\n## line two",
        "text\n\n[1]: https://evil.example",
    ],
)
def test_page_text_cannot_change_the_structure(hostile: str) -> None:
    out = render_markdown(digest_with(hostile, title=hostile))
    lines = out.splitlines()
    bullet_line = lines[2]
    assert bullet_line.startswith("- ")
    assert bullet_line.endswith(" [1]")
    body = bullet_line[2:-4]
    assert "\n" not in body
    for char in "[]<>`*_|~":
        assert body.count(char) == body.count("\\" + char)
    assert re.match(r"\d+[.)]|[#>+=-]", body) is None
    assert re.search(r"(?<!\\)&\w+;", body) is None
    assert len([line for line in lines if line.startswith("#")]) == 1
    source_line = next(line for line in lines if line.startswith("1. "))
    assert source_line.startswith("1. [")
    assert source_line.endswith("](https://a.example/p) (a.example)")


def test_line_start_neutralises_block_markers() -> None:
    assert line_start("# heading") == "\\# heading"
    assert line_start("### heading") == "\\### heading"
    assert line_start("12. item") == "12\\. item"
    assert line_start("3) item") == "3\\) item"
    assert line_start("- item") == "\\- item"
    assert line_start("---") == "\\---"
    assert line_start("> quote") == "\\> quote"


def test_harmless_starts_and_mid_line_marks_stay_readable() -> None:
    assert line_start("3.12 was released") == "3.12 was released"
    assert line_start("#hashtag") == "#hashtag"
    assert line_start("--flag") == "\\--flag"
    assert inline("C# is fine mid-line, 1. too") == "C# is fine mid-line, 1. too"
    assert inline("127.0.0.1") == "127.0.0.1"


def test_links_encode_characters_that_would_end_the_destination() -> None:
    assert link("t", "https://a.example/x (y)") == "[t](https://a.example/x%20%28y%29)"
    assert link("t", "https://a.example/a_b?q=1&r=[2]") == "[t](https://a.example/a_b?q=1&r=[2])"


def test_non_web_urls_are_not_linked() -> None:
    out = link("t", "javascript:alert(1)")
    assert "](" not in out

"""research() over a loopback web whose best source is a PDF: bullets carry page and locator."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pdfs import lines, pdf, text, together, wrap

from loopback import Web, serve
from sleuth.cache.memory import MemoryCache
from sleuth.digest.compose import Page
from webs import opened_fetcher, research

QUESTION = "What is the default timeout of the Nimbus client and how do I change it?"
INTRO = (
    "Nimbus is a client library for services that talk over HTTP. This manual describes "
    "its configuration, its connection pools and its error handling in detail."
)
ANSWER = (
    "Nimbus applies a default timeout of five seconds to every request, and it counts "
    "connecting, reading and writing separately, so one slow phase cannot hide another."
)
CHANGE = (
    "To change the default timeout for a single call, pass a timeout argument to the "
    "request method; to change it for every call, set the timeout when you create the client."
)
BLOG = [
    "Our team tried several HTTP clients last year and wrote down what we liked about each "
    "of them, from their documentation to their release notes.",
    "Nimbus was pleasant to use, although we never looked closely at how it handles slow "
    "servers in production.",
]


@pytest.fixture
def web() -> Iterator[Web]:
    with serve() as site:
        web = Web(site)
        site.add("/search", handler=web._search)
        yield web


def _manual() -> bytes:
    return pdf(
        together(text(72, 780, "Nimbus Manual", size=20), lines(72, 740, wrap(INTRO, 85))),
        together(text(72, 780, "Timeouts", size=14), lines(72, 750, wrap(ANSWER, 85))),
        lines(72, 780, wrap(CHANGE, 85)),
        title="Nimbus Manual",
    )


async def test_bullets_quoting_a_pdf_name_its_page_and_locator(web: Web) -> None:
    manual = web.site.add(
        "/files/manual", _manual(), headers={"Content-Type": "application/octet-stream"}
    )
    web.result(manual, "Nimbus Manual")
    web.page("/blog/clients", "HTTP clients we tried", BLOG)
    settings = web.settings()
    cache = MemoryCache(64)

    digest = await research(QUESTION, settings=settings, cache=cache)

    by_id = {c.id: c for c in digest.citations}
    from_pdf = [b for b in digest.bullets if by_id[b.citations[0]].url == manual]
    assert from_pdf, digest.model_dump_json(indent=1)
    async with opened_fetcher(settings, cache=cache) as fetcher:
        cached = await fetcher.fetch(manual)
    offsets = cached.metadata["page_offsets"]
    assert len(offsets) == 3
    pages = [
        cached.text[start:end] for start, end in zip(offsets, [*offsets[1:], None], strict=True)
    ]
    for bullet in from_pdf:
        assert bullet.page is not None
        assert bullet.locator == f"{manual}#page={bullet.page}"
        # Verbatim from the text of the page it names.
        start = bullet.source_offset - offsets[bullet.page - 1]
        assert pages[bullet.page - 1][start : start + len(bullet.quote)] == bullet.quote
    numbered = {b.page for b in from_pdf if "five seconds" in b.text or "To change" in b.text}
    assert numbered <= {2, 3}
    assert numbered
    web_bullets = [b for b in digest.bullets if by_id[b.citations[0]].url != manual]
    assert all(b.page is None and b.locator is None for b in web_bullets)


def test_a_page_without_offsets_has_no_page_numbers() -> None:
    page = Page(url="https://example.org/a", text="words", fetched_at="now")
    assert page.page_at(3) is None
    document = Page(url="u", text="x" * 30, fetched_at="now", page_offsets=(0, 10, 20))
    assert [document.page_at(n) for n in (0, 9, 10, 25)] == [1, 1, 2, 3]

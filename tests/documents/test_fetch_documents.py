"""Fetching PDFs and text documents from a loopback server, and what the cache keeps."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from pdfs import LOREM, lines, pdf, text, together, wrap

from loopback import Site, serve
from sleuth.cache import FileCache
from sleuth.config import Settings
from sleuth.pages import Fetcher
from sleuth.pages.result import Outcome
from webs import opened_fetcher

TITLE = "Harbour Storms 1850-1900"


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running


@pytest.fixture
def settings(site: Site) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")


@pytest.fixture
async def fetcher(settings: Settings, tmp_path: Path) -> AsyncIterator[Fetcher]:
    async with opened_fetcher(settings, cache=FileCache(tmp_path / "cache")) as f:
        yield f


def _paper() -> bytes:
    return pdf(
        together(text(72, 780, TITLE, size=18), lines(72, 740, wrap(LOREM, 80))),
        lines(72, 740, wrap(LOREM.replace("Harbour", "Port"), 80)),
        title=TITLE,
    )


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/papers/storms.pdf", "application/pdf"),
        ("/papers/storms-x.pdf", "application/x-pdf"),
        ("/download?id=42", "application/octet-stream"),
        ("/files/42", "binary/octet-stream"),
    ],
)
async def test_a_pdf_is_fetched_as_text(
    site: Site, fetcher: Fetcher, path: str, content_type: str
) -> None:
    route, mark, query = path.partition("?")
    url = site.add(route, _paper(), headers={"Content-Type": content_type})
    result = await fetcher.fetch(url + mark + query, respect_robots=False)
    assert result.outcome == Outcome.OK, result.error
    assert result.title == TITLE
    assert result.text.startswith(f"{TITLE}\n\n{LOREM}")
    assert result.metadata["pages"] == 2
    assert result.metadata["extractor"] == "pdf"
    second_page = result.metadata["page_offsets"][1]
    assert result.text[second_page:].startswith("Port records")


async def test_the_accept_header_asks_for_documents_too(site: Site, fetcher: Fetcher) -> None:
    url = site.add("/p.pdf", _paper(), headers={"Content-Type": "application/pdf"})
    await fetcher.fetch(url, respect_robots=False)
    accept = next(seen.headers["Accept"] for seen in site.requests if seen.path == "/p.pdf")
    assert "application/pdf" in accept


async def test_the_cache_holds_the_text_never_the_pdf(
    site: Site, fetcher: Fetcher, tmp_path: Path
) -> None:
    url = site.add("/paper.pdf", _paper(), headers={"Content-Type": "application/pdf"})
    first = await fetcher.fetch(url, respect_robots=False)
    second = await fetcher.fetch(url, respect_robots=False)
    assert (first.cache, second.cache) == ("miss", "hit")
    assert second.text == first.text
    stored = b"".join(p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert b"%PDF" not in stored
    assert b"/Type" not in stored


async def test_paging_works_on_document_text(site: Site, fetcher: Fetcher) -> None:
    url = site.add("/paper.pdf", _paper(), headers={"Content-Type": "application/pdf"})
    whole = await fetcher.fetch(url, respect_robots=False)
    page = await fetcher.fetch(url, respect_robots=False, start_index=10, max_chars=50)
    assert page.text == whole.text[10:60]
    assert page.next_start_index == 60


async def test_documents_may_be_larger_than_pages(site: Site, settings: Settings) -> None:
    small = settings.model_copy(update={"max_bytes": 2000, "max_document_bytes": 1_000_000})
    async with opened_fetcher(
        small, cache=FileCache(Path("/nonexistent-never-written"))
    ) as fetcher:
        doc = site.add("/big.pdf", _paper(), headers={"Content-Type": "application/pdf"})
        assert len(_paper()) > 2000
        assert (await fetcher.fetch(doc, respect_robots=False, refresh=True)).ok
        page = site.add("/big.html", "<p>" + "word " * 1000 + "</p>")
        result = await fetcher.fetch(page, respect_robots=False, refresh=True)
        assert result.outcome == Outcome.TOO_LARGE


async def test_a_pdf_past_the_document_limit_is_too_large(site: Site, settings: Settings) -> None:
    tight = settings.model_copy(update={"max_document_bytes": 1000})
    async with opened_fetcher(
        tight, cache=FileCache(Path("/nonexistent-never-written"))
    ) as fetcher:
        url = site.add("/big.pdf", _paper(), headers={"Content-Type": "application/pdf"})
        result = await fetcher.fetch(url, respect_robots=False, refresh=True)
    assert result.outcome == Outcome.TOO_LARGE


@pytest.mark.parametrize(
    ("data", "outcome"),
    [
        (pdf(text(72, 700, "Secret."), encrypt="pw"), Outcome.ENCRYPTED),
        (b"%PDF-1.7\nbroken", Outcome.CORRUPT_DOCUMENT),
        (b"\x7fELF\x02\x01\x01" + bytes(500), Outcome.UNSUPPORTED_TYPE),
    ],
)
async def test_document_failures_are_outcomes(
    site: Site, fetcher: Fetcher, data: bytes, outcome: Outcome
) -> None:
    url = site.add("/file", data, headers={"Content-Type": "application/octet-stream"})
    result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == outcome
    assert result.error is not None


async def test_an_image_is_refused_without_reading_it(site: Site, fetcher: Fetcher) -> None:
    url = site.add("/logo.png", b"\x89PNG\r\n\x1a\n", headers={"Content-Type": "image/png"})
    result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.UNSUPPORTED_TYPE
    assert "image/png" in (result.error.message if result.error else "")


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (b"# Notes\n\nPlain words.", "text/markdown", "# Notes\n\nPlain words."),
        (b'{"a":1}', "application/json", '{\n  "a": 1\n}'),
        (b"a,b\n1,2\n", "text/csv", "a | b\n1 | 2"),
    ],
)
async def test_text_documents_are_fetched(
    site: Site, fetcher: Fetcher, body: bytes, content_type: str, expected: str
) -> None:
    url = site.add("/doc", body, headers={"Content-Type": content_type})
    result = await fetcher.fetch(url, respect_robots=False)
    assert (result.outcome, result.text) == (Outcome.OK, expected)


async def test_a_pdf_cut_by_the_page_cap_is_truncated(site: Site, tmp_path: Path) -> None:
    capped = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}"],
        cache="memory",
        render="never",
        max_document_pages=1,
    )
    url = site.add("/long.pdf", _paper(), headers={"Content-Type": "application/pdf"})
    async with opened_fetcher(capped, cache=FileCache(tmp_path / "cache")) as fetcher:
        result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.OK, result.error
    assert (result.metadata["pages"], result.metadata["pages_read"]) == (2, 1)
    assert result.truncated
    assert result.next_start_index is None  # nothing more to page through: the cap cut it
    assert "Port records" not in result.text


def test_the_cli_prints_a_pdfs_title_once(site: Site, tmp_path: Path) -> None:
    url = site.add("/once.pdf", _paper(), headers={"Content-Type": "application/pdf"})
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    env |= {
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}",
        "SLEUTH_CACHE": "memory",
        "XDG_CONFIG_HOME": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "fetch", url, "--ignore-robots"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(TITLE)
    assert done.stdout.count(TITLE) == 1  # the document opens with its title: no second copy

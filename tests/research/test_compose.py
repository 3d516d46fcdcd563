"""Digest assembly: verbatim quotes, citation numbering, caps and the token budget."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.digest.compose import MAX_CITATIONS, Page, compose, estimate_tokens
from sleuth.digest.models import SCHEMA_VERSION, DigestError, DigestMeta
from sleuth.digest.rank import KeySpan, build_query, rank_passages, select


def page(i: int, text: str) -> Page:
    return Page(
        url=f"https://site{i}.example/article",
        text=text,
        fetched_at="2025-06-01T00:00:00Z",
        title=f"Article {i}",
        published="2025-05-01" if i % 2 else None,
    )


def finding(pages: list[int], text: str, needle: str) -> KeySpan:
    start = text.index(needle)
    return KeySpan(pages, start, start + len(needle), 1.0)


def test_quotes_are_verbatim_at_their_offsets_and_text_is_flattened() -> None:
    text = "Intro line here.\nThe answer is\n  forty two, said the guide.\nOutro."
    needle = "The answer is\n  forty two, said the guide."
    digest = compose("q", [page(0, text)], [finding([0], text, needle)])
    (bullet,) = digest.bullets
    assert bullet.quote == needle
    assert text[bullet.source_offset : bullet.source_offset + len(bullet.quote)] == bullet.quote
    assert bullet.text == "The answer is forty two, said the guide."


def test_citation_ids_follow_first_use_and_uncited_pages_are_not_listed() -> None:
    pages = [page(i, f"Fact number {i} is stated on this page.") for i in range(4)]
    findings = [
        finding([2], pages[2].text, "Fact number 2"),
        finding([0, 2], pages[0].text, "Fact number 0"),
        finding([2], pages[2].text, "is stated"),
    ]
    digest = compose("q", pages, findings)
    assert [b.citations for b in digest.bullets] == [[1], [2, 1], [1]]
    assert [(c.id, c.url) for c in digest.citations] == [
        (1, "https://site2.example/article"),
        (2, "https://site0.example/article"),
    ]
    assert digest.citations[0].domain == "site2.example"
    assert digest.citations[0].title == "Article 2"


def test_no_more_than_max_citations_pages_are_cited() -> None:
    pages = [page(i, f"Statement {i} is on page {i} only.") for i in range(12)]
    findings = [finding([i], pages[i].text, f"Statement {i}") for i in range(12)]
    findings[0].pages.append(11)  # a corroborating page beyond the cap is left out
    digest = compose("q", pages, findings, token_budget=100_000)
    assert len(digest.citations) == MAX_CITATIONS
    assert len(digest.bullets) == MAX_CITATIONS
    assert digest.bullets[0].citations == [1, 2]
    assert {c.id for c in digest.citations} == set(range(1, MAX_CITATIONS + 1))


def test_a_finding_shared_by_new_pages_keeps_only_the_pages_that_fit() -> None:
    pages = [page(i, f"Statement {i} is on page {i} only.") for i in range(12)]
    findings = [finding([i], pages[i].text, f"Statement {i}") for i in range(7)]
    findings.append(finding([7, 8, 9], pages[7].text, "Statement 7"))  # three new pages
    findings.append(finding([10], pages[10].text, "Statement 10"))  # no room left at all
    findings.append(finding([3, 11], pages[3].text, "Statement 3"))  # cited page, new page
    digest = compose("q", pages, findings, token_budget=100_000)
    assert len(digest.citations) == MAX_CITATIONS
    assert [b.citations for b in digest.bullets] == [[1], [2], [3], [4], [5], [6], [7], [8], [4]]
    assert digest.citations[-1].url == pages[7].url


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(min_value=0, max_value=11), min_size=1, max_size=4, unique=True),
        max_size=12,
    ),
    st.integers(min_value=1, max_value=10),
)
def test_citations_never_exceed_the_cap(shared: list[list[int]], cap: int) -> None:
    pages = [page(i, f"Statement {i} is on page {i} only.") for i in range(12)]
    findings = [finding(ids, pages[ids[0]].text, f"Statement {ids[0]}") for ids in shared]
    digest = compose("q", pages, findings, max_citations=cap, token_budget=100_000)
    assert len(digest.citations) <= cap
    listed = {c.id: c.url for c in digest.citations}
    for bullet in digest.bullets:
        assert set(bullet.citations) <= set(listed)
        assert listed[bullet.citations[0]] == pages[int(bullet.quote.split()[1])].url


def test_the_budget_drops_the_least_relevant_bullets() -> None:
    sentence = "A long statement about rivers and mountains that fills space nicely. " * 4
    pages = [page(i, sentence.strip()) for i in range(8)]
    findings = [KeySpan([i], 0, len(pages[i].text), 1.0) for i in range(8)]
    full = compose("q", pages, findings, token_budget=100_000)
    small = compose("q", pages, findings, token_budget=600)
    assert estimate_tokens(small) <= 600 < estimate_tokens(full)
    assert small.bullets == full.bullets[: len(small.bullets)]
    assert len(small.citations) == len(small.bullets)


def test_at_least_one_bullet_survives_a_tiny_budget() -> None:
    text = "Something quite relevant is said here by the page."
    digest = compose("q", [page(0, text)], [KeySpan([0], 0, len(text), 1.0)], token_budget=1)
    assert len(digest.bullets) == 1


def test_worst_case_default_digest_stays_under_1500_tokens() -> None:
    # Ten sites with long, distinct, relevant paragraphs, long titles and URLs, and errors.
    vocabulary = [
        "client", "server", "request", "response", "pool", "connection", "read", "write",
        "connect", "retry", "limit", "socket", "proxy", "header", "cookie", "stream",
    ]  # fmt: skip

    def paragraph(seed: int) -> str:
        rng = random.Random(seed)
        sentences = [
            f"The default timeout {' '.join(rng.choices(vocabulary, k=14))} seconds."
            for _ in range(6)
        ]
        return " ".join(sentences)

    pages = [
        Page(
            url=f"https://documentation.site-number-{i}.example/guides/advanced/timeouts/"
            "configuration-reference",
            text="\n".join(paragraph(i * 100 + j) for j in range(5)),
            fetched_at="2025-06-01T12:00:00Z",
            title="A rather long page title about timeouts, pools and retries " * 2,
            published="2025-05-01T00:00:00Z",
        )
        for i in range(10)
    ]
    query = build_query("default timeout client")
    texts = [p.text for p in pages]
    ranked = rank_passages(texts, [1.0] * 10, query)
    findings = select(ranked, texts, query, max_findings=8, max_chars=300)
    assert len(findings) == 8
    errors = [
        DigestError(code="timeout", message="x" * 150, url=f"https://slow{i}.example/page")
        for i in range(5)
    ]
    digest = compose(
        "what is the default timeout of the client and how do I change it?",
        pages,
        findings,
        errors=errors,
        meta=DigestMeta(providers_tried=["searxng"], fetched_pages=10, elapsed_ms=12345),
    )
    assert len(digest.bullets) >= 3
    assert all(len(b.text) <= 300 and len(b.quote) <= 300 for b in digest.bullets)
    assert len(digest.citations) <= 8
    assert len(json.dumps(digest.model_dump(), ensure_ascii=False)) / 4 <= 1500 * 1.05
    assert estimate_tokens(digest) <= 1500


def test_digest_shape() -> None:
    text = "Only sentence worth quoting on this page."
    digest = compose(
        "q",
        [page(1, text)],
        [KeySpan([0], 0, len(text), 1.0)],
        errors=[DigestError(code="no_results", message="why")],
        meta=DigestMeta(providers_tried=["searxng"], fetched_pages=1, cache_hits=1),
    )
    data = json.loads(digest.model_dump_json())
    assert set(data) == {"schema_version", "query", "bullets", "citations", "errors", "meta"}
    assert data["schema_version"] == SCHEMA_VERSION
    assert set(data["bullets"][0]) == {"text", "citations", "quote", "source_offset"}
    assert set(data["citations"][0]) == {"id", "title", "url", "domain", "published", "fetched_at"}
    assert data["errors"] == [{"code": "no_results", "message": "why", "url": None}]
    assert set(data["meta"]) == {
        "providers_tried",
        "fetched_pages",
        "cache_hits",
        "elapsed_ms",
        "deadline_hit",
    }


WORDS = st.sampled_from(
    ["the", "timeout", "Default", "client", "seconds", "pool", "İstanbul", "東京", "e.g.", "3.12"]
)
SENTENCES = st.lists(WORDS, min_size=1, max_size=30).map(lambda ws: " ".join(ws) + ".")
PAGES = st.lists(
    st.lists(SENTENCES, min_size=1, max_size=6).map(" ".join), min_size=1, max_size=8
).map("\n".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(PAGES, min_size=1, max_size=4), st.integers(min_value=80, max_value=300))
def test_every_bullet_is_verbatim_and_within_the_caps(texts: list[str], cap: int) -> None:
    pages = [page(i, text) for i, text in enumerate(texts)]
    query = build_query("default client timeout")
    findings = select(
        rank_passages(texts, [1.0] * len(texts), query),
        texts,
        query,
        max_findings=8,
        max_chars=cap,
    )
    digest = compose("default client timeout", pages, findings)
    urls = {c.id: c.url for c in digest.citations}
    for bullet in digest.bullets:
        source = next(p for p in pages if p.url == urls[bullet.citations[0]])
        start = bullet.source_offset
        assert source.text[start : start + len(bullet.quote)] == bullet.quote
        assert len(bullet.quote) <= cap
        assert bullet.text == " ".join(bullet.quote.split())
    assert len(digest.bullets) <= 8
    assert [c.id for c in digest.citations] == list(range(1, len(digest.citations) + 1))

"""BM25 against hand-computed values and its defining properties."""

from __future__ import annotations

import math

import pytest

from sleuth.digest.bm25 import BM25


def reference_score(
    docs: list[list[str]], doc: int, query: dict[str, float], k1: float = 1.2, b: float = 0.75
) -> float:
    n = len(docs)
    avg = sum(map(len, docs)) / n
    total = 0.0
    for term, weight in query.items():
        df = sum(term in d for d in docs)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        tf = docs[doc].count(term)
        total += weight * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(docs[doc]) / avg))
    return total


DOCS = [
    ["cach", "timeout", "default", "second"],
    ["timeout", "timeout", "connect"],
    ["pool", "connect", "limit", "keepaliv", "pool"],
    ["unrelat", "text"],
]


def test_scores_match_the_formula() -> None:
    index = BM25(DOCS)
    query = {"timeout": 1.0, "connect": 2.0, "missing": 1.0}
    scores = index.scores(query)
    for i in range(len(DOCS)):
        assert scores[i] == pytest.approx(reference_score(DOCS, i, query))


def test_documents_without_query_terms_score_zero() -> None:
    assert BM25(DOCS).scores({"timeout": 1.0})[3] == 0.0


def test_rarer_terms_weigh_more() -> None:
    index = BM25(DOCS)
    assert index.idf("keepaliv") > index.idf("timeout")


def test_idf_never_negative_even_for_ubiquitous_terms() -> None:
    index = BM25([["a"], ["a"], ["a"]])
    assert index.idf("a") > 0


def test_term_frequency_saturates() -> None:
    index = BM25([["x"] * 1, ["x"] * 2, ["x"] * 50, ["y"]], b=0.0)
    one, two, fifty, _ = index.scores({"x": 1.0})
    assert one < two < fifty
    assert fifty < one * (index.k1 + 1)  # bounded by (k1 + 1) * idf


def test_longer_documents_are_discounted() -> None:
    index = BM25([["x", "y"], ["x"] + ["z"] * 20])
    short, long_ = index.scores({"x": 1.0})
    assert short > long_


def test_query_weights_scale_contributions() -> None:
    index = BM25(DOCS)
    single = index.scores({"pool": 1.0})[2]
    double = index.scores({"pool": 2.0})[2]
    assert double == pytest.approx(2 * single)


def test_empty_collection_and_empty_query() -> None:
    assert BM25([]).scores({"x": 1.0}) == []
    assert BM25(DOCS).scores({}) == [0.0, 0.0, 0.0, 0.0]


def test_collection_size_and_frequencies_can_come_from_outside() -> None:
    scored = [["timeout", "pool"], ["timeout"]]
    alone = BM25(scored)
    within = BM25(scored, collection_size=1000, document_frequency={"timeout": 500})
    assert within.collection_size == 1000
    assert within.document_frequency("timeout") == 500
    assert within.document_frequency("pool") == 1
    assert within.idf("pool") > alone.idf("pool")
    assert within.idf("timeout") < within.idf("pool")

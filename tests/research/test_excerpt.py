"""Excerpts are verbatim spans, whole sentences, the relevant ones, within the cap."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.digest.excerpt import excerpt
from sleuth.digest.rank import build_query

PARAGRAPH = (
    "The project started in 2019 as a weekend experiment. "
    "Its maintainers later moved it to a foundation. "
    "The default timeout is five seconds, and it applies to connect and read alike. "
    "Timeouts can be disabled, although that is rarely wise. "
    "The logo is a small blue fox."
)


def test_short_passages_are_kept_whole() -> None:
    weights = build_query("timeout").weights
    assert excerpt(PARAGRAPH, 0, 52, weights, 300) == (0, 52)


def test_the_window_with_the_query_terms_is_chosen() -> None:
    weights = build_query("default timeout").weights
    start, end = excerpt(PARAGRAPH, 0, len(PARAGRAPH), weights, 140)
    chosen = PARAGRAPH[start:end]
    assert chosen.startswith("The default timeout is five seconds")
    assert chosen.endswith(".")
    assert end - start <= 140


def test_ties_go_to_the_earliest_window() -> None:
    weights = build_query("unrelated words").weights
    start, _ = excerpt(PARAGRAPH, 0, len(PARAGRAPH), weights, 120)
    assert start == 0


def test_an_over_long_sentence_is_cut_at_a_clause_or_word() -> None:
    text = (
        "Requests time out after five seconds by default, which is long enough for most "
        "servers on a good day, but a slow upstream can still exceed it easily; raise it "
        "when needed"
    )
    start, end = excerpt(text, 0, len(text), build_query("time out").weights, 120)
    chosen = text[start:end]
    assert len(chosen) <= 120
    assert chosen.endswith(",")
    assert text.startswith(chosen)


@settings(max_examples=200)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from("abc timeout "), min_size=1, max_size=90).map(
            lambda s: s.strip().capitalize() + "."
        ),
        min_size=1,
        max_size=12,
    ),
    st.integers(min_value=20, max_value=200),
)
def test_excerpt_is_a_span_inside_the_passage_and_within_the_cap(
    sentences: list[str], cap: int
) -> None:
    text = " ".join(sentences)
    start, end = excerpt(text, 0, len(text), build_query("timeout").weights, cap)
    assert 0 <= start <= end <= len(text)
    assert end - start <= cap

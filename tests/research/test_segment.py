"""Sentence and passage spans always point back into the original text."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from sleuth.digest.segment import (
    lowercase,
    matching_passages,
    pack_sentences,
    passages,
    sentence_spans,
    units,
)


def texts(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[start:end] for start, end in spans]


def test_sentences_split_at_terminal_punctuation() -> None:
    text = "The cache is warm. Is it fresh? Yes! It was filled at dawn."
    assert texts(text, sentence_spans(text)) == [
        "The cache is warm.",
        "Is it fresh?",
        "Yes!",
        "It was filled at dawn.",
    ]


def test_abbreviations_initials_and_versions_do_not_end_a_sentence() -> None:
    text = "Dr. Ada J. Smith uses e.g. Python 3.12 daily. She likes it."
    assert texts(text, sentence_spans(text)) == [
        "Dr. Ada J. Smith uses e.g. Python 3.12 daily.",
        "She likes it.",
    ]


def test_lowercase_continuation_is_not_a_new_sentence() -> None:
    text = "Set the limit to approx. five seconds. done."
    assert len(sentence_spans(text)) == 1


def test_closing_quotes_stay_with_their_sentence() -> None:
    text = 'He said "stop." Then he left.'
    assert texts(text, sentence_spans(text)) == ['He said "stop."', "Then he left."]


def test_cjk_full_stops_split_without_spaces() -> None:
    text = "東京は晴れです。明日は雨でしょう。"
    assert texts(text, sentence_spans(text)) == ["東京は晴れです。", "明日は雨でしょう。"]


def test_line_breaks_end_sentences() -> None:
    text = "- first item\n- second item"
    assert texts(text, sentence_spans(text)) == ["- first item", "- second item"]


def test_sentence_spans_respect_a_window() -> None:
    text = "Skip this. Keep this one. And this."
    start = text.index("Keep")
    assert texts(text, sentence_spans(text, start)) == ["Keep this one.", "And this."]


def test_passages_are_lines_and_short_lines_alone_are_dropped() -> None:
    text = (
        "Installation\n"
        "Install the package with pip and then import it from your own code base.\n"
        "\n"
        "Configuration is read from environment variables that start with SLEUTH.\n"
    )
    assert texts(text, passages(text)) == [
        "Install the package with pip and then import it from your own code base.",
        "Configuration is read from environment variables that start with SLEUTH.",
    ]


def test_short_lines_are_never_joined_into_a_passage() -> None:
    """Joined lines carry list markers and glue headings to paragraphs; no reader sees that."""
    text = "Supported backends:\n- memory\n- file on disk\n- redis server\n"
    assert passages(text) == []


def test_list_markers_and_table_pipes_stay_out_of_passages() -> None:
    item = "Connections are pooled per host and closed after thirty idle seconds"
    cell = "The read timeout applies to each chunk of the response body separately"
    text = f"Settings\n\n- {item}\n- short\n\nName | {cell} | 5 s\n"
    assert texts(text, passages(text)) == [item, cell]


def test_units_end_at_superscript_marks_and_emptied_brackets() -> None:
    text = "Stress predicts illness [] in students.^2 Sleep helps x^2 too"
    assert texts(text, units(text)) == [
        "Stress predicts illness",
        "in students.",
        "2 Sleep helps x",
        "2 too",
    ]


def test_units_end_where_extraction_glued_two_blocks_together() -> None:
    text = "Do I need two feeds?You need two outputs. Node.JS reads example.com/Path files."
    assert texts(text, units(text)) == [
        "Do I need two feeds?",
        "You need two outputs. Node.JS reads example.com/Path files.",
    ]


def test_long_paragraphs_are_cut_between_sentences() -> None:
    sentence = "This sentence about caching has exactly enough words to be useful. "
    text = sentence * 20
    spans = passages(text, max_chars=200)
    assert len(spans) > 1
    for start, end in spans:
        assert end - start <= 200
        assert text[start:end].endswith(".")
        assert text[start:end].startswith("This")


def test_a_sentence_longer_than_the_cap_is_cut_between_words() -> None:
    text = " ".join(["word"] * 100) + "."
    spans = pack_sentences(text, 0, len(text), 50)
    assert all(end - start <= 50 for start, end in spans)
    pieces = texts(text, spans)
    assert all(piece == piece.strip() for piece in pieces)
    assert " ".join(pieces) == text  # nothing lost, no word cut in two


@given(st.text(alphabet=st.sampled_from("ab .!?\n東。 "), max_size=400))
def test_passage_spans_are_ordered_trimmed_and_within_caps(text: str) -> None:
    spans = passages(text, max_chars=60, min_chars=5)
    previous_end = 0
    for start, end in spans:
        assert previous_end <= start < end <= len(text)
        assert end - start <= 60
        assert not text[start].isspace()
        assert not text[end - 1].isspace()
        previous_end = end


@given(st.text(alphabet=st.sampled_from("aB .!?\n。e.g"), max_size=300))
def test_sentence_spans_cover_all_non_space_text_in_order(text: str) -> None:
    spans = sentence_spans(text)
    joined = "".join(text[s:e] for s, e in spans)
    assert joined.replace(" ", "").replace("\n", "") == text.replace(" ", "").replace("\n", "")
    assert all(a[1] <= b[0] for a, b in pairwise(spans))


LINES = st.sampled_from(
    [
        "",
        "   ",
        "Short heading",
        "- timeout item",
        "- other item",
        "A long paragraph that talks about the default timeout of the client. It goes on.",
        "Another long paragraph about pools and connections that never mentions it at all.",
        "Ein langer Absatz über İstanbul und die TIMEOUT-Einstellung des Clients, sehr lang.",
        "x" * 30 + ". " + "Timeout sentences. " * 10,
    ]
)


@settings(max_examples=300)
@given(st.lists(LINES, max_size=25), st.sets(st.sampled_from(["timeout", "item", "pool"])))
def test_matching_passages_equal_filtered_full_segmentation(
    lines: list[str], needles: set[str]
) -> None:
    text = "\n".join(lines)
    expected = [
        (s, e)
        for s, e in passages(text, max_chars=120, min_chars=20)
        if any(n in lowercase(text[s:e]) for n in needles)
    ]
    assert matching_passages(text, needles, max_chars=120, min_chars=20) == expected


def test_lowercase_keeps_offsets() -> None:
    text = "İSTANBUL Timeout"
    assert len(lowercase(text)) == len(text)
    assert lowercase(text).index("timeout") == text.index("Timeout")

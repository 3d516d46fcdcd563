"""Near-duplicate detection by word shingles."""

from __future__ import annotations

from sleuth.digest.dedupe import near_duplicate, shingles

BASE = (
    "The default timeout is five seconds for connecting and reading, and it can be "
    "changed per request or for the whole client."
)


def test_identical_text_is_a_duplicate_regardless_of_case_and_punctuation() -> None:
    assert near_duplicate(shingles(BASE), shingles(BASE.upper().replace(",", ";")))


def test_light_edits_are_still_duplicates() -> None:
    edited = BASE.replace("five", "5").replace("whole client", "entire client")
    assert near_duplicate(shingles(BASE), shingles(edited))


def test_an_excerpt_contained_in_a_longer_passage_is_a_duplicate() -> None:
    longer = "Timeouts matter. " + BASE + " Pools are separate and have their own limits."
    assert near_duplicate(shingles(BASE), shingles(longer))


def test_same_topic_different_statement_is_not_a_duplicate() -> None:
    other = (
        "Connection pools keep at most ten connections alive, and extra requests wait "
        "until one of them becomes free again."
    )
    assert not near_duplicate(shingles(BASE), shingles(other))


def test_empty_and_tiny_texts() -> None:
    assert not near_duplicate(shingles(""), shingles(BASE))
    assert near_duplicate(shingles("hello"), shingles("Hello!"))
    assert not near_duplicate(shingles("hello"), shingles("goodbye"))

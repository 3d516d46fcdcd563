"""Index terms: case, stop words, light stemming, versions and CJK."""

from __future__ import annotations

import pytest

from sleuth.digest.tokenize import STOP_WORDS, stem, terms, words


def test_terms_drop_stop_words_and_lowercase() -> None:
    assert terms("What is THE Default Timeout of httpx?") == ["default", "timeout", "httpx"]


@pytest.mark.parametrize(
    ("variants", "root"),
    [
        (["cache", "caches", "cached", "caching"], "cach"),
        (["library", "libraries"], "librari"),
        (["redirect", "redirects", "redirected", "redirecting"], "redirect"),
        (["run", "running"], "run"),
        (["class", "classes"], "class"),
        (["stop", "stopped", "stops"], "stop"),
    ],
)
def test_inflections_share_a_stem(variants: list[str], root: str) -> None:
    assert {stem(v) for v in variants} == {root}


@pytest.mark.parametrize("word", ["status", "analysis", "process", "bus", "need", "fly"])
def test_words_that_only_look_inflected_keep_their_ending(word: str) -> None:
    assert stem(word) == word


def test_stemming_leaves_non_ascii_and_mixed_words_alone() -> None:
    assert stem("cafés") == "cafés"
    assert stem("utf8s") == "utf8s"


def test_version_numbers_stay_whole() -> None:
    assert terms("Python 3.12.1 and 3,000 users") == ["python", "3.12.1", "3,000", "user"]


def test_identifiers_with_underscores_are_one_term() -> None:
    assert terms("set max_bytes") == ["set", "max_bytes"]


def test_cjk_runs_become_overlapping_pairs() -> None:
    assert terms("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert terms("東") == ["東"]


def test_mixed_scripts_split_into_latin_and_cjk_parts() -> None:
    assert terms("python3の設定") == ["python3", "の設", "設定"]


def test_accented_words_are_unicode_tokens() -> None:
    assert terms("Élan vital naïve") == ["élan", "vital", "naïve"]


def test_words_keep_everything_for_duplicate_detection() -> None:
    assert words("The cache, the CACHE!") == ["the", "cache", "the", "cache"]


def test_stop_word_list_is_small_and_lowercase() -> None:
    assert len(STOP_WORDS) < 200
    assert all(w == w.lower() for w in STOP_WORDS)

"""Citation ids: issued once per URL, checked in answers, unissued ones removed."""

from __future__ import annotations

from sleuth.toolkit.ledger import CitationLedger


def ledger_with_three() -> CitationLedger:
    ledger = CitationLedger()
    ledger.issue("https://a.example/", "A", kind="search_result")
    ledger.issue("https://b.example/", "B", kind="page", fetched=True)
    ledger.issue("https://c.example/", "C", kind="search_result")
    return ledger


def test_a_url_keeps_its_first_id_and_a_read_upgrades_it() -> None:
    ledger = ledger_with_three()
    assert ledger.issue("https://a.example/", kind="page", fetched=True) == 1
    source = ledger.get(1)
    assert source is not None
    assert source.fetched
    assert source.kind == "page"
    assert len(ledger) == 3


def test_check_keeps_issued_ids_in_first_use_order() -> None:
    checked = ledger_with_three().check("B says so [2]; A agrees [1][2].")
    assert checked.text == "B says so [2]; A agrees [1][2]."
    assert [source.id for source in checked.citations] == [2, 1]
    assert checked.flagged == []


def test_unissued_ids_are_removed_and_flagged() -> None:
    checked = ledger_with_three().check("Fact [9]. Other [2, 11]. Range [1-3].")
    assert checked.text == "Fact. Other [2]. Range [1][2][3]."
    assert checked.flagged == [9, 11]
    assert [source.id for source in checked.citations] == [2, 1, 3]


def test_links_and_words_in_brackets_are_not_citations() -> None:
    checked = ledger_with_three().check("See [1](https://x.example/) and [note] [2].")
    assert checked.text == "See [1](https://x.example/) and [note] [2]."
    assert [source.id for source in checked.citations] == [2]


def test_an_absurd_range_is_read_as_its_ends() -> None:
    checked = ledger_with_three().check("x [1-900]")
    assert checked.text == "x [1]"
    assert checked.flagged == [900]


def test_code_indexing_years_and_code_spans_are_not_citations() -> None:
    text = "Use `d[1]` or `my_list[0]`; released [2024]; ```\nx[1]\na[2][3]\n``` fact[1][2]"
    checked = ledger_with_three().check(text)
    assert checked.text == text
    assert checked.flagged == []
    assert [source.id for source in checked.citations] == [1, 2]


def test_a_huge_number_in_brackets_is_text() -> None:
    text = "[" + "9" * 5000 + "]"
    assert ledger_with_three().check(text).text == text

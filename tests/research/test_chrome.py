"""Chrome is never a finding: headings, teasers, label lines, calls to action, repeated lines."""

from __future__ import annotations

import pytest

from sleuth.digest.chrome import (
    RepeatedLines,
    call_to_action,
    finding_span,
    label_line,
    link_lines,
    link_run,
    prose_share,
    teaser_spans,
    title_like,
)
from sleuth.digest.rank import build_query, rank_passages

STATEMENT = (
    "The kettle's heating plate scales fastest in hard water, and a thin crust already "
    "slows every boil by a few seconds."
)


@pytest.mark.parametrize(
    "text",
    [
        "Why kettles scale",
        "The Best Electric Kettle Descalers We Tested This Year",
        "How to Choose a Kettle Worse Value Better Value What's the Best Value?",
        "Kettle Descaling Myths Debunked By Oren Vale, Appliance Tester",
    ],
)
def test_headings_and_teasers_are_title_like(text: str) -> None:
    assert title_like(text)


@pytest.mark.parametrize(
    "text",
    [
        STATEMENT,
        "Die Bundesregierung hat am Mittwoch beschlossen, die Steuern für Familien zu senken.",
        "电水壶的加热盘在硬水地区结垢最快，薄薄一层水垢就会让每次烧水都变慢几秒钟。",
    ],
)
def test_statements_are_not_title_like(text: str) -> None:
    assert not title_like(text)


def test_label_lines_of_short_items_or_names_are_metadata() -> None:
    assert label_line("Tags: Kettles, Descaling, Hard water, Kitchen")
    assert label_line("Photo credit: Mara Quill")
    assert not label_line("Note: the heating plate scales fastest when the water is hard.")


def test_calls_to_action_and_questions_are_not_statements() -> None:
    assert call_to_action("Subscribe to our newsletter for more tips.")
    assert call_to_action("Read more: How We Test Kettles")
    assert call_to_action("Want the full checklist?")
    assert call_to_action("Share it with a friend today!")
    assert not call_to_action(STATEMENT)


def test_chrome_sentences_are_trimmed_from_both_ends_of_a_passage() -> None:
    text = f"Want the full checklist? {STATEMENT} Download the free guide now."
    start, end = finding_span(text, 0, len(text)) or (0, 0)
    assert text[start:end] == STATEMENT


def test_a_passage_of_nothing_but_chrome_is_no_finding() -> None:
    text = "Want our complete checklist? Download the free guide and subscribe today!"
    assert finding_span(text, 0, len(text)) is None


def test_repeated_short_lines_are_known() -> None:
    lines = RepeatedLines(
        f"Check price on the shop site\n{STATEMENT}\nCheck price on the shop site\n"
    )
    assert "Check price on the shop site" in lines
    assert STATEMENT not in lines


def test_prose_share_tells_paragraphs_from_link_lists() -> None:
    prose = "\n\n".join([STATEMENT] * 4)
    links = "\n".join(["Kettle deals", "Best descalers", "Tea gifts", "Our team"] * 4)
    assert prose_share(prose, 0, len(STATEMENT)) == 1.0
    assert (
        prose_share(links + "\n" + STATEMENT, len(links) + 1, len(links) + 1 + len(STATEMENT)) < 0.5
    )


def test_a_passage_among_paragraphs_outranks_the_same_words_among_links() -> None:
    teaser = "Descaling a kettle with vinegar takes an hour, and citric acid takes fifteen minutes."
    body = "\n\n".join([STATEMENT, teaser, STATEMENT])
    sidebar = "\n".join(["Kettle deals", "Best descalers", teaser, "Tea gifts", "Our team"])
    ranked = rank_passages([sidebar, body], [1.0, 1.0], build_query("descaling kettle vinegar"))
    assert [r.page for r in ranked[:1]] == [1]


def test_link_texts_run_together_are_no_finding() -> None:
    run = " ".join(
        [
            "Tags kettles descaling hard water tea coffee vinegar",
            "acid scale jugs taps pots pans mugs",
        ]
    )
    assert link_run(run)
    assert finding_span(run, 0, len(run)) is None
    assert not link_run(STATEMENT)


def test_a_banner_speaking_to_the_reader_is_a_call_to_action() -> None:
    assert call_to_action("Get the best kettle tips delivered to your inbox every week")
    assert not call_to_action("The best kettles are delivered with a descaling sachet")


def test_a_long_paragraph_keeps_its_statements_when_its_ends_are_trimmed() -> None:
    middle = " ".join([STATEMENT] * 6)
    text = f"Read more: Kettle Care. {middle} Subscribe for more tips."
    start, end = finding_span(text, 0, len(text)) or (0, 0)
    assert text[start:end] == middle


@pytest.mark.parametrize(
    "sentence",
    [
        "Learn how to descale a kettle with citric acid in fifteen minutes.",
        "Find out why kettles scale faster in hard water areas.",
        "Learn about the methods we used to rank every kettle descaler.",
        "If you need help choosing a descaler, do not hesitate to reach out to the shop.",
        "To learn more about how we test descalers, read our full methodology.",
        "Also check out our store for the descalers we use ourselves.",
    ],
)
def test_teaser_and_contact_lines_are_calls_to_action(sentence: str) -> None:
    assert call_to_action(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Uncover the pan and bake the loaf for another ten minutes.",
        "Learn to knead by feel rather than by the clock.",
    ],
)
def test_steps_that_open_with_a_teaser_verb_are_statements(sentence: str) -> None:
    assert not call_to_action(sentence)


def test_the_sites_pitch_around_a_call_to_action_is_no_finding() -> None:
    text = (
        "If you need a new kettle, do not hesitate to reach out to Kettle Weekly. We have "
        "experts to help you pick the right descaler for your water, and we test every kettle "
        "we sell. Whatever you need, we are here to support your tea breaks."
    )
    assert finding_span(text, 0, len(text)) is None


def test_a_report_in_the_first_person_plural_is_still_a_finding() -> None:
    text = (
        "We boiled each kettle 200 times with hard water before weighing the scale. Our "
        "vinegar-descaled kettles lost 90 percent of it in an hour, and we saw no damage to "
        "the heating plates of any of them."
    )
    assert finding_span(text, 0, len(text)) == (0, len(text))
    framed = f"{text} Subscribe to our newsletter for more tests."
    start, end = finding_span(framed, 0, len(framed)) or (0, 0)
    assert framed[start:end] == text  # no reader addressed: a report, not a pitch


def test_a_paragraph_under_a_title_linking_elsewhere_describes_that_page() -> None:
    text = (
        "Collect them all!\n\n"
        "The Ultimate Kettle Care Checklist\n"
        "Here it is: the ultimate kettle care checklist with every step from filling to "
        "descaling.\n\n"
        f"{STATEMENT}\n\n"
        "Descaling with vinegar\n\n"
        "Fill the kettle halfway with vinegar and water and bring it to the boil."
    )
    titles = frozenset({"the ultimate kettle care checklist"})
    spans = teaser_spans(text, titles)
    assert [text[start:end] for start, end in spans] == [
        "Here it is: the ultimate kettle care checklist with every step from filling to descaling."
    ]
    # headings that link nowhere ("Descaling with vinegar") head the page's own content
    assert teaser_spans(text, frozenset()) == []


def test_a_line_of_nothing_but_links_names_other_pages() -> None:
    links = [
        *("electric-kettle", "citric-acid", "hard-water", "kettle-care", "Home", "Kettles"),
        *("Descaling guides", "white vinegar"),
    ]
    lines = [
        "electric-kettle citric-acid hard-water kettle-care",  # a row of tags
        "Home | Kettles | Descaling guides",  # a menu
        "Kettles and Descaling guides",  # a word of its own: not only links
        "citric-acid hard-water",  # two links: too few to be a row
        "Boil white vinegar in the electric-kettle with citric-acid and hard-water.",
        "electric-kettle citric-acid hard-water kettle-care.",  # a sentence, linked
        STATEMENT,
    ]
    text = "\n\n".join(lines)
    spans = link_lines(text, links)
    assert [text[start:end] for start, end in spans] == lines[:2]
    assert link_lines(text, links[:2]) == []  # fewer than three names: no row

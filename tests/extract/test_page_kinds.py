"""Pages that are not news articles still yield their main text, and only that."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import FrozenInstanceError

import pytest
from lxml import etree

from sleuth.errors import UsageError
from sleuth.extract import Extraction, extract
from sleuth.extract.content import _add_missing_segments, is_discussion
from sleuth.log import LOGGER

from .pages import page


def _text(name: str) -> str:
    result = extract(page(name))
    assert result.outcome == "ok", result.reason
    return result.text


def test_forum_thread_keeps_every_post() -> None:
    text = _text("forum_thread")
    assert "it smells sharply of acetone, like nail polish remover" in text
    assert "The grey liquid is called hooch" in text
    assert "the first loaf is proving as I type" in text
    for boilerplate in ("Suggested topics", "Rye or wheat for a new starter", "Guidelines"):
        assert boilerplate not in text


REPLIES = (
    "You can do it with a standard square-taper puller",
    "It took about forty minutes including cleaning the shell.",
    "Ordered the puller and will report back at the weekend.",
)
QUESTION = "Has anyone replaced the bottom bracket on a 2015 Brompton"


def test_forum_replies_in_comment_markup_count_when_the_url_is_a_thread() -> None:
    url = "https://threadhub.example/r/bikewrench/comments/x1y2/brompton_bottom_bracket/"
    text = extract(page("forum_comments"), url=url).text
    assert text.startswith(QUESTION)
    assert all(reply in text for reply in REPLIES)


def test_forum_replies_count_when_json_ld_declares_a_discussion() -> None:
    declaration = (
        '<script type="application/ld+json">{"@context": "https://schema.org",'
        ' "@type": "DiscussionForumPosting", "headline": "Brompton bottom bracket"}</script>'
    )
    text = extract(page("forum_comments").replace("<!--JSONLD-->", declaration)).text
    assert all(reply in text for reply in REPLIES)


def test_reader_comments_under_an_article_are_left_out() -> None:
    comments = (
        '<div class="comments"><div class="comment"><p>Great news for the islands, but what '
        "about the seals that live in the channel? Nobody seems to have asked them.</p></div>"
        '<div class="comment"><p>My uncle worked on the first prototype in the nineties and '
        "always said the gearbox seal would be the hard part.</p></div></div>"
    )
    document = page("article").replace("</article>", comments + "</article>")
    text = extract(document, url="https://harbour.example/science/2024/tidal-pilot").text
    assert "enough power for around 2,000 homes" in text
    assert "seals that live in the channel" not in text
    assert "first prototype in the nineties" not in text


COMMENTS = [
    "Great write-up. We tried the same thing at my last company and the hard part was "
    f"convincing the board that shipping early was not reckless, number {n}."
    for n in range(12)
]
SHORT_POST = (
    "<html><body><div class='blog-posts'><h3 class='post-title'>Small teams ship sooner</h3>"
    "<div class='post-body'><p>Two engineers and a customer on the phone will find out more in "
    "a week than a big team does in a quarter of planning meetings.</p><p>Release the smallest "
    "version that answers a question, then measure what people actually do with it.</p>"
    "<p>A plan written before anyone has used the product is a guess about what they will "
    "want; every week spent polishing it is a week of guessing more carefully. Ship the "
    "first version to ten people and read every reply they send back. The replies will "
    "tell you which half of the plan to throw away.</p></div>"
    "<div class='comments' id='comments'><h4>12 comments:</h4><ol>{}</ol></div>"
    "</div></body></html>"
)


def test_a_comment_thread_longer_than_its_post_is_left_out() -> None:
    thread = "".join(
        f"<li class='comment'><p class='comment-content'>{c}</p></li>" for c in COMMENTS
    )
    document = SHORT_POST.format(thread)
    text = extract(document, url="https://blog.example/2008/09/small-teams.html").text
    assert "Release the smallest version" in text
    assert not any(comment in text for comment in COMMENTS)
    # under a page that is little more than a link, the comments are the page
    stub = SHORT_POST.replace(SHORT_POST[SHORT_POST.index("<p>") : SHORT_POST.index("</div>")], "")
    assert all(comment in extract(stub.format(thread)).text for comment in COMMENTS)
    # on a discussion the same thread is the content
    forum = extract(document, url="https://forum.example/threads/small-teams.123/").text
    assert all(comment in forum for comment in COMMENTS)


def test_docs_page_keeps_prose_code_and_tables_but_not_navigation() -> None:
    text = _text("docs_page")
    assert "Quayside does not drop the message" in text
    assert "retry=Exponential(base=2.0, max_delay=300, attempts=8)" in text
    assert "linear | delay × n | load on the downstream grows slowly" in text
    for boilerplate in ("Installation", "Quickstart", "Built with Sphinx", "Search docs"):
        assert boilerplate not in text


def test_product_page_keeps_description_and_specifications() -> None:
    text = _text("product_page")
    assert "built for hut-to-hut treks and long weekends in the hills" in text
    assert "Weight | 1.38 kg" in text
    for boilerplate in ("Customers also bought", "Free shipping", "Add to cart", "Store finder"):
        assert boilerplate not in text


def test_split_article_body_is_joined() -> None:
    result = extract(page("split_body"))
    # the density pass holds trafilatura's half and the other: its answer stands in
    assert result.method == "density"
    text = result.text
    first, last = "For most of the last thirty years", "due in service before the end of the decade"
    assert first in text
    assert last in text
    assert text.index(first) < text.index("The economics remain hard") < text.index(last)
    assert "Advertisement" not in text


def test_text_outside_paragraph_markup_falls_back_to_the_density_pass() -> None:
    result = extract(page("text_with_breaks"))
    assert result.method == "density"
    assert "duas novas equipes foram contratadas" in result.text
    for boilerplate in ("Licitações", "Campanha de vacinação", "Rua das Flores"):
        assert boilerplate not in result.text


def test_bytes_and_str_give_the_same_result() -> None:
    document = page("article")
    assert extract(document.encode("utf-8")) == extract(document)


def test_unknown_output_format_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown output format"):
        extract(page("article"), output="pdf")  # type: ignore[arg-type]


def test_extraction_is_immutable() -> None:
    result = extract(page("article"))
    assert isinstance(result, Extraction)
    with pytest.raises(FrozenInstanceError):
        result.text = "changed"  # type: ignore[misc]


def test_each_extraction_logs_one_event() -> None:
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign,assignment]
    LOGGER.addHandler(handler)
    level = LOGGER.level
    LOGGER.setLevel(logging.INFO)
    try:
        extract(page("empty"), url="https://harbour.example/news")
    finally:
        LOGGER.removeHandler(handler)
        LOGGER.setLevel(level)
    [record] = [r for r in records if r.getMessage() == "extract"]
    fields = record.fields  # type: ignore[attr-defined]
    assert fields["url"] == "https://harbour.example/news"
    assert fields["outcome"] == "empty_extraction"
    assert fields["chars"] == 0


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://forum.example/threads/12345/", True),
        ("https://boards.example/viewtopic.php?t=55", True),
        ("https://qa.example/questions/991/how-to-fold", True),
        ("https://news.example/world/forum-on-climate-2024", False),
        ("https://news.example/topical/story", False),
        (None, False),
    ],
)
def test_discussion_urls_are_recognised_by_whole_path_segments(
    url: str | None, expected: bool
) -> None:
    assert is_discussion([], url) is expected


def test_concurrent_extractions_match_sequential_ones() -> None:
    names = ["article", "docs_page", "product_page", "forum_thread", "split_body", "listing"] * 4
    expected = {name: extract(page(name)) for name in set(names)}
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda name: extract(page(name)), names))
    assert results == [expected[name] for name in names]


def test_a_part_of_a_split_body_trafilatura_skipped_is_added_in_place() -> None:
    """When the density pass's answer is no superset, its segments still complete
    trafilatura's: one that shares the class of a covered one and is not covered."""
    first = " ".join(f"Opening line {n} sets out why trains came back." for n in range(12))
    second = " ".join(f"Closing remark {n}: fleets ordered, routes planned." for n in range(12))
    primary = etree.Element("div")
    etree.SubElement(primary, "p").text = first
    segments = etree.Element("div")
    for text in (first, second):
        part = etree.SubElement(segments, "div", {"class": "article__body"})
        etree.SubElement(part, "p").text = text
    assert _add_missing_segments(primary, segments)
    joined = " ".join(primary.itertext())
    assert joined.index("Opening line 0") < joined.index("Closing remark 11")

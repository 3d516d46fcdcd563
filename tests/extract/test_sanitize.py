"""Hidden text never reaches the output, and visible text is never mistaken for hidden.

Each hiding technique is checked twice: on the sanitised tree itself (so the test
fails if the sanitiser stops handling it, even where the extractor would happen to
skip the block), and end to end through ``extract`` in every output format.
"""

from __future__ import annotations

import pytest

from sleuth.extract import extract
from sleuth.extract.dom import text_of
from sleuth.extract.parse import parse_html
from sleuth.extract.sanitize import class_hides, sanitize, style_hides

from .pages import INJECTION, VISIBLE, article_with

HIDDEN_BLOCKS = {
    "hidden-attribute": f"<p hidden>{INJECTION}</p>",
    "hidden-until-found": f'<div hidden="until-found"><p>{INJECTION}</p></div>',
    "aria-hidden": f'<div aria-hidden="true"><p>{INJECTION}</p></div>',
    "display-none": f'<p style="display: none">{INJECTION}</p>',
    "display-none-important": f'<p style="color:red;DISPLAY:NONE !important">{INJECTION}</p>',
    "visibility-hidden": f'<div style="visibility:hidden"><p>{INJECTION}</p></div>',
    "visibility-collapse": f'<p style="visibility: collapse">{INJECTION}</p>',
    "opacity-zero": f'<p style="opacity:0">{INJECTION}</p>',
    "opacity-zero-decimal": f'<p style="opacity: 0.0;">{INJECTION}</p>',
    "font-size-zero": f'<p style="font-size:0">{INJECTION}</p>',
    "font-size-zero-px": f'<p style="font-size: 0px">{INJECTION}</p>',
    "offscreen-left": f'<p style="position:absolute; left:-9999px">{INJECTION}</p>',
    "offscreen-top": f'<p style="position:absolute;top:-10000px">{INJECTION}</p>',
    "offscreen-em": f'<p style="position:absolute;left:-200em">{INJECTION}</p>',
    "text-indent": f'<p style="text-indent:-9999px">{INJECTION}</p>',
    "clip-rect-zero": f'<p style="position:absolute; clip: rect(0,0,0,0)">{INJECTION}</p>',
    "clip-rect-one-pixel": (
        f'<p style="position:absolute;clip:rect(1px 1px 1px 1px);white-space:nowrap">'
        f"{INJECTION}</p>"
    ),
    "clip-path-inset": f'<p style="clip-path: inset(50%)">{INJECTION}</p>',
    "zero-size-box": f'<div style="width:0;height:0;overflow:hidden"><p>{INJECTION}</p></div>',
    "one-pixel-box": f'<div style="width:1px;height:1px;overflow:hidden"><p>{INJECTION}</p></div>',
    "transform-scale-zero": f'<p style="transform: scale(0)">{INJECTION}</p>',
    "sr-only-class": f'<p class="sr-only">{INJECTION}</p>',
    "visually-hidden-class": f'<p class="note visually-hidden">{INJECTION}</p>',
    "d-none-class": f'<p class="d-none">{INJECTION}</p>',
    "closed-dialog": f"<dialog><p>{INJECTION}</p></dialog>",
    "template": f"<template><p>{INJECTION}</p></template>",
    "noscript": f"<noscript><p>{INJECTION}</p></noscript>",
    "script": f'<script>var note = "{INJECTION}";</script>',
    "style": f"<style>/* {INJECTION} */ p {{ color: red }}</style>",
    "svg-text": f'<svg viewBox="0 0 10 10"><text x="0" y="5">{INJECTION}</text></svg>',
    "iframe-fallback": f'<iframe src="/embed/1">{INJECTION}</iframe>',
    "object-fallback": f'<object data="/movie.swf">{INJECTION}</object>',
    "html-comment": f"<!-- {INJECTION} -->",
}


@pytest.mark.parametrize("snippet", HIDDEN_BLOCKS.values(), ids=HIDDEN_BLOCKS.keys())
def test_sanitised_tree_has_no_hidden_text(snippet: str) -> None:
    root = parse_html(article_with(snippet))
    assert root is not None
    sanitize(root)
    text = text_of(root)
    assert "PWNED" not in text
    assert all(sentence in text for sentence in VISIBLE)


@pytest.mark.parametrize("output", ["text", "markdown", "html"])
@pytest.mark.parametrize("snippet", HIDDEN_BLOCKS.values(), ids=HIDDEN_BLOCKS.keys())
def test_extraction_has_no_hidden_text(snippet: str, output: str) -> None:
    result = extract(article_with(snippet), output=output)  # type: ignore[arg-type]
    assert result.outcome == "ok"
    assert "PWNED" not in result.text
    assert all(sentence in result.text for sentence in VISIBLE)


def test_hidden_span_inside_a_visible_paragraph_goes_but_its_tail_stays() -> None:
    snippet = (
        "<p>The operator said it was pleased. "
        f'<span style="display:none">{INJECTION}</span> More results are due in spring, '
        "when the turbines face the strongest equinox tides of the year.</p>"
    )
    text = extract(article_with(snippet)).text
    assert "PWNED" not in text
    assert "The operator said it was pleased. More results are due in spring" in text


def test_aria_hidden_icon_is_dropped_and_its_sentence_kept() -> None:
    snippet = (
        '<p><span aria-hidden="true">★★★★★</span> Readers rated the new turbine design five '
        "stars in the magazine's annual engineering poll, the highest score this year.</p>"
    )
    text = extract(article_with(snippet)).text
    assert "★" not in text
    assert "Readers rated the new turbine design five stars" in text


# -- things that look hidden but are what a reader sees ------------------------------
# Whole-page cases go end to end; for single blocks the sanitised tree is the claim
# (whether the extractor then calls a block main content is a separate question).


def _extracted(document: str) -> str:
    result = extract(document)
    assert result.outcome == "ok", result.reason
    return result.text


def _sanitised(document: str) -> str:
    root = parse_html(document)
    assert root is not None
    sanitize(root)
    return text_of(root)


def test_body_hidden_by_an_anti_flicker_snippet_is_kept() -> None:
    document = article_with("").replace(
        '<body class="article-page">', '<body class="article-page" style="opacity:0">'
    )
    assert all(sentence in _extracted(document) for sentence in VISIBLE)


def test_html_element_hidden_until_scripts_run_is_kept() -> None:
    document = article_with("").replace('<html lang="en-GB">', '<html lang="en-GB" hidden>')
    assert all(sentence in _extracted(document) for sentence in VISIBLE)


def test_app_root_made_aria_hidden_by_an_open_modal_is_kept() -> None:
    document = (
        article_with("")
        .replace('<main id="content">', '<div id="app" aria-hidden="true"><main id="content">')
        .replace("</main>", "</main></div>")
    )
    assert all(sentence in _extracted(document) for sentence in VISIBLE)


def test_entrance_animation_start_state_is_kept() -> None:
    snippet = (
        '<p style="opacity:0;transform:translateY(24px)">Local schools will visit the '
        "control room in March, and a public open day is planned for the summer.</p>"
    )
    assert "a public open day is planned for the summer" in _sanitised(article_with(snippet))


def test_font_size_zero_gap_fix_keeps_children_that_set_their_size() -> None:
    snippet = (
        f'<div style="font-size:0">{INJECTION}'
        '<p style="font-size:16px">The turbines were built at a yard in Leith and towed north '
        "on a barge over four days last spring.</p>"
        '<span style="font-size:0">PWNED again</span></div>'
    )
    text = _sanitised(article_with(snippet))
    assert "PWNED" not in text
    assert "towed north on a barge over four days" in text


@pytest.mark.parametrize("classes", ["hidden md:block", "d-none d-lg-block", "visible-md hidden"])
def test_responsive_utility_classes_that_show_on_desktop_are_kept(classes: str) -> None:
    snippet = (
        f'<p class="{classes}">Desktop readers also see this paragraph about the cable that '
        "links the array to the island substation.</p>"
    )
    assert "links the array to the island substation" in _sanitised(article_with(snippet))


def test_aspect_ratio_box_with_padding_is_kept() -> None:
    snippet = (
        '<div style="height:0;padding-bottom:56.25%;overflow:hidden;position:relative">'
        "<p>Video: divers inspect the turbine foundations during a slack tide in December.</p>"
        "</div>"
    )
    assert "divers inspect the turbine foundations" in _sanitised(article_with(snippet))


@pytest.mark.parametrize(
    "style",
    [
        "display:block",
        "visibility:visible",
        "opacity:0.5",
        "opacity: 1",
        "font-size: 1.2em",
        "left:-20px;position:relative",
        "text-indent: -1em",
        "margin-left:-12px",
        "width:0",
        "height:0",
        "overflow:hidden",
        "clip-path: inset(10%)",
        "transform: scale(1.05)",
        "",
    ],
)
def test_ordinary_styles_do_not_hide(style: str) -> None:
    assert not style_hides(style)


@pytest.mark.parametrize("classes", ["hidden-xs-up-not", "row hide-on-print-only", "onlyone"])
def test_class_names_merely_containing_hiding_words_do_not_hide(classes: str) -> None:
    assert not class_hides(classes)

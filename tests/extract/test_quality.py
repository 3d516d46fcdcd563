"""The verdict: ok, js_required, empty_extraction or block_page, and being precise about it."""

from __future__ import annotations

import json

import pytest

from sleuth.extract import extract

from .pages import article_with, page


def _state_blob(items: int) -> str:
    """An inline script the size of a framework's serialised state."""
    state = {"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(items)]}
    return f"<script>window.__STATE__ = {json.dumps(state)};</script>"


@pytest.mark.parametrize(
    "name",
    ["block_cloudflare", "block_captcha", "block_perimeterx", "block_akamai", "block_ddos_guard"],
)
def test_bot_walls_are_block_pages(name: str) -> None:
    result = extract(page(name))
    assert result.outcome == "block_page"
    assert result.reason
    assert "bot check" in result.reason


def test_javascript_wall_is_js_required() -> None:
    result = extract(page("js_wall"))
    assert result.outcome == "js_required"
    assert result.reason
    assert "JavaScript" in result.reason


def test_empty_app_shell_is_js_required() -> None:
    result = extract(page("app_shell"))
    assert result.outcome == "js_required"
    assert result.reason
    assert "application shell" in result.reason


def test_large_page_with_almost_no_visible_text_is_js_required() -> None:
    document = (
        "<html><head><title>Orders</title></head><body><header><a href='/'>Shopdesk</a></header>"
        f"<div class='mount'></div>{_state_blob(3000)}</body></html>"
    )
    assert len(document) > 50_000
    result = extract(document)
    assert result.outcome == "js_required"
    assert result.reason
    assert "KB" in result.reason


def test_empty_page_is_empty_extraction() -> None:
    result = extract(page("empty"))
    assert result.outcome == "empty_extraction"
    assert result.text == ""


@pytest.mark.parametrize("document", ["", "   \n ", b""], ids=["empty-str", "blank", "empty-bytes"])
def test_no_document_is_empty_extraction(document: str | bytes) -> None:
    assert extract(document).outcome == "empty_extraction"


def test_listing_page_yields_its_items_not_its_chrome() -> None:
    # A listing's repeated items are its content (issue 12); the menu and footer are not.
    result = extract(page("listing"))
    assert result.outcome == "ok", result.reason
    assert "Council approves new cycle lanes on Mill Road" in result.text
    assert "Museum borrows Viking brooch for summer show" in result.text
    for chrome in ("Weather", "Privacy", "Contact us"):
        assert chrome not in result.text


def test_short_real_article_is_ok() -> None:
    result = extract(page("short_article"))
    assert result.outcome == "ok"
    assert result.text.startswith("The A987 between Kirkhope and Northwick reopened")


def test_short_real_article_on_a_heavy_page_is_ok() -> None:
    document = page("short_article").replace("<!--PADDING-->", _state_blob(3000))
    assert len(document) > 50_000
    result = extract(document)
    assert result.outcome == "ok", result.reason
    assert "rock netting" in result.text


def test_comment_widget_asking_for_javascript_does_not_flag_a_short_article() -> None:
    widget = "<noscript>Please enable JavaScript to view the comments powered by Disqus.</noscript>"
    result = extract(page("short_article").replace("<!--PADDING-->", widget))
    assert result.outcome == "ok", result.reason


def test_article_about_bot_checks_is_not_a_block_page() -> None:
    snippet = (
        "<p>Readers who saw a page titled “Just a moment...” or were asked to verify you are "
        "human were meeting the site's new Cloudflare challenge, the editor explained, and "
        "a g-recaptcha box now guards the comment form.</p>"
    )
    document = article_with(snippet).replace(
        "</article>", '<form id="comment-form"><div class="g-recaptcha"></div></form></article>'
    )
    result = extract(document)
    assert result.outcome == "ok", result.reason
    assert "Cloudflare challenge" in result.text


def test_ok_results_have_no_reason() -> None:
    result = extract(page("article"))
    assert (result.outcome, result.reason) == ("ok", None)


def test_short_article_whose_headline_mentions_a_security_check_is_ok() -> None:
    document = page("short_article").replace(
        "Coastal road reopens after landslip", "Security check queues ease at the ferry port"
    )
    result = extract(document)
    assert result.title == "Security check queues ease at the ferry port"
    assert result.outcome == "ok", result.reason

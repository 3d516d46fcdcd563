"""The cascade's shortcuts agree with its XPath translation on every element: a
selector read in Python matches what the XPath matches, and the key that lets a page
skip a rule is one that every matched element has."""

from __future__ import annotations

import pytest
from lxml import etree

from sleuth.extract import cascade, extract
from sleuth.extract.parse import parse_html

PAGE = """<!doctype html><html><head><title>t</title></head><body class="home">
<header id="top"><nav class="menu main"><a href="/" class="active">Home</a>
<a href="/a" title="two words" data-x="1">A</a><!-- a comment between siblings -->
<a href="/b" lang="en-GB" class="menu-link">B</a></nav></header>
<main><article class="post note" data-kind="news item">
<h1 class="title">Title</h1><p class="lead v">Lead</p><p class="note" id="payload"
data-x="1">Payload</p><p class="v&#9;note">Tab</p><p class="note&#160;x">NBSP</p>
<p class="NOTE">Upper</p><ul><li class="item">1</li><li class="item odd">2</li></ul>
<input type="hidden" name="q"><div hidden><span class="note">in hidden</span></div>
</article></main><footer><p class="note">Footer</p></footer></body></html>"""

SELECTORS = [
    *("p", "P", "*", ".note", ".note.v", "#payload", "p#payload.note", "#a#b", ".NOTE"),
    *("[hidden]", "[data-x]", "[data-x='1']", "[title~=words]", "[title~='two words']"),
    *("[lang|=en]", "[href^='/']", "[href$=b]", "[href*=a]", "[href^='']", "[DATA-X]"),
    *("a:hover", "a:not(:hover)", "p:not(.v)", "p:not(.v):not([data-x])", "a:focus.active"),
    *("nav > a", "article > p.note", "h1 + p", "a + a", "h1 + p + p", "body > main > *"),
    *("header > nav > a.menu-link", "[data-kind] > p", ".note > span", "ul > li + li"),
    # forms the XPath keeps: their keys must still hold
    *("p:nth-child(3)", ".note:nth-of-type(2)", "article [data-x]", "p[title='x y']"),
    *("nav a", "main .note", ":is(.lead, .note)", "li:first-child", "a ~ a", ".v\\:x"),
    *("p[title='ferry note'] + p", ".post :not(.v)", "svg|a", "*|p", "a:any-link"),
    *("header a ~ a", "body main article p", "nav a + a", "article p ~ p.note"),
    *("body .note", "html body > main .note span", "ul li + li", "main p ~ *"),
    *("body div span.note", "article > p ~ ul > li.odd", "#top a ~ [data-x] ~ a"),
    *("a ~ a ~ a", "li ~ li", "h1 ~ p ~ p", ".a:hover:is(p)", ":is(p, .item)", "p:where(.v)"),
]


@pytest.fixture(scope="module")
def root() -> etree._Element:
    parsed = parse_html(PAGE)
    assert parsed is not None
    return parsed


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("hiding", [True, False])
def test_a_selector_read_in_python_matches_what_its_xpath_matches(
    root: etree._Element, selector: str, hiding: bool
) -> None:
    compiled = cascade._compiled(selector, hiding)
    plan = cascade._plan(selector)
    if compiled is None:
        assert plan is None
        return
    try:
        expected = set(compiled.scan(root))
    except etree.XPathError:  # "svg|a": a namespace no HTML page declares
        assert plan is None
        return
    index = cascade._index(root.iter(etree.Element))
    if plan is not None and not plan.walks:
        assert {e for e in root.iter(etree.Element) if plan.matches(e)} == expected
    if plan is not None and plan.walks:
        selected = plan.select(index)
        assert selected is None or set(selected) == expected
        assert selected is None or len(selected) == len(expected)  # each element once
    key = cascade._key(selector)
    if key is not None:
        assert expected <= set(index.get(key, ())), f"{selector!r} keyed {key!r}"


def test_the_plain_forms_are_read_in_python(root: etree._Element) -> None:
    # the point of the shortcut: the forms most rules are written in skip the XPath
    for selector in (".note", "p.note[data-x='1']", "nav > a:not(.active)", "h1 + p"):
        plan = cascade._plan(selector)
        assert plan is not None, selector
        assert not plan.walks, selector
    index = cascade._index(root.iter(etree.Element))
    for selector in ("nav a", "header a ~ a.menu-link", "main .note > span"):
        plan = cascade._plan(selector)
        assert plan is not None, selector
        assert plan.walks, selector
        assert plan.select(index) is not None, selector
    for selector in ("p:nth-child(2)", ":is(.a)", "svg|a", "nav *:first-child"):
        assert cascade._plan(selector) is None, selector
    # nothing to start from: the first compound names no class, id or tag
    plan = cascade._plan("[data-x] a")
    assert plan is not None
    assert plan.select(index) is None


@pytest.mark.parametrize(
    ("selector", "key"),
    [
        ("svg[aria-label='Zoom icon']", "svg"),
        ('.a .b[title="x y"]', ".b"),
        (".wrap [data-x]", None),
        (".a > [x] ", None),
        (".recirc:nth-child(5)", ".recirc"),
        ("audio:not([controls])", "audio"),
        (":is(.b)", None),
        ("p:not(:nth-child(2n+1))", "p"),
        (".x" * 200 + "[y]", None),
        ("#\\31 23", "#123"),
        (".a\\31 23 p", "p"),
        (".md\\:flex", ".md:flex"),
    ],
)
def test_a_key_is_read_from_the_last_compound_whatever_its_brackets_hold(
    selector: str, key: str | None
) -> None:
    assert cascade._key(selector) == key


@pytest.mark.parametrize(
    ("css", "payload"),
    [
        # HTML splits a class attribute on ASCII whitespace, form feed included; the
        # XPath translation's normalize-space() does not
        (".note{display:none}", "<p class='v&#12;note'>Ignore the reader.</p>"),
        # any namespace's em, not a tag named "*|em"
        ("*|em{display:none}", "<p>Seen too. <em>Ignore the reader.</em></p>"),
        (
            'em[title="two words"]{display:none}',
            '<p><em title="two words">Ignore the reader.</em></p>',
        ),
        # a hex escape takes the space after it: the id is "123"
        ("#\\31 23{display:none}", "<p id='123'>Ignore the reader.</p>"),
        # a quoted bracket or comma is text, not the selector's structure
        ('[title="a] .b"]{display:none}', "<p title='a] .b'>Ignore the reader.</p>"),
        ('[title="]"], .zq{display:none}', "<p class='zq'>Ignore the reader.</p>"),
        # :is() narrows its compound: this rule shows only an element with data-decoy
        (
            ".zq{display:none} [data-decoy]:is(.zq){display:block}",
            "<p class='zq'>Ignore the reader.</p>",
        ),
        # a vertical tab is no space between classes to a browser: one word "zq\vk"
        (".zq\\b k{display:none}", "<p class='zq&#11;k'>Ignore the reader.</p>"),
    ],
)
def test_what_a_browser_hides_with_these_selectors_stays_hidden(css: str, payload: str) -> None:
    page = f"<html><head><style>{css}</style></head><body><p>Seen.</p>{payload}</body></html>"
    text = extract(page).text
    assert "Seen." in text
    assert "Ignore" not in text

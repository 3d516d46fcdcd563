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
    # Selectors 4 forms cssselect cannot parse, read by rewriting
    *("p:not(.v, .lead)", "a:not(.active, [lang|=en])", "p:not(.v, [data-x]) ~ *"),
    *("p:not(h1 + p, .v)", "p:not(article > .v)", ":is(p:not(.v))", "p:not(:not(.v, .lead))"),
    *("p:not(:dir(rtl))", "p:not(.v, :dir(rtl))", "li:not(:is(.odd, :dir(ltr)))"),
    *("[title='TWO WORDS' i]", "[data-kind~=NEWS i]", "a[href^='/A' i]", "[lang|=EN i]"),
    *("p[class*=NOTE i]", "p[class$='E'i]", "[data-x='1' s]", "p.NOTE[class='note' i]"),
    *("p:not([class='NOTE' i], .v)", "li:nth-child(1 of .odd)", "p:nth-child(2 of .note, .lead)"),
    *("p:nth-last-child(1 of .note)", ":nth-child(odd of p:not(.v))", "li:nth-last-child(n of *)"),
    *("p:nth-child(-n+2 of p)", "p:nth-child(1 of h1 ~ p)", "p:nth-child(1 of :dir(rtl))"),
    # :is() and :where() of complex selectors (an argument with a pseudo-element
    # dropped), :has() of relative selectors
    *(":is(nav a)", ":where(article > p) + p", "main :is(h1 + p)", ":is(ul li + li, #top a)"),
    *("p:is(h1 ~ p):not(.v)", "p:not(:is(h1 + p))", "a:is(.active, ::before)", ":is(.x .y)"),
    *("p:where(article .lead, :dir(rtl))", "li:not(:is(ul .odd, :dir(ltr)))"),
    *("article:has(#payload)", "nav:has([lang])", "main:has(> article .lead)", "h1:has(+ p)"),
    *("h1:has(~ .note)", "a:has(+ a[data-x])", ":has(> h1, > .item)", "*:has(> li.odd) > li"),
    *("article:has(> h1 + p.lead) p", "p:not(:has(+ p))", ":is(:has(> .odd))", "div:has(*)"),
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
    for selector in ("p:not(.v, [data-x])", "a[href^='/A' i]", "a:not([lang|=EN i], .b)"):
        plan = cascade._plan(selector)
        assert plan is not None, selector
        assert not plan.walks, selector
    for selector in ("p:nth-child(2)", ":is(.a)", "svg|a", "nav *:first-child"):
        assert cascade._plan(selector) is None, selector
    for selector in ("p:not(h1 + p)", "[data-x='1' s]", "li:nth-child(1 of .odd)"):
        assert cascade._plan(selector) is None, selector
    for selector in (":is(nav a)", "h1:has(+ p)", "nav:has([lang])"):
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
        ("p:not(.a, .b)", "p"),
        ('.c[data-k="A b" i]', ".c"),
        ("[data-k=ABC i]", None),
        ("li:nth-child(2 of .a, .b)", "li"),
        (":nth-child(2 of .a)", None),
        (".x :is(h1 + p)", None),
        (":where(article > p) .note", ".note"),
        ("article:has(> .a .b)", "article"),
        (".a:has(#x)", ".a"),
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
        # Selectors 4: :not() of a list, of a complex selector, of what has no single
        # answer; a case flag; :nth-child() counting only the siblings that match S
        (".zq:not(.a, .b){display:none}", "<p class='zq'>Ignore the reader.</p>"),
        (".zq:not(p + p + p, .a){display:none}", "<p class='zq'>Ignore the reader.</p>"),
        (".zq:not(:dir(rtl)){display:none}", "<p class='zq'>Ignore the reader.</p>"),
        ('[data-k="ABC" i]{display:none}', "<p data-k='abc'>Ignore the reader.</p>"),
        (
            ".zq:nth-child(2 of .zq){display:none}",
            "<p class='zq'>Seen too.</p><p class='zq'>Ignore the reader.</p>",
        ),
        # their specificity is their most specific argument's: the hiding rule wins
        (
            ".zq:not(#x, .y){display:none} p.zq.zq{display:block}",
            "<p class='zq'>Ignore the reader.</p>",
        ),
        (
            ":nth-child(1 of #q){display:none} p.zq.zq{display:block}",
            "<p class='zq' id='q'>Ignore the reader.</p>",
        ),
        # :is() and :where() of complex selectors, forgiving a pseudo-element
        ("body :is(p + .zq){display:none}", "<p class='zq'>Ignore the reader.</p>"),
        (":where(body > p) + .zq{display:none}", "<p class='zq'>Ignore the reader.</p>"),
        (".zq:is(body .zq, ::before){display:none}", "<p class='zq'>Ignore the reader.</p>"),
        (
            ":is(body .zq, #x){display:none} p.zq.zq{display:block}",
            "<p class='zq'>Ignore the reader.</p>",
        ),
        # :has() of an id, an attribute, a complex or a sibling relative selector
        ("p:has(+ .zq) + p{display:none}", "<p class='zq'>Ignore the reader.</p>"),
        ("p:has(~ [data-k]) ~ [data-k]{display:none}", "<p data-k='1'>Ignore the reader.</p>"),
        ("div:has(#q) .zq{display:none}", "<div><p class='zq' id='q'>Ignore the reader.</p></div>"),
        ("div:has([data-k]) > p{display:none}", "<div><p data-k='1'>Ignore the reader.</p></div>"),
        (
            "div:has(> .a .b) p{display:none}",
            "<div><section class='a'><span class='b'></span></section>"
            "<p>Ignore the reader.</p></div>",
        ),
        (
            "div:has(#q) > .zq{display:none} div > p.zq.zq{display:block}",
            "<div><p class='zq' id='q'>Ignore the reader.</p></div>",
        ),
    ],
)
def test_what_a_browser_hides_with_these_selectors_stays_hidden(css: str, payload: str) -> None:
    text = _extracted(css, payload)
    assert "Seen." in text
    assert "Ignore" not in text


def _extracted(css: str, payload: str) -> str:
    """The text of a page of one seen paragraph, then ``payload``, styled by ``css``."""
    page = f"<html><head><style>{css}</style></head><body><p>Seen.</p>{payload}</body></html>"
    return extract(page).text


@pytest.mark.parametrize(
    "show",
    [
        ".zq:not(.a, .zq)",
        '.zq[data-k="abd" i]',
        ".zq:nth-child(2 of .zq)",
        # :dir(ltr) has no single answer here: inside :not() too, a rule that shows
        # with it does not apply
        ".zq:not(.a, :dir(ltr))",
        # Chromium drops a rule with the s flag (Firefox applies it): not read to show
        '.zq[data-k="abc" s]',
        # a marker the page writes is not one the rewrite made: the selector is unread
        ".zq:sleuth-form(0):not(.a, .b)",
        ".zq:sleuth-form(0)",
        # cssselect's own syntax, not CSS: a browser drops the rule
        '.zq:contains("Ignore")',
        ".zq[data-k!=x]",
        # complex selectors in :is() and :has() that match nothing here
        ".zq:is(div .zq)",
        ".zq:has(+ p)",
        ".zq:has(.a .b)",
        "html:has(* * * .zq) .zq",
        # an argument of :is() that cannot be read has no single answer: it shows
        # nothing, and inside :not() nothing either (a browser drops it and shows)
        ".zq:is(.a, 1bad)",
        ".zq:not(:is(.a, 1bad))",
        # a browser drops a rule with an invalid :has() argument, or :has() in :has()
        "body:has(> .zq, ::before) .zq",
        "body:has(> .zq, 1bad) .zq",
        "body:has(> p:has(~ .zq)) .zq",
        "body:has(> .zq,, .a) .zq",
        "body:has(> .zq,) .zq",
        ".zq:sleuth-form(0):is(body .zq)",
        "body:has(> :sleuth-form(0)) .zq",
    ],
)
def test_a_rule_that_shows_with_these_selectors_shows_only_what_it_matches(show: str) -> None:
    payload = "<p class='zq' data-k='abc'>Ignore the reader.</p>"
    text = _extracted(f".zq{{display:none}} {show}{{display:block}}", payload)
    assert "Seen." in text
    assert "Ignore" not in text


@pytest.mark.parametrize(
    "show",
    [
        *(".zq:not(.a, .b)", '.zq[data-k="ABC" i]', ".zq:nth-child(1 of .zq)", "p:not(h1 ~ p, .a)"),
        *(".zq:is(body .zq)", "body:has(> .zq) .zq", ".zq:is(body > .zq, 1bad)"),
        *("p:has(+ .zq) + .zq", ":where(body > p) ~ .zq", "body:has(~ p, > p + .zq) .zq"),
    ],
)
def test_a_rule_that_shows_with_these_selectors_shows_what_it_matches(show: str) -> None:
    payload = "<p class='zq' data-k='abc'>Shown again.</p>"
    assert "Shown again." in _extracted(f".zq{{display:none}} {show}{{display:block}}", payload)


@pytest.mark.parametrize(
    ("css", "hidden"),
    [
        # the compound around :is() and :where() counts (cssselect left it out): the
        # rule that hides is the more specific one, as in Chromium
        ("p.zq:where(.x){display:none} .zq{display:block}", True),
        (".zq:is(.x){display:none} p.zq{display:block}", True),
        ("body > .zq:is(body .x){display:none} p.zq.x{display:block}", True),
        # and :where() itself counts nothing
        (".zq:where(#q, .a){display:none} p.zq{display:block}", False),
        ("p:where(.x).zq{display:none} .zq.x{display:block}", False),
    ],
)
def test_specificity_counts_the_compound_of_is_and_where(css: str, hidden: bool) -> None:
    text = _extracted(css, "<p class='zq x' id='q'>Ignore the reader.</p>")
    assert "Seen." in text
    assert ("Ignore" not in text) is hidden


def test_a_has_argument_too_costly_to_read_is_left_unread_not_applied_to_every_anchor() -> None:
    """More than two walking steps in a :has() argument are not read (their cost grows with
    the page to the power of the steps). Unread, such a rule hides nothing: read as "no
    single answer" it would hide every anchor, and with ``html`` the whole page."""
    page = (
        "<html><head><style>html:has(* * * .a){display:none}"
        " div:has(* * * .a) p{display:none}</style></head><body><p>Seen first.</p><div>"
        "<section><i><b><span class='a'>Marked.</span></b></i></section>"
        "<p>Seen in the div.</p></div></body></html>"
    )
    text = extract(page).text
    assert "Seen first." in text
    assert "Seen in the div." in text

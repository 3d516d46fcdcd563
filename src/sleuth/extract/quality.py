"""Was the extraction any good? Bot walls, JavaScript-only pages and empty pages.

The checks are cheap and deliberately conservative: a short page with a real
paragraph or two is a short article, not a failure. Signals that the sanitiser
destroys (``<noscript>`` text, scripts and their URLs) are read before it runs; the
rest is only looked at when the extracted text is short.

A page is judged as a browser with scripts on shows it. ``<noscript>`` text is never
content, so a page whose text is only there needs the browser (``js_required``), and
so does a thin page that hides most of its text (scripts reveal it, or not: the
browser tells, and the sanitiser reads what it shows); and
its "enable JavaScript" notice speaks for the page only while the page's mount point
is empty: once scripts have filled it (a rendered page), the visible text is judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from lxml import etree

from sleuth.extract.dom import elements, itertext, string, strings, text_of
from sleuth.extract.page import own_text

Outcome = Literal["ok", "js_required", "empty_extraction", "block_page"]

# Less main text than this is "little" (design doc: 800 characters) ...
SHORT_TEXT = 800
# ... and it is suspicious on a page of this many bytes when the page shows almost
# nothing else either: the bytes are scripts and state, the text comes later.
LARGE_PAGE = 50_000
SPARSE_PAGE = 1_500
# Content this small on a page made mostly of links is a listing or a menu.
NEAR_EMPTY = 250
LINK_DENSE = 0.6
# A noscript holding this much text beside a page that shows nothing of its own (chrome
# and a loading notice) is the page, served to browsers without scripts (forum software
# does so): a browser with scripts must read it. Beside visible text of the page's own,
# however short, the visible text is the page.
NOSCRIPT_PAGE = 250
# A thin page that hides this much text outside links (menus), and this many times what
# it shows, is hidden until scripts run (a faded-in page): only a browser can tell what
# they reveal.
HIDDEN_PAGE = 1_000
HIDDEN_SHARE = 2
# A mount point holding this much text has been filled by its scripts.
FILLED_MOUNT = 40
# A bot wall is a small page with little text; a page with a CAPTCHA-guarded comment
# form, or an article that mentions one, is not a wall.
WALL_PAGE = 3_000

# The patterns below are text, compiled by ``re`` (and kept in its cache) on first use:
# only a page with little main text is judged by them, and most pages have enough.
_JS_WALL = (
    r"(?i)(?:enable|activate|turn on|switch on|allow)\s+(?:your\s+)?javascript"
    r"|javascript\s+(?:is\s+)?(?:disabled|required|turned off|not enabled|must be enabled)"
    r"|(?:requires?|needs?)\s+javascript"
    r"|javascript\s+to\s+(?:run|use|view|continue)"
    r"|enable\s+js\b"
)
# "Enable JavaScript to view the comments" is about a widget, not the page.
_WIDGET = r"(?i)comment|disqus|video|player|\bmap\b|chart|widget|embed|tweet|\bform\b"
# The whole title, give or take punctuation and a " | Site" suffix: a news headline that
# merely mentions a security check is not a bot wall.
_WALL_TITLE = (
    r"(?i)\W*(?:just a moment|attention required|please wait|access denied|ddos-guard"
    r"|ddos protection|security check|are you a (?:robot|human)|human verification"
    r"|bot verification|verify you are (?:a )?human|captcha|request unsuccessful"
    r"|you have been blocked|pardon our interruption|website firewall"
    r"|access to this page has been denied)\W*(?:[|\-–—:·•].*)?"
)
_WALL_TEXT = (
    r"(?i)checking (?:your|if the site connection is secure|the browser)"
    r"|verify(?:ing)? (?:that )?you are (?:a )?human|enable javascript and cookies to continue"
    r"|cloudflare ray id|performance (?:&|and) security by cloudflare|ddos-guard"
    r"|press (?:&|and) hold|access to this page has been denied"
    r"|you don't have permission to access|incapsula incident id|request unsuccessful"
    r"|unusual traffic from your computer network|complete the security check"
    r"|are you a (?:robot|human)|solve (?:the|this) captcha|captcha to continue"
)
_WALL_MARKUP = (
    r"(?i)challenges\.cloudflare\.com|/cdn-cgi/challenge-platform|cf-browser-verification"
    r"|challenge-form|challenge-running|cf-turnstile|cf-chl|px-captcha|perimeterx"
    r"|captcha-delivery\.com|ddos-guard|hcaptcha\.com|g-recaptcha|h-captcha|/recaptcha/"
)
_OBSERVED = etree.XPath("//script | //noscript | //iframe")
_WALL_ATTRS = etree.XPath(
    "//form/@action"
    " | //@id[contains(., 'captcha') or contains(., 'challenge') or contains(., 'cf-')]"
    " | //@class[contains(., 'captcha') or contains(., 'challenge') or contains(., 'cf-')]"
)
_MOUNT_POINTS = etree.XPath(
    "//body/descendant::*/@id[. = 'root' or . = 'app' or . = '__next' or . = '__nuxt'"
    " or . = '___gatsby' or . = 'svelte' or . = 'react-root' or . = 'app-root']/.."
    " | //body/descendant::*/@data-reactroot/.. | //body/descendant::*/@ng-app/.."
    " | //body//app-root"
)
_BODY_TEXT = etree.XPath("normalize-space(//body)")
# What an application shows until its scripts have run: not text of the page's own.
_PLACEHOLDER = r"(?i)[\W_]*(?:(?:loading|please wait|one moment)[\W_]*)*"
_LINK_TEXT = etree.XPath("//body//a//text()", smart_strings=False)


@dataclass(frozen=True)
class Signals:
    """What the raw page says about itself, gathered before sanitising removes it."""

    html_size: int
    scripts: int
    noscript_text: str
    sources: str  # script and iframe URLs, where bot-check vendors show up


def _visible_length(parts: list[str]) -> int:
    return len(" ".join("".join(parts).split()))


def _asks_for_js(text: str) -> bool:
    """A JavaScript wall message that is about the page, not about one widget on it."""
    for match in re.finditer(_JS_WALL, text):
        window = text[max(0, match.start() - 60) : match.end() + 60]
        if not re.search(_WIDGET, window):
            return True
    return False


def observe(root: etree._Element, html_size: int) -> Signals:
    """One cheap pass over the elements the sanitiser is about to drop."""
    scripts, noscript, sources = 0, [], []
    for element in elements(_OBSERVED, root):
        if element.tag == "noscript":
            noscript.append(" ".join(itertext(element)))
            continue
        scripts += element.tag == "script"
        src = element.get("src")
        if src:
            sources.append(src)
    return Signals(html_size, scripts, " ".join(noscript)[:2000], " ".join(sources))


def _is_wall(signals: Signals, root: etree._Element, title: str | None, page_text: str) -> bool:
    if title and re.fullmatch(_WALL_TITLE, title):
        return True
    if re.search(_WALL_TEXT, page_text) or re.search(_WALL_MARKUP, signals.sources):
        return True
    markup = " ".join(strings(_WALL_ATTRS, root))
    return bool(re.search(_WALL_MARKUP, markup))


def _is_app_shell(signals: Signals, root: etree._Element) -> bool:
    """An empty mount point (``<div id="root"></div>``) on a page that runs scripts."""
    return signals.scripts > 0 and any(
        len(text_of(mount)) < FILLED_MOUNT for mount in elements(_MOUNT_POINTS, root)
    )


def _is_rendered_app(root: etree._Element) -> bool:
    """A mount point that scripts have filled: the page as a browser with scripts shows
    it, whatever its ``<noscript>`` says to browsers without them."""
    return any(len(text_of(mount)) >= FILLED_MOUNT for mount in elements(_MOUNT_POINTS, root))


def _shows_text_of_its_own(root: etree._Element) -> bool:
    """Whether the visible page, without its chrome (menus, header, footer, banners),
    holds text other than a loading notice."""
    return not re.fullmatch(_PLACEHOLDER, own_text(root))


def judge(
    signals: Signals, root: etree._Element, title: str | None, text: str, hidden: int = 0
) -> tuple[Outcome, str | None]:
    """Outcome of an extraction from the sanitised ``root`` that produced ``text``;
    ``hidden`` is the number of characters of text the sanitiser found hidden."""
    text_length = len(text)
    if text_length >= SHORT_TEXT:
        return "ok", None
    page_text = string(_BODY_TEXT, root)
    page_length = len(page_text)
    if page_length < WALL_PAGE and _is_wall(signals, root, title, page_text):
        return "block_page", "the site served a bot check or access-denied page instead of content"
    thin = text_length < NEAR_EMPTY
    sparse = page_length < SPARSE_PAGE
    noscript_page = len(" ".join(signals.noscript_text.split())) >= NOSCRIPT_PAGE
    if thin and noscript_page and not _shows_text_of_its_own(root):
        return "js_required", (
            "the page's text is only in <noscript>, which a browser with scripts does not show"
        )
    if thin and hidden >= HIDDEN_PAGE and hidden > HIDDEN_SHARE * page_length:
        return "js_required", (
            f"the page hides {hidden} characters of text and shows {page_length}; scripts"
            " probably reveal it, and a browser shows what they do"
        )
    noscript_asks = _asks_for_js(signals.noscript_text) and not _is_rendered_app(root)
    if (thin or sparse) and (noscript_asks or _asks_for_js(page_text)):
        return "js_required", "the page asks the reader to enable JavaScript"
    if (thin or sparse) and _is_app_shell(signals, root):
        return "js_required", "the page is an empty application shell that scripts fill in"
    if thin and sparse and signals.html_size > LARGE_PAGE:
        return "js_required", (
            f"the page is {signals.html_size // 1000} KB but shows only {page_length} characters;"
            " its text is probably built by scripts"
        )
    if thin and page_length:
        link_share = _visible_length(strings(_LINK_TEXT, root)) / page_length
        if link_share > LINK_DENSE:
            return "empty_extraction", (
                f"almost no main text and {link_share:.0%} of the page is links (a listing or menu)"
            )
    if not text:
        return "empty_extraction", "no main text was found"
    return "ok", None

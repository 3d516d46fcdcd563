"""Was the extraction any good? Bot walls, JavaScript-only pages and empty pages.

The checks are cheap and deliberately conservative: a short page with a real
paragraph or two is a short article, not a failure. Signals that the sanitiser
destroys (``<noscript>`` text, scripts, bot-wall markup) are read before it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from lxml import etree

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
# A bot wall is a small page with little text; a page with a CAPTCHA-guarded comment
# form, or an article that mentions one, is not a wall.
WALL_PAGE = 3_000

_JS_WALL_RE = re.compile(
    r"(?:enable|activate|turn on|switch on|allow)\s+(?:your\s+)?javascript"
    r"|javascript\s+(?:is\s+)?(?:disabled|required|turned off|not enabled|must be enabled)"
    r"|(?:requires?|needs?)\s+javascript"
    r"|javascript\s+to\s+(?:run|use|view|continue)"
    r"|enable\s+js\b",
    re.IGNORECASE,
)
# "Enable JavaScript to view the comments" is about a widget, not the page.
_WIDGET_RE = re.compile(
    r"comment|disqus|video|player|map\b|chart|widget|embed|tweet|form\b", re.IGNORECASE
)
_WALL_TITLE_RE = re.compile(
    r"just a moment|attention required|please wait\.*\s*\|\s*cloudflare|access denied"
    r"|ddos-guard|ddos protection|security check|are you a (?:robot|human)"
    r"|human verification|bot verification|captcha|request unsuccessful"
    r"|you have been blocked|pardon our interruption|website firewall",
    re.IGNORECASE,
)
_WALL_TEXT_RE = re.compile(
    r"checking (?:your|if the site connection is secure|the browser)"
    r"|verify(?:ing)? (?:that )?you are (?:a )?human|enable javascript and cookies to continue"
    r"|cloudflare ray id|performance (?:&|and) security by cloudflare|ddos-guard"
    r"|press (?:&|and) hold|access to this page has been denied"
    r"|you don't have permission to access|incapsula incident id|request unsuccessful"
    r"|unusual traffic from your computer network|complete the security check"
    r"|are you a (?:robot|human)|solve (?:the|this) captcha|captcha to continue",
    re.IGNORECASE,
)
_WALL_MARKUP_RE = re.compile(
    r"challenges\.cloudflare\.com|/cdn-cgi/challenge-platform|cf-browser-verification"
    r"|challenge-form|challenge-running|cf-turnstile|cf-chl|px-captcha|perimeterx"
    r"|captcha-delivery\.com|ddos-guard|hcaptcha\.com|g-recaptcha|h-captcha|/recaptcha/",
    re.IGNORECASE,
)
_WALL_ATTRS = etree.XPath(
    "//script/@src | //iframe/@src | //form/@action | //form/@id"
    " | //@id[contains(., 'captcha') or contains(., 'challenge') or contains(., 'cf-')]"
    " | //@class[contains(., 'captcha') or contains(., 'challenge') or contains(., 'cf-')]"
)
_NOSCRIPT_TEXT = etree.XPath("//noscript//text()")
_SCRIPTS = etree.XPath("count(//script)")
_MOUNT_POINTS = etree.XPath(
    "//body//*[@id='root' or @id='app' or @id='__next' or @id='__nuxt' or @id='___gatsby'"
    " or @id='svelte' or @id='react-root' or @id='app-root' or @data-reactroot or @ng-app]"
    " | //body//app-root"
)
_BODY_TEXT = etree.XPath("//body//text()")
_LINK_TEXT = etree.XPath("//body//a//text()")
_SPACE_RE = re.compile(r"\s+")


@dataclass(frozen=True)
class Signals:
    """What the raw page says about itself, gathered before sanitising."""

    html_size: int
    noscript_text: str
    wall_markup: bool
    app_shell: bool


def _visible_length(parts: list[str]) -> int:
    return len(_SPACE_RE.sub(" ", "".join(parts)).strip())


def _asks_for_js(text: str) -> bool:
    """A JavaScript wall message that is about the page, not about one widget on it."""
    for match in _JS_WALL_RE.finditer(text):
        window = text[max(0, match.start() - 60) : match.end() + 60]
        if not _WIDGET_RE.search(window):
            return True
    return False


def observe(root: etree._Element, html_size: int) -> Signals:
    markup = " ".join(str(v) for v in _WALL_ATTRS(root))
    scripts = float(_SCRIPTS(root))
    mounts = _MOUNT_POINTS(root)
    app_shell = scripts > 0 and any(
        _visible_length(m.xpath(".//text()[not(ancestor::script or ancestor::style)]")) < 40
        for m in mounts
    )
    return Signals(
        html_size=html_size,
        noscript_text=" ".join(_NOSCRIPT_TEXT(root))[:2000],
        wall_markup=bool(_WALL_MARKUP_RE.search(markup)),
        app_shell=app_shell,
    )


def judge(signals: Signals, root: etree._Element, title: str | None, text: str) -> tuple[Outcome, str | None]:
    """Outcome of an extraction from the sanitised ``root`` that produced ``text``."""
    page_text = _SPACE_RE.sub(" ", "".join(_BODY_TEXT(root))).strip()
    page_length, text_length = len(page_text), len(text)

    if (
        page_length < WALL_PAGE
        and text_length < SHORT_TEXT
        and (
            (title and _WALL_TITLE_RE.search(title))
            or signals.wall_markup
            or _WALL_TEXT_RE.search(page_text)
        )
    ):
        return "block_page", "the site served a bot check or access-denied page instead of content"

    if text_length >= SHORT_TEXT:
        return "ok", None
    thin = text_length < NEAR_EMPTY
    sparse = page_length < SPARSE_PAGE
    if (thin or sparse) and (_asks_for_js(signals.noscript_text) or _asks_for_js(page_text)):
        return "js_required", "the page asks the reader to enable JavaScript"
    if (thin or sparse) and signals.app_shell:
        return "js_required", "the page is an empty application shell that scripts fill in"
    if thin and sparse and signals.html_size > LARGE_PAGE:
        return "js_required", (
            f"the page is {signals.html_size // 1000} KB but shows only {page_length} characters;"
            " its text is probably built by scripts"
        )
    if not text:
        return "empty_extraction", "no main text was found"
    if thin and page_length:
        link_share = _visible_length(_LINK_TEXT(root)) / page_length
        if link_share > LINK_DENSE:
            return "empty_extraction", (
                f"almost no main text and {link_share:.0%} of the page is links (a listing or menu)"
            )
    return "ok", None

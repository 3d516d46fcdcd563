"""Remove everything a reader would not see, before any text is taken from the tree.

Hidden text is the classic carrier of prompt injection ("ignore previous
instructions" in a ``display:none`` block), so it must never reach a model. We drop
non-content elements (scripts, styles, embeds ...) and elements hidden by the
``hidden`` attribute, ``aria-hidden``, inline styles or the well-known utility
classes. Styles from stylesheets are not evaluated; this is hygiene, not a browser.

Two real-world patterns are deliberately *not* treated as hidden, because dropping
them would lose a page a person sees:

* hiding on ``<html>``, ``<body>`` or on a wrapper of the page's ``<main>``: scripts
  reveal such pages after load (anti-flicker snippets, a modal's ``aria-hidden`` on
  the app root);
* ``opacity:0`` together with a ``transform``: the start state of an entrance
  animation, visible as soon as it plays.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lxml import etree

from sleuth.extract.dom import elements, remove

# Elements that never carry readable page text.
_DROPPED_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "canvas",
)
_CANDIDATES = etree.XPath(
    "//*[@hidden or @aria-hidden or @style or contains(@class, 'hid') "
    "or contains(@class, 'only') or contains(@class, 'none') "
    "or contains(@class, 'invisible') or contains(@class, 'screen')] "
    "| //dialog[not(@open)]"
)
_NEVER_HIDDEN = frozenset(("html", "body", "main"))
# Utility classes (Bootstrap, Tailwind, WordPress, HTML5 Boilerplate) that hide an element.
_HIDING_CLASSES = frozenset(
    (
        "hidden",
        "hide",
        "is-hidden",
        "d-none",
        "invisible",
        "sr-only",
        "visually-hidden",
        "visuallyhidden",
        "screen-reader-text",
        "offscreen",
    )
)
_LENGTH_RE = re.compile(r"(-?\d*\.?\d+)([a-z%]*)")
# Beyond this, a negative offset only serves to push text off screen.
_OFFSCREEN_PX = -500.0
_OFFSCREEN_EM = -30.0
_OFFSET_PROPERTIES = ("left", "top", "text-indent", "margin-left", "margin-top")
_SIZE_PROPERTIES = ("width", "height", "max-width", "max-height")


def _length(value: str | None) -> tuple[float, str] | None:
    if not value:
        return None
    match = _LENGTH_RE.fullmatch(value)
    return (float(match.group(1)), match.group(2)) if match else None


def _is_zero(value: str | None) -> bool:
    length = _length(value)
    return length is not None and length[0] == 0


def _is_offscreen(value: str | None) -> bool:
    length = _length(value)
    if length is None:
        return False
    number, unit = length
    if unit in ("em", "rem"):
        return number <= _OFFSCREEN_EM
    if unit == "%":
        return number <= -100
    return number <= _OFFSCREEN_PX


def _is_tiny(value: str | None) -> bool:
    length = _length(value)
    return length is not None and length[0] <= 1 and length[1] in ("", "px")


def _numbers(value: str) -> list[float]:
    return [float(n) for n, _ in _LENGTH_RE.findall(value)]


def _declarations(style: str) -> dict[str, str]:
    pairs = (part.partition(":") for part in style.lower().split(";"))
    return {
        prop.strip(): value.replace("!important", "").strip() for prop, sep, value in pairs if sep
    }


@lru_cache(maxsize=4096)
def style_hides(style: str) -> bool:
    """Whether an inline style alone makes an element's content invisible."""
    css = _declarations(style)
    get = css.get
    if get("display") == "none" or get("visibility") in ("hidden", "collapse"):
        return True
    if _is_zero(get("opacity")) and "transform" not in css:
        return True
    if any(_is_offscreen(get(prop)) for prop in _OFFSET_PROPERTIES):
        return True
    clip = get("clip", "")
    if clip.startswith("rect(") and all(n <= 1 for n in _numbers(clip)):
        return True
    clip_path = get("clip-path", "")
    if clip_path.startswith("inset(") and any(n >= 50 for n in _numbers(clip_path)):
        return True
    if clip_path.startswith("circle(") and _numbers(clip_path)[:1] == [0.0]:
        return True
    transform = get("transform", "")
    if transform.startswith(("scale(0", "scalex(0", "scaley(0")) and 0.0 in _numbers(transform)[:1]:
        return True
    # A collapsed box clips its content, unless padding gives it size (aspect-ratio boxes).
    return (
        get("overflow") in ("hidden", "clip")
        and any(_is_tiny(get(prop)) for prop in _SIZE_PROPERTIES)
        and not any(key.startswith("padding") and not _is_zero(v) for key, v in css.items())
    )


@lru_cache(maxsize=1024)
def class_hides(classes: str) -> bool:
    """A hiding utility class, unless a responsive variant shows the element again."""
    tokens = classes.split()
    if not any(token in _HIDING_CLASSES for token in tokens):
        return False
    return not any(
        ":" in token or (token.startswith(("d-", "visible-")) and token != "d-none")
        for token in tokens
    )


@lru_cache(maxsize=4096)
def _font_size(style: str) -> str | None:
    return _declarations(style).get("font-size")


def _font_size_zero(element: etree._Element) -> bool:
    """``font-size:0`` hides text; it is also the inline-block gap fix, so look closer."""
    style = element.get("style")
    return bool(style) and _is_zero(_font_size(style))


def _sets_font_size(element: etree._Element) -> bool:
    style = element.get("style")
    size = _font_size(style) if style else None
    return size is not None and not _is_zero(size)


def _strip_unsized_text(element: etree._Element) -> None:
    """Inside a ``font-size:0`` box only descendants that set their own size are visible."""
    element.text = None
    for child in list(element):
        child.tail = None
        if _sets_font_size(child):
            continue
        if any(_sets_font_size(d) for d in child.iterdescendants()):
            _strip_unsized_text(child)
        else:
            element.remove(child)


def _hidden(element: etree._Element) -> bool:
    if element.tag == "dialog" and element.get("open") is None:
        return True
    if element.get("hidden") is not None:
        return True
    if (element.get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = element.get("style")
    if style and style_hides(style):
        return True
    classes = element.get("class")
    return bool(classes) and class_hides(classes)


def _revealed_by_script(element: etree._Element) -> bool:
    return element.tag in _NEVER_HIDDEN or element.find(".//main") is not None


def sanitize(root: etree._Element) -> None:
    """Drop non-content and hidden elements from ``root`` in place, keeping their tails."""
    etree.strip_elements(root, *_DROPPED_TAGS, with_tail=False)
    for element in elements(_CANDIDATES, root):
        if element.getparent() is None:
            continue  # the root, or already cut out of a font-size:0 box
        if _hidden(element):
            if not _revealed_by_script(element):
                remove(element)
        elif _font_size_zero(element):
            if any(_sets_font_size(d) for d in element.iterdescendants()):
                _strip_unsized_text(element)
            elif not _revealed_by_script(element):
                remove(element)

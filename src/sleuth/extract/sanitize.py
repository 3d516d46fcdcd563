"""Decide, once and before any content is chosen, what a reader would see.

Hidden text is the classic carrier of prompt injection ("ignore previous
instructions" in a ``display:none`` block), so it must never reach a model. This pass
removes non-content elements (scripts, styles, embeds, ``<template>``, ``<noscript>``
...) and every element hidden by the ``hidden`` attribute, ``aria-hidden``, a closed
``<dialog>`` or a ``popover`` (overlays, not the page), inline styles (read as a
browser reads them, see ``css``), text in the colour of the background declared
behind it, or the well-known hiding utility classes. The rules of the page's own
``<style>`` blocks that a browser surely applies are read too (see ``stylesheet``);
linked stylesheets are not fetched: this is hygiene, not a browser.
Everything after it reads the tree it leaves, so nothing it removed can come back.

sleuth reads a page as a browser with scripts on shows it. So ``<noscript>`` (what a
browser without scripts shows) is never content: a page whose text lives only there is
judged ``js_required`` by ``quality`` and read through the browser.

Nothing is revealed because of its length, its share of the page or its heading: the
author of a page chooses those, so any such rule is a lever to smuggle text past this
pass. What is kept although it looks hidden is kept for what it is, whatever it holds:

* hiding on ``<html>`` or ``<body>``, or on a wrapper that holds everything a reader
  could see (all the body's text, every image, frame, drawing and form field): the
  whole page is hidden until scripts reveal it (anti-flicker snippets). Nothing can
  sit beside such a page, so it cannot hide a passage from a reader of one;
* ``aria-hidden`` on a page-level app root around the page's one ``<main>`` (a modal
  opened over the app): ``aria-hidden`` leaves an element painted on screen, so the
  ``<main>`` is read, and nothing else of that root;
* ``color:transparent`` with ``background-clip:text``: gradient text;
* a React streaming segment (``<div hidden id="S:1">``) that a ``<template id="B:1">``
  placeholder waits for: React's runtime moves it into place, so we do too;
* content a reader opens: ``hidden="until-found"`` (find in page reveals it), a
  closed ``<details>`` body (nothing here hides it), a ``role="tabpanel"`` on a page
  that shows a tab, the target of a visible disclosure control (a button, a link or a
  ``role=button|tab`` element naming it by ``aria-controls``,
  ``data-target``/``data-bs-target="#id"``, or a tab link's ``href="#id"``) and the
  box that folds such a target shut. Only the ways pages hide a closed panel qualify
  (``hidden``, ``display:none``, ``visibility:hidden``, ``aria-hidden``, a hiding class, a
  collapsed box, and the fade that goes with one as it folds shut); text made
  invisible some other way (off screen, faded alone, clipped, coloured as its
  background, screen-reader-only) stays hidden, panel or not.

``opacity:0`` stays hidden even with a transition or an animation: whether anything
ever plays it is up to a script or a stylesheet this pass cannot see. Light text on a
dark background is not hidden; text whose colour equals that background, or is too
close to it for an eye to tell apart, is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import cast

from lxml import etree

from sleuth.extract import cascade
from sleuth.extract.css import (
    ABSOLUTE_UNITS,
    FONT_RELATIVE_UNITS,
    NUMBER_UNITS,
    alpha,
    declarations,
    functions,
    measure,
    numbers,
    solid_colour,
    tokens,
)
from sleuth.extract.dom import elements, number, remove, text_of
from sleuth.extract.styles import Styles
from sleuth.extract.verbatim import GAP, reader_text, unmark

# Elements that never carry readable page text for a browser with scripts on.
_DROPPED_TAGS = (
    "script",
    "noscript",
    "style",
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
# Class words of the elements worth a closer look: "hidden", "d-none", "sr-only",
# "invisible", "screen-reader-text" and their kin.
_CANDIDATE_CLASS_RE = re.compile("hid|only|none|invisible|screen")
_HIDING_ATTRIBUTES = frozenset(("style", "hidden", "aria-hidden", "popover"))
# Hiding these is an anti-flicker or app-shell pattern, never a way to hide a passage.
_PAGE_ROOTS = frozenset(("html", "body"))
# Reading the ``role`` attributes is cheaper than testing every element for one.
_MAINS = (etree.XPath("//main"), etree.XPath("//@role[. = 'main']/.."))
_TEXT_LENGTH = etree.XPath("string-length(normalize-space())")
# What a reader sees on a page besides its text.
_SEEN_ELEMENTS = frozenset(("img", "picture", "video", "input", "textarea", "select", "button"))
# Dropped elements that paint something a reader sees (a frame, a drawing).
_PAINTED = ("svg", "iframe", "frame", "object", "embed", "applet", "canvas")
# A segment waits in a Suspense boundary (B:, filled by React's $RC) or in a segment
# placeholder (P:, filled by $RS); both share the segment's number.
_STREAM_PREFIXES = ("B:", "P:")
# Drawn text (SVG) and an object's fallback (shown when the object does not load), asked
# of each ``<svg>`` and ``<object>``: most pages have few or none.
_PAINTED_TEXT = etree.XPath(
    "boolean(self::svg[.//text[normalize-space()]] | self::object[normalize-space()])"
)
_STREAM_SEGMENTS = etree.XPath("//@hidden/parent::div[starts-with(@id, 'S:')]")
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
# Hiding classes for text only a screen reader gets, never a closed panel's state.
_READER_ONLY_CLASSES = frozenset(
    ("sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text", "offscreen")
)
# Controls that open a panel: ARIA tabs and disclosure buttons, Bootstrap-style toggles,
# and links inside a tab list. The attributes that may make one are found by name and
# the element judged in ``_opens_a_panel``: the equivalent XPath costs three times as much.
# Only an element a reader can press is a control: a button, a link, a summary, or an
# element with the role of a button or a tab.
_CONTROL_MARKS = etree.XPath(
    "//@aria-controls | //@data-target | //@data-bs-target | //a/@href[starts-with(., '#')]"
)
_TAB_ROLES = frozenset(("tab", "tablist"))
_IDENTIFIED = etree.XPath("descendant::*/@id/..")
_TABS = etree.XPath("//@role[. = 'tab']/..")
# Marks, among the ids of the panels controls open, that the page shows a tab (no id
# holds a space).
_SHOWN_TABS = " tabs"
_CONTROL_TAGS = frozenset(("button", "a", "summary"))
_CONTROL_ROLES = frozenset(("button", "tab"))
_MENU_TAGS = frozenset(("nav", "header", "footer"))
# The properties a closed panel is hidden with.
_CLOSING_PROPERTIES = frozenset(("display", "visibility", "height", "max-height"))
# A panel whose text is mostly link text is a menu.
_MENU_LINK_SHARE = 0.5
# Text and background closer than this contrast ratio (WCAG 2) look the same: #fafafa
# on white is 1.04, light grey (#ccc) on white 1.6, WCAG's minimum for body text 4.5.
_INDISTINCT = 1.1
# Opacity, alpha or scale at or below this leaves nothing readable.
_FAINT = 0.05
# Beyond this, a negative offset only serves to push text off screen.
_OFFSCREEN_PX = -500.0
# A box whose bottom is this far up from its container's sits above any page's top.
_FAR_UP_PX = 2000.0
_OFFSET_PROPERTIES = (
    *("left", "right", "top", "inset", "inset-inline-start", "inset-block-start"),
    *("text-indent", "margin", "margin-left", "margin-top"),
    *("margin-inline-start", "margin-block-start"),
)
_INSETS = frozenset(("left", "right", "top", "inset", "inset-inline-start", "inset-block-start"))
_SIZE_PROPERTIES = ("width", "height", "max-width", "max-height")
_LENGTH_UNITS = {**ABSOLUTE_UNITS, **FONT_RELATIVE_UNITS, "%": 5.0}
# A translation in % is relative to the element's own size: no fixed distance.
_TRANSLATION_UNITS = {**ABSOLUTE_UNITS, **FONT_RELATIVE_UNITS}
_FONT_SIZE_UNITS = {**ABSOLUTE_UNITS, **FONT_RELATIVE_UNITS, "%": 0.16}
_FONT_SIZE_KEYWORDS = frozenset(
    ("xx-small", "x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large")
)
_SCALE_FUNCTIONS = {"scale": 2, "scale3d": 2, "scalex": 1, "scaley": 1}  # name -> x/y factors
_TRANSLATE_FUNCTIONS = ("translate", "translate3d", "translatex", "translatey")
_ANGLE_UNITS = {"deg": 1.0, "rad": 180 / math.pi, "grad": 0.9, "turn": 360.0}


def _offscreen(value: str, units: Mapping[str, float] = _LENGTH_UNITS) -> bool:
    distance = measure(value, units)
    return distance is not None and distance <= _OFFSCREEN_PX


def _zero(value: str) -> bool:
    return measure(value, _LENGTH_UNITS) == 0


def _tiny(value: str | None) -> bool:
    size = measure(value, _LENGTH_UNITS)
    return size is not None and size <= 1


def _opacity(css: Mapping[str, str]) -> float:
    """The share of its content's paint a box lets through: its ``opacity`` times its
    filter's ``opacity()``."""
    levels = [measure(css.get("opacity"), NUMBER_UNITS)] + [
        measure(args[0], NUMBER_UNITS)
        for name, args in functions(css.get("filter", ""))
        if name == "opacity" and args
    ]
    share = 1.0
    for level in levels:
        if level is not None:
            share *= min(max(level, 0.0), 1.0)
    return share


def _faded(css: Mapping[str, str]) -> bool:
    return _opacity(css) <= _FAINT


def _faded_with_ancestors(element: etree._Element, style: str) -> bool:
    """Faint boxes inside faint boxes: opacity multiplies down the tree, so two boxes at
    0.2 paint their text at 0.04."""
    share = _opacity(declarations(style))
    if share >= 1.0:
        return False
    for ancestor in element.iterancestors():
        outer = ancestor.get("style")
        if outer and "opacity" in outer:
            share *= _opacity(declarations(outer))
            if share <= _FAINT:
                return True
    return False


def _moved_offscreen(css: Mapping[str, str]) -> bool:
    """Pushed off screen; ``left`` and its kin move only a positioned box, so an explicit
    ``position:static`` undoes them (an unknown position may come from a sheet: it counts)."""
    static = css.get("position") == "static"
    if not static and _far_up(css.get("bottom")):
        return True
    return any(
        _offscreen(token)
        for prop in _OFFSET_PROPERTIES
        if not (static and prop in _INSETS)
        for token in tokens(css.get(prop, ""))
    )


def _far_up(bottom: str | None) -> bool:
    """``bottom`` so large the box sits above the top of any page (a percentage is of
    its container, which may be tall: a tooltip's ``bottom:100%`` is on screen)."""
    distance = measure(bottom, _TRANSLATION_UNITS)
    return distance is not None and distance >= _FAR_UP_PX


def _transformed_away(css: Mapping[str, str]) -> bool:
    """Scaled to nothing, flattened by a matrix, turned edge-on or its back to the reader
    (with its back face hidden), or translated off screen."""
    steps = functions(css.get("transform", ""))
    steps += [(prop, tokens(css[prop])) for prop in ("scale", "translate") if prop in css]
    backface_hidden = css.get("backface-visibility") == "hidden"
    for name, args in steps:
        if name in ("rotatex", "rotatey") and args:
            angle = measure(args[0], _ANGLE_UNITS)
            if angle is not None:
                turned = math.cos(math.radians(angle))
                if abs(turned) <= _FAINT or (backface_hidden and turned < 0):
                    return True
        if name in _SCALE_FUNCTIONS:
            factors = [measure(arg, NUMBER_UNITS) for arg in args[: _SCALE_FUNCTIONS[name]]]
            if any(factor is not None and abs(factor) <= _FAINT for factor in factors):
                return True
        elif name in _TRANSLATE_FUNCTIONS:
            if any(_offscreen(arg, _TRANSLATION_UNITS) for arg in args[:2]):
                return True
        elif name == "matrix" and len(args) == 6:
            values = [v for v in (measure(arg, NUMBER_UNITS) for arg in args) if v is not None]
            if len(values) < 6:
                continue
            a, b, c, d, e, f = values
            if abs(a * d - b * c) <= _FAINT**2 or min(e, f) <= _OFFSCREEN_PX:
                return True
    return False


def _text_transparent(css: Mapping[str, str]) -> bool:
    fill = css.get("-webkit-text-fill-color") or css.get("color")
    if fill is None or alpha(fill) > _FAINT:
        return False
    backgrounds = ("background-clip", "-webkit-background-clip", "background")
    return not any("text" in tokens(css.get(prop, "")) for prop in backgrounds)


def _clip_rect_empty(clip: str) -> bool:
    """``rect(top, right, bottom, left)`` leaves at most a pixel; ``auto`` edges clip nothing."""
    edges = tokens(clip[5:].rstrip(")"))
    if len(edges) != 4:
        return all(n <= 1 for n in numbers(clip))
    top, right, bottom, left = (measure(edge, ABSOLUTE_UNITS) for edge in edges)
    width = None if right is None else right - (left or 0.0)
    height = None if bottom is None else bottom - (top or 0.0)
    return any(size is not None and size <= 1 for size in (width, height))


def _clipped(css: Mapping[str, str]) -> bool:
    clip = css.get("clip", "")
    if clip.startswith("rect(") and _clip_rect_empty(clip):
        return True
    clip_path = css.get("clip-path", "")
    if clip_path.startswith("inset(") and any(n >= 50 for n in numbers(clip_path)):
        return True
    if clip_path.startswith("polygon("):
        return _polygon_empty(clip_path[8:].rstrip(")"))
    if clip_path.startswith("ellipse("):
        return 0.0 in numbers(clip_path[8:].partition(" at ")[0])
    return clip_path.startswith("circle(") and numbers(clip_path)[:1] == [0.0]


_COORDINATE_RE = re.compile(r"(-?\d*\.?\d+)(px|%)?")


def _coordinate(value: str) -> tuple[float, str] | None:
    """A polygon point's coordinate and its unit (none for a bare ``0``)."""
    match = _COORDINATE_RE.fullmatch(value)
    if match is None:
        return None
    number = float(match.group(1))
    return number, (match.group(2) or "") if number else ""


def _polygon_empty(points: str) -> bool:
    """A polygon of no area (its points on one line): nothing of the box is painted.
    Points in one unit only (``0`` fits any); mixed units cannot be told apart here."""
    parts = tokens(points, ",")
    if parts and parts[0] in ("nonzero", "evenodd"):
        parts = parts[1:]
    coordinates: list[tuple[float, float]] = []
    units: set[str] = set()
    for part in parts:
        pair = [_coordinate(value) for value in part.split()]
        if len(pair) != 2 or pair[0] is None or pair[1] is None:
            return False
        (x, x_unit), (y, y_unit) = pair[0], pair[1]
        units.update(unit for unit in (x_unit, y_unit) if unit)
        coordinates.append((x, y))
    if len(coordinates) < 3 or len(units) > 1:
        return False
    following = coordinates[1:] + coordinates[:1]
    doubled = sum(x * y2 - x2 * y for (x, y), (x2, y2) in zip(coordinates, following, strict=True))
    return doubled == 0


def _collapsed(css: Mapping[str, str]) -> bool:
    """A collapsed box clips its content, unless padding gives it size (aspect-ratio boxes)."""
    return (
        css.get("overflow") in ("hidden", "clip")
        and any(_tiny(css.get(prop)) for prop in _SIZE_PROPERTIES)
        and not any(
            prop.startswith("padding") and not all(_zero(token) for token in tokens(value))
            for prop, value in css.items()
        )
    )


@lru_cache(maxsize=4096)
def style_hides(style: str) -> bool:
    """Whether an inline style alone makes an element's content invisible."""
    css = declarations(style)
    return (
        css.get("display") == "none"
        or css.get("visibility") in ("hidden", "collapse")
        or css.get("content-visibility") == "hidden"
        or _faded(css)
        or _moved_offscreen(css)
        or _clipped(css)
        or _transformed_away(css)
        or _text_transparent(css)
        or _collapsed(css)
        or _zoomed_away(css)
    )


def _zoomed_away(css: Mapping[str, str]) -> bool:
    """``zoom`` to a speck (``zoom:0`` itself means no zoom)."""
    zoom = measure(css.get("zoom"), NUMBER_UNITS)
    return zoom is not None and 0 < zoom <= _FAINT


_WHITE = (255, 255, 255)
_JUDGED: ContextVar[str | None] = ContextVar("judged", default=None)


@lru_cache(maxsize=8192)
def declaration_hides(prop: str, value: str) -> bool:
    """Whether one declaration can make an element's text invisible on its own (or,
    for a size, with the overflow clipping that usually goes with it; for an opacity
    under 1, with its ancestors'): the cascade matches the rules that hold one first."""
    if prop in ("opacity", "filter"):
        return _opacity({prop: value}) < 1.0 or style_hides(f"{prop}:{value}")
    if prop in ("color", "-webkit-text-fill-color"):
        if alpha(value) <= _FAINT:
            return True
        colour = solid_colour(value)
        return isinstance(colour, tuple) and _contrast(colour, _WHITE) < _INDISTINCT
    if prop == "font-size":
        size = measure(value, _FONT_SIZE_UNITS)
        return size is not None and size < 1
    if prop == "font":
        size = measure(
            value.split("/", maxsplit=1)[0].rsplit(" ", maxsplit=1)[-1], _FONT_SIZE_UNITS
        )
        return size is not None and size < 1
    if prop in _SIZE_PROPERTIES:
        return _tiny(value)
    if prop.startswith(("background", "padding", "-webkit-background")) or prop == "overflow":
        return False
    return style_hides(f"{prop}:{value}")


@lru_cache(maxsize=1024)
def class_hides(classes: str) -> bool:
    """A hiding utility class, unless a responsive variant shows the element again."""
    names = classes.split()
    if not any(name in _HIDING_CLASSES for name in names):
        return False
    return not any(
        ":" in name or (name.startswith(("d-", "visible-")) and name != "d-none") for name in names
    )


def _shorthand_size(font: str) -> str:
    """The size in a ``font`` shorthand (``bold 0/0 a``: the token before the slash)."""
    return font.split("/", maxsplit=1)[0].rsplit(" ", maxsplit=1)[-1]


def _font_size(element: etree._Element) -> str | None:
    style = element.get("style")
    if not style:
        return None
    css = declarations(style)
    shorthand = css.get("font")
    if "font-size" not in css and shorthand:  # "font: 0/0 a" sets the size too
        return _shorthand_size(shorthand)
    return css.get("font-size")


def _font_too_small(element: etree._Element) -> bool:
    """Text under 1px is unreadable; ``font-size:0`` is also the inline-block gap fix."""
    if _JUDGED.get() is not None:
        return False  # the browser measured it
    size = measure(_font_size(element), _FONT_SIZE_UNITS)
    return size is not None and size < 1


def _sets_font_size(element: etree._Element) -> bool:
    """A readable size that does not scale the parent's (an ``em`` of nothing is nothing)."""
    size = _font_size(element)
    if size in _FONT_SIZE_KEYWORDS:
        return True
    pixels = measure(size, ABSOLUTE_UNITS)
    return pixels is not None and pixels >= 1


def _strip_unseen_text(
    element: etree._Element, seen: Callable[[etree._Element], bool] | None = None
) -> None:
    """Keep of ``element`` only the descendants ``seen`` says a reader sees again
    (inside a ``font-size:0`` box, those that set their own size; inside a
    ``visibility:hidden`` one, those that set ``visibility:visible``)."""
    seen = seen or _sets_font_size
    element.text = None
    for child in list(element):
        child.tail = None
        if seen(child):
            continue
        if any(seen(d) for d in child.iterdescendants()):
            _strip_unseen_text(child, seen)
        else:
            element.remove(child)


def _visible_again(element: etree._Element) -> bool:
    """``visibility:visible`` inside a ``visibility:hidden`` box: inherited hiding undone."""
    style = element.get("style")
    return bool(style) and declarations(style).get("visibility") == "visible"


def _hidden_by_visibility_only(element: etree._Element) -> bool:
    """Hidden by ``visibility`` alone, which a descendant may set back to ``visible``."""
    if _JUDGED.get() is not None or element.get("hidden") is not None:
        return False
    style = element.get("style")
    if not style:
        return False
    css = declarations(style)
    if css.get("visibility") not in ("hidden", "collapse"):
        return False
    rest = "; ".join(f"{p}:{v}" for p, v in css.items() if p != "visibility")
    return not (style_hides(rest) or _colour_matches_background(element, rest))


def _background(element: etree._Element) -> tuple[int, int, int] | str | None:
    """The nearest background colour declared inline on the element or an ancestor."""
    for node in (element, *element.iterancestors()):
        style = node.get("style")
        if style:
            css = declarations(style)
            if css.get("background-image", "none") != "none":
                return None  # a picture: the colour behind the text is unknown
            value = css.get("background-color") or css.get("background")
            if value and value not in ("none", "transparent"):
                return solid_colour(value)  # None for an image: the colour is unknown
        legacy = node.get("bgcolor")
        if legacy:
            return solid_colour(legacy.strip().lower())
    return _WHITE  # the canvas of a page in the light scheme


def _colour_matches_background(element: etree._Element, style: str) -> bool:
    """Text painted in the colour of the background behind it, or one no eye tells
    from it (#fefefe on white)."""
    value = declarations(style).get("color")
    colour = solid_colour(value) if value else None
    if colour is None:
        return False
    background = _background(element)
    if isinstance(colour, tuple) and isinstance(background, tuple):
        return _contrast(colour, background) < _INDISTINCT
    return colour == background


def _luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2 relative luminance."""
    linear = [
        c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in rgb)
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2 contrast ratio: 1 for the same colour, 21 for black on white."""
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _hidden(element: etree._Element) -> bool:
    return _aria_hidden(element) or _out_of_sight(element)


def _aria_hidden(element: etree._Element) -> bool:
    """Out of the accessibility tree: for icons and decoration, but painted on screen."""
    return (element.get("aria-hidden") or "").strip().lower() == "true"


def _out_of_sight(element: etree._Element) -> bool:
    """Not painted, or painted so that no one can read it."""
    mark = _JUDGED.get()
    if mark is not None:  # a browser rendered the page and marked what it hides
        return element.get(mark) is not None
    if element.tag == "dialog" and element.get("open") is None:
        return True
    if element.get("popover") is not None:
        return True  # a popover is not shown until a script or a button opens it over the page
    hidden = element.get("hidden")
    if hidden is not None and hidden.strip().lower() != "until-found":
        return True  # "until-found" content is found by find-in-page and shown
    style = element.get("style")
    if style and (style_hides(style) or _colour_matches_background(element, style)):
        return True
    if style and "opacity" in style and _faded_with_ancestors(element, style):
        return True
    classes = element.get("class")
    return bool(classes) and class_hides(classes)


def _disclosure_targets(root: etree._Element) -> frozenset[str]:
    """The ids of the panels a reader can open with a control the reader can see, and
    ``_SHOWN_TABS`` if the page shows a tab (which opens its tab panels).

    A control inside a closed panel counts once that panel can be opened itself (a
    nested accordion), so the set grows until it stops changing.
    """
    controls: list[tuple[etree._Element, set[str]]] = []
    for mark in cast("list[etree._ElementUnicodeResult]", _CONTROL_MARKS(root)):
        control = mark.getparent()
        if control is None or not _opens_a_panel(control, str(mark.attrname)):
            continue
        ids = {name.lstrip("#") for name in (control.get("aria-controls") or "").split()}
        for attribute in ("data-target", "data-bs-target", "href"):
            value = (control.get(attribute) or "").strip()
            if value.startswith("#") and len(value) > 1:
                ids.add(value[1:])
        controls.append((control, ids - {""}))
    targets: set[str] = set()
    pending = controls
    while pending:
        shown = [(c, ids) for c, ids in pending if _control_shown(c, targets)]
        if not shown:
            break
        for _, ids in shown:
            targets |= ids
        pending = [(c, ids) for c, ids in pending if not any(c is s for s, _ in shown)]
    if any(_control_shown(tab, targets) for tab in elements(_TABS, root)):
        targets.add(_SHOWN_TABS)
    return frozenset(targets)


def _control_shown(control: etree._Element, openable: set[str]) -> bool:
    """Whether a reader sees ``control``: neither it nor an ancestor is hidden, except
    by being a panel the reader can open (a tab panel, a target of a shown control)."""
    if _hidden(control):
        return False
    for ancestor in control.iterancestors():
        if ancestor.tag in _PAGE_ROOTS or not _hidden(ancestor):
            continue
        if ancestor.get("role") != "tabpanel" and ancestor.get("id") not in openable:
            return False
    return True


def _opens_a_panel(control: etree._Element, mark: str) -> bool:
    """Whether the element holding the attribute ``mark`` is a disclosure control."""
    get = control.get
    if control.tag not in _CONTROL_TAGS and get("role") not in _CONTROL_ROLES:
        return False  # not something a reader can press
    if mark == "aria-controls":
        return True
    if mark != "href":  # data-target, data-bs-target
        return (get(mark) or "").startswith("#")
    if get("role") == "tab" or get("data-toggle") is not None or get("data-bs-toggle") is not None:
        return True
    return any(a.get("role") in _TAB_ROLES for a in islice(control.iterancestors(), 3))


def _closed_panel(element: etree._Element) -> bool:
    """Hidden only the ways a closed tab or accordion panel is: no other trick."""
    if _font_too_small(element):
        return False
    style = element.get("style")
    if style:
        css = declarations(style)
        closing = _CLOSING_PROPERTIES.intersection(css)
        # a panel that animates shut fades as it folds: its opacity is part of the state
        ignored = closing | {"opacity"} if closing else closing
        rest = {prop: value for prop, value in css.items() if prop not in ignored}
        if style_hides("; ".join(f"{p}:{v}" for p, v in rest.items())):
            return False
        if _colour_matches_background(element, style):
            return False
    classes = (element.get("class") or "").split()
    return not any(name in _READER_ONLY_CLASSES for name in classes)


def _menu(element: etree._Element) -> bool:
    """A drop-down of the site's navigation: a panel, but of links, not of the page."""
    if any(a.tag in _MENU_TAGS or a.get("role") == "navigation" for a in element.iterancestors()):
        return True
    total = len(text_of(element).split())
    links = sum(len(text_of(link).split()) for link in element.iter("a"))
    return total > 0 and links >= _MENU_LINK_SHARE * total


def _panel(element: etree._Element, targets: frozenset[str]) -> bool:
    """A tab panel on a page that shows tabs, a control's target, or the box that folds
    one shut (a collapse wrapper whose only text is the target's)."""
    if element.get("role") == "tabpanel" and _SHOWN_TABS in targets:
        return True
    if element.get("id") in targets:
        return True
    if not targets:
        return False
    held = [node for node in elements(_IDENTIFIED, element) if node.get("id") in targets]
    if not held:
        return False
    length = number(_TEXT_LENGTH, element)
    return any(number(_TEXT_LENGTH, node) == length for node in held)


def _revealable(element: etree._Element, targets: frozenset[str]) -> bool:
    """A panel a reader opens with a click: its content is part of the page."""
    if not _panel(element, targets):
        return False
    return element.tag != "dialog" and _closed_panel(element) and not _menu(element)


def _main_container(root: etree._Element) -> etree._Element | None:
    """The page's one ``<main>`` (else its one ``role=main``), if it has exactly one."""
    for path in _MAINS:
        found = elements(path, root)
        if found:
            return found[0] if len(found) == 1 else None
    return None


def _holds_the_page(
    element: etree._Element,
    body: etree._Element,
    length: float,
    painted: list[list[etree._Element]],
) -> bool:
    """Everything a reader could see on the page is inside ``element``: every character
    of the body's text (``length``, measured before any hidden block was removed), every
    image, form field and background image, and every frame, canvas or drawing
    (``painted``: the ancestors of each, taken before they were dropped). Hiding it
    hides the page as hiding ``<body>`` does (scripts reveal it); nothing can sit
    beside it for a reader to see instead."""
    if number(_TEXT_LENGTH, element) != length:
        return False
    if any(_paints(ancestor) for ancestor in element.iterancestors()):
        return False
    for node in body.iter(etree.Element):
        if (node.tag in _SEEN_ELEMENTS or _paints(node)) and not _inside(node, element):
            return False
    return all(any(ancestor is element for ancestor in chain) for chain in painted)


def _paints(node: etree._Element) -> bool:
    """An inline background image (a picture of text is something a reader sees)."""
    return "url(" in (node.get("style") or "")


def _inside(node: etree._Element, element: etree._Element) -> bool:
    return node is element or any(ancestor is element for ancestor in node.iterancestors())


def _frames_page(element: etree._Element) -> bool:
    """Nothing with text sits beside ``element`` up to ``<body>``: a page shell, not a block."""
    length = number(_TEXT_LENGTH, element)
    for ancestor in element.iterancestors():
        if ancestor.tag in _PAGE_ROOTS:
            return True
        if number(_TEXT_LENGTH, ancestor) != length:
            return False
    return False


def _shell_of(element: etree._Element, main: etree._Element) -> bool:
    """An app root made ``aria-hidden`` (by a modal opened over it) around the page's one
    main container: still painted on screen, and the page's content."""
    return (
        _aria_hidden(element)
        and not _out_of_sight(element)
        and any(ancestor is element for ancestor in main.iterancestors())
        and _frames_page(element)
    )


def _keep_only(main: etree._Element, wrapper: etree._Element) -> None:
    """Of a hidden wrapper, keep the way down to ``main`` and nothing beside it."""
    node = main
    while node is not wrapper:
        parent = node.getparent()
        if parent is None:
            return
        parent.text = None
        node.tail = None
        for sibling in list(parent):
            if sibling is not node:
                parent.remove(sibling)
        node = parent


def _place_streamed_segments(root: etree._Element) -> None:
    """Move each React streaming segment into its placeholder, as React's runtime does."""
    placeholders = [
        template
        for template in root.iter("template")
        if template.get("id", "").startswith(_STREAM_PREFIXES)
    ]
    if not placeholders:
        return
    segments = {segment.get("id", "")[2:]: segment for segment in elements(_STREAM_SEGMENTS, root)}
    for placeholder in placeholders:
        segment = segments.get(placeholder.get("id", "")[2:])
        parent = placeholder.getparent()
        if segment is None or parent is None:
            continue
        for child in reversed(list(segment)):
            placeholder.addnext(child)
        if segment.text and segment.text.strip():
            placeholder.tail = segment.text + (placeholder.tail or "")
        segment.text = None
        remove(segment)


def _candidates(root: etree._Element) -> list[etree._Element]:
    """Elements that may be hidden, in document order: one walk over the tree, which
    costs half of the equivalent XPath (five ``contains()`` per element). Most elements
    have no attribute, and one call for their names answers for them."""
    mark = _JUDGED.get()
    if mark is not None:
        return [
            e
            for e in root.iter(etree.Element)
            if e.get(mark) is not None or e.get("aria-hidden") is not None
        ]
    found: list[etree._Element] = []
    for element in root.iter(etree.Element):
        names = element.keys()
        if not names:
            if element.tag == "dialog":
                found.append(element)
        elif not _HIDING_ATTRIBUTES.isdisjoint(names) or _may_hide(element):
            found.append(element)
    return found


def _may_hide(element: etree._Element) -> bool:
    """For an element with no attribute that hides by itself: a class word that may, or
    a dialog that is not open."""
    classes = element.get("class")
    if classes and _hiding_class(classes):
        return True
    return element.tag == "dialog" and element.get("open") is None


@lru_cache(maxsize=4096)
def _hiding_class(classes: str) -> bool:
    return _CANDIDATE_CLASS_RE.search(classes) is not None


def _prose_length(element: etree._Element) -> int:
    """Characters of text in ``element`` outside its links: a hidden menu is no page."""
    total = number(_TEXT_LENGTH, element)
    if not total:
        return 0
    links = sum(number(_TEXT_LENGTH, link) for link in element.iter("a"))
    return max(int(total - links), 0)


@dataclass(frozen=True)
class Sanitized:
    """What sanitising found: ``hidden``, the characters of text hidden outside links (a
    page that hides most of its text until scripts run is one for the browser, see
    ``quality``), and, when asked for, the page's reader text (see ``verbatim``)."""

    hidden: int
    reader: str | None = None


def _cut(element: etree._Element) -> None:
    """Remove ``element`` (keeping its tail) and leave a gap where it was: the reader
    text must not join what stood on either side of something painted there."""
    parent = element.getparent()
    if parent is None:
        return
    gap = etree.Element(GAP)
    tail = element.tail
    gap.tail = tail if tail and tail.strip() else None
    parent.replace(element, gap)


def sanitize(
    root: etree._Element,
    *,
    reader: bool = False,
    styles: Styles | None = None,
    judged_by: str | None = None,
) -> Sanitized:
    """Drop non-content and hidden elements from ``root`` in place, keeping their tails;
    ``reader`` also reads the page's reader text on the way."""
    _place_streamed_segments(root)
    body = root.find("body")
    painted = [list(e.iterancestors()) for e in body.iter(*_PAINTED)] if body is not None else []
    token = _JUDGED.set(judged_by)
    try:
        return _sanitize(root, body, painted, reader=reader, styles=styles)
    finally:
        _JUDGED.reset(token)


def _sanitize(
    root: etree._Element,
    body: etree._Element | None,
    painted: list[list[etree._Element]],
    *,
    reader: bool,
    styles: Styles | None,
) -> Sanitized:
    if _JUDGED.get() is None:
        cascade.apply(root, styles, declaration_hides)
    for element in [e for e in root.iter("svg", "object") if _PAINTED_TEXT(e)]:
        _cut(element)  # text a reader sees there, but not as page text
    etree.strip_elements(root, *_DROPPED_TAGS, with_tail=False)
    main: etree._Element | None = None
    main_found = False
    targets: frozenset[str] | None = None
    page_length = number(_TEXT_LENGTH, body) if body is not None else -1.0
    hidden = 0
    closed: list[etree._Element] = []
    # every element with a hidden attribute is a candidate, unless a browser judged
    found_in_page: list[etree._Element] | None = [] if _JUDGED.get() is None else None
    for element in _candidates(root):
        if element.getparent() is None:
            continue  # the root, or already cut out of a font-size:0 box
        if found_in_page is not None and element.get("hidden") == "until-found":
            found_in_page.append(element)
        if not _hidden(element):
            if not _font_too_small(element):
                continue
            if any(_sets_font_size(d) for d in element.iterdescendants()):
                _strip_unseen_text(element)
                continue
        elif _hidden_by_visibility_only(element) and any(
            _visible_again(d) for d in element.iterdescendants()
        ):
            _strip_unseen_text(element, _visible_again)
            css = declarations(element.get("style") or "")
            # what is left is seen: no later reader may take the box for a hidden one
            element.set("style", "; ".join(f"{p}:{v}" for p, v in css.items() if p != "visibility"))
            continue
        if element.tag in _PAGE_ROOTS or (
            body is not None and _holds_the_page(element, body, page_length, painted)
        ):
            continue  # the whole page, hidden until scripts reveal it
        if targets is None:
            targets = _disclosure_targets(root)
        if _revealable(element, targets):
            closed.append(element)  # revealed by the reader, not shown until then
            continue
        if not main_found:
            main, main_found = _main_container(root), True
        if main is not None and _shell_of(element, main):
            _keep_only(main, element)
        else:
            hidden += _prose_length(element)
            _cut(element)
    text = reader_text(root, closed, found_in_page) if reader else None
    unmark(root)
    return Sanitized(hidden, text)

"""The page's style sheets cascaded as a browser does, for the properties that decide
whether a reader sees an element.

``.note{display:none}`` in a ``<style>`` block or a linked sheet hides
``<p class="note">`` as surely as an inline style does. This module reads every sheet
of the page (``<style>`` anywhere, ``<link rel=stylesheet>``, ``@import`` four deep),
decides each at-rule for one desktop screen (see ``conditions``), matches selectors
with cssselect (compiled to XPath and run by lxml: every static selector, combinators,
attributes, structural pseudo-classes, ``:not``, ``:is``, ``:where``, ``:has``; dynamic
ones such as ``:hover`` never match), and cascades the winners (importance, the style
attribute, ``@layer`` order, specificity, source order) into each affected element's
``style`` attribute, where ``sanitize`` judges them with the same reader it uses for
inline styles. The ``hidden`` attribute is the user agent's ``display:none``: an author
rule that sets ``display`` shows the element again, as in a browser.

Most selectors are plain compounds (a tag, classes, an id, attribute tests) joined by
combinators: those are read once into a plan and matched in Python, right to left on
the few candidates a page index gives, or left to right from the elements that fit
their first compound when they walk a descendant or sibling axis; the XPath is the
reference they are tested against, and reads every other selector.

Only what can matter is compiled: rules whose declarations can hide (``display:none``,
a tiny size, a colour a reader cannot see, ...) are matched first; rules that may show
an element again, or give it the background its text is judged against, are matched
only when they name a class, id or tag of an element the first pass found. A rule
whose last compound names a class, id or tag the page lacks is never compiled, so a
framework's thousands of rules cost a set lookup each. Parsed sheets are cached by
their text: a site's pages share them.

Where a condition has no single answer for that reader (a container query, an unknown
pseudo-class), a declaration that hides applies and one that shows does not; inside
``:not()`` such a condition is decided the other way, to the same end.

cssselect parses neither ``:not()`` of a list or of complex selectors (nor ``:not()``
inside ``:is()`` or ``:where()``), nor ``:nth-child(An+B of S)``, nor an attribute's
case flag, nor ``:is()`` and ``:where()`` of complex selectors, nor ``:has()`` of more
than a tag and classes: a selector that fails to parse is rewritten into markers it
does parse, each replaced by a node of its form (``_rewritten``, ``_resolve``).
Chromium drops a rule with the ``s`` flag that Firefox applies: such a rule hides but
never shows. ``:is()`` and ``:where()`` forgive as in Selectors 4 (an argument with a
pseudo-element is dropped; one that cannot be read has no single answer); ``:has()``
does not (a rule with an invalid argument, or ``:has()`` inside ``:has()``, is
dropped, as a browser drops it; a rule with an argument of more than two walking
steps is left unread, for what it would cost).

Custom properties (``--x``, registered by ``@property`` or not) cascade and inherit like
any property; a ``var()`` in a property that hides whatever the layout is computed per
element (see ``variables``), on the elements its rule matches and their ancestors only.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import ClassVar, cast
from urllib.parse import urljoin

from cssselect import HTMLTranslator, SelectorError, parse
from cssselect.parser import (
    Attrib,
    Class,
    CombinedSelector,
    Element,
    Function,
    Hash,
    Matching,
    Negation,
    Pseudo,
    Relation,
    Selector,
    SpecificityAdjustment,
    Token,
    Tree,
    parse_series,
    tokenize,
)
from cssselect.xpath import ExpressionError, XPathExpr
from lxml import etree

from sleuth.extract.conditions import Truth, media_matches, supports_matches
from sleuth.extract.css import alpha, raw_declarations, unescape, weighted_declarations
from sleuth.extract.dom import elements
from sleuth.extract.styles import MAX_IMPORT_DEPTH, Styles, is_stylesheet_link, parse_imports
from sleuth.extract.variables import INHERITING, INITIAL, could_be, substitute, uses_variables

# The properties through which a style hides an element, shows it again, or gives its
# text the colour and background it is judged by.
RELEVANT = frozenset(
    (
        *("display", "visibility", "opacity", "content-visibility", "filter", "zoom"),
        *("font-size", "font", "color", "-webkit-text-fill-color", "background"),
        *("background-color", "background-image", "background-clip"),
        *("-webkit-background-clip", "left", "right", "top", "bottom", "inset", "position"),
        *("inset-inline-start", "inset-block-start", "margin", "margin-left"),
        *("margin-top", "margin-inline-start", "margin-block-start", "text-indent"),
        *("clip", "clip-path", "height", "max-height", "width", "max-width"),
        *("overflow", "transform", "scale", "translate", "backface-visibility"),
        *("padding", "padding-top", "padding-bottom", "padding-left", "padding-right"),
    )
)
# Inherited properties a descendant of a hidden element may set to be seen again.
# (A colour is not among them: the extractor drops text in its background's colour with
# everything inside it, so a descendant's own colour would change nothing.)
_RESHOWING = frozenset(("visibility", "font-size", "font"))
_OFFSET_NAMES = ("left", "right", "top", "bottom", "inset", "margin", "indent")
_BACKGROUND = frozenset(("background", "background-color", "background-image"))
# Declarations that may hide, found without parsing: every value that can hide is
# matched (a light or see-through colour by its look, judged exactly once parsed). Each
# pattern starts with a literal, so it runs over a lower-cased sheet at C speed, and
# every repetition is bounded, so no sheet makes it scan more than a window per match
# (a value longer than the window is matched by the last group, whatever it holds).
_S = r"\s{0,8}"
_V = r"[^;}]{0,256}"
_NUMBER = r"\d{0,12}\.?\d{1,12}"
_FAR = rf"-{_S}(?:\d{{3}}|{_NUMBER}e|\d{{1,12}}(?:\.\d{{1,12}})?v)"
_VALUE_SCANNED = ("font", "filter", "transform", "color", *_OFFSET_NAMES)
_MAY_HIDE = tuple(
    re.compile(pattern)
    for pattern in (
        rf"display{_S}:{_S}none",
        rf"visibility{_S}:{_S}(?:hidden|collapse)",
        rf"opacity{_S}:{_S}(?:[+-]?0{{0,8}}\.\d|\d{{1,2}}(?:\.\d{{1,12}})?%|0{{1,8}}{_S}(?:[;}}!%]|$)"
        r"|-|calc|var)",
        rf"zoom{_S}:{_S}(?:0{{0,8}}\.0|-)",
        rf"filter{_S}:{_V}opacity",
        rf"font-size{_S}:{_S}(?:(?:0|0?\.\d{{1,12}})[a-z%]{{0,4}}{_S}(?:[;}}!]|$)|calc|min\(|max\(|clamp)",
        rf"font{_S}:{_V}(?<![\w.#-])(?:0|0?\.\d{{1,12}})[a-z%]{{0,4}}{_S}/",
        rf"color(?<!-color){_S}:{_S}(?:#[ef]|white|transparent|rgba?\({_S}2[3-5]\d"
        rf"|rgba?\([^)]{{0,64}}[,/]{_S}(?:0|0?\.0\d{{0,12}})%?{_S}\)|hsla?\(|hwb|lab|lch|oklab"
        r"|oklch|color\(|[a-z]{0,16}(?:white|snow|ivory|azure|cream|honeydew|linen|blush"
        r"|shell|lace|smoke))",
        rf"fill-color{_S}:",
        *(
            rf"{name}[\w-]{{0,32}}{_S}:{_V}(?:{_FAR}|calc|min\(|max\(|clamp)"
            for name in _OFFSET_NAMES
        ),
        rf"bottom{_S}:{_S}\+?(?:\d{{4}}|{_NUMBER}e)",
        rf"height{_S}:{_S}(?:0|1px|0?\.\d|-|calc|min\(|max\(|clamp)",
        rf"width{_S}:{_S}(?:0|1px|0?\.\d|-|calc|min\(|max\(|clamp)",
        rf"clip{_S}:{_S}rect",
        rf"clip-path{_S}:",
        rf"transform{_S}:{_V}(?:matrix|rotate[xy]|scale\w{{0,4}}\({_S}(?:[^)]{{0,64}}[,\s])?"
        rf"[-+]?0{{0,8}}(?:\.0\d{{0,12}})?{_S}[,)]|translate\w{{0,4}}\([^)]{{0,64}}{_FAR})",
        rf"scale{_S}:",
        rf"translate{_S}:",
        r"\\",
        r"var\(",
        *(rf"{name}[\w-]{{0,32}}{_S}:[^;}}]{{256}}" for name in _VALUE_SCANNED),
    )
)


def _hiding_positions(css: str) -> list[int]:
    """Where a declaration that may hide stands in ``css``, in order."""
    lower = css.lower()
    return sorted(match.start() for pattern in _MAY_HIDE for match in pattern.finditer(lower))


_COMMENT_RE = re.compile(r"/\*.*?(?:\*/|\Z)", re.DOTALL)
# Braces outside strings: the structure of a sheet, read at C speed.
# A quoted string, escapes included: its braces, brackets and commas are text.
_STRING = r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"""
_STRUCTURE_RE = re.compile(rf"{_STRING}|[{{}}]")
_BRACES_RE = re.compile(r"[{}]")
# The last compound of a selector, for the cheap test of whether a page can match it.
# An escape is one unit of a name: a hex escape takes the space after it ("#\\31 23").
_ESC = r"\\(?:[0-9a-fA-F]{1,6}[ \t\n\r\f]?|.)"
_LAST_COMPOUND_RE = re.compile(
    rf"(?:^|[\s>+~])((?:[\w*-]|{_ESC})*(?:[.#:](?:[\w-]|{_ESC})+)*)\s*$", re.DOTALL
)
_KEY_PART_RE = re.compile(rf"([.#:]?)((?:[\w*-]|{_ESC})+)", re.DOTALL)
_QUOTED_RE = re.compile(_STRING)
# An at-keyword is read with its escapes resolved: "@\\6d edia" is @media to a browser.
_AT_KEYWORD_RE = re.compile(rf"@((?:[\w-]|{_ESC})+)", re.DOTALL)
_AT_NAME_RE = re.compile(r"-?[a-zA-Z][a-zA-Z-]*")
_GROUP_RE = re.compile(r"\[[^\[\]]*\]|\([^()]*\)")
_GROUP_DEPTH = 4
_NOT_PLAIN = "()[]|\\\"'"
# At-rules whose blocks hold no style rules for the page (fonts, animations, pages).
# At-rules a reader's screen cannot decide: hiding applies inside them, showing does not.
_UNDECIDED_AT_RULES = frozenset(("container", "scope", "document"))
# More CSS than this in one page is a framework's, not an author's: the rest is unread.
MAX_CSS = 8_000_000
_INFINITY = 1 << 30


Judge = Callable[[str, str], bool]


@dataclass(frozen=True)
class Declaration:
    prop: str
    value: str
    important: bool
    hides: bool  # whether it can make an element invisible
    # the value as written when it reads custom properties (``var()``): what it hides is
    # known only per element, once they are (see ``variables``)
    raw: str | None = None


@dataclass(frozen=True)
class _Rule:
    selectors: tuple[str, ...]
    keys: tuple[str | None, ...]  # per selector: its last compound's id, class or tag
    content: str  # its own declarations, read only when the rule is matched
    may_hide: bool  # a declaration that can hide is written in it (found at C speed)
    certain: bool  # False: inside a condition with no single answer (hiding applies only)
    layer: tuple[str, ...] | None  # None: not in a layer
    order: int


@lru_cache(maxsize=65536)
def _declarations(content: str, certain: bool, judge: Judge) -> tuple[Declaration, ...]:
    """A rule's declarations bearing on visibility (only those that hide, under a
    condition with no single answer)."""
    raw = raw_declarations(content) if "var(" in content.lower() else {}
    declared = (
        Declaration(prop, value, important, judge(prop, value), _raw(raw, prop, value))
        for prop, (value, important) in weighted_declarations(content).items()
        if prop in RELEVANT
    )
    return tuple(d for d in declared if certain or d.hides or d.raw is not None)


def _raw(raw: Mapping[str, tuple[str, bool]], prop: str, value: str) -> str | None:
    return raw[prop][0] if prop in raw and _reads_variables(prop, value) else None


# The properties whose var() is read: those that hide whatever the layout. A size or an
# offset hides only with a layout a static reader cannot know (a flex item 1px high
# grows), and a background only decides next to the backgrounds between it and the text
# (a theme's bar inside a dark page), so those read from a variable stay unknown, as
# before variables were read.
_RESOLVED = frozenset(
    (
        *("display", "visibility", "opacity", "content-visibility", "filter", "zoom"),
        *("font-size", "font", "color", "-webkit-text-fill-color"),
    )
)


def _reads_variables(prop: str, value: str) -> bool:
    return prop in _RESOLVED and uses_variables(value)


@lru_cache(maxsize=65536)
def _custom_properties(content: str) -> tuple[tuple[str, str, bool], ...]:
    """The custom properties a block declares: (name, value as written, important)."""
    if "--" not in content:
        return ()
    return tuple(
        (name, value, important)
        for name, (value, important) in raw_declarations(content).items()
        if name.startswith("--")
    )


@dataclass(frozen=True)
class _Sheet:
    rules: tuple[_Rule, ...]
    layers: tuple[tuple[str, ...], ...]  # the layers it names, in order of appearance
    # The rules by the keys of their selectors (None: a selector that names none), so a
    # page looks up only the rules that can match it, however large the sheet.
    by_key: dict[str | None, tuple[int, ...]]
    registered: tuple[Registration, ...] = ()  # its @property rules, in order


@dataclass(frozen=True)
class Registration:
    """``@property --x {...}``: the value an element has where nothing declares the
    custom property (None: none), and whether it inherits."""

    name: str
    initial: str | None
    inherits: bool


def _registration(name: str, content: str) -> Registration | None:
    """An ``@property`` rule a browser accepts: a syntax, whether it inherits, and an
    initial value unless the syntax is the universal one."""
    descriptors = raw_declarations(content)
    syntax = descriptors.get("syntax", ("", False))[0].strip("'\" ")
    inherits = descriptors.get("inherits", ("", False))[0].lower()
    initial = descriptors.get("initial-value")
    if not name.startswith("--") or not syntax or inherits not in ("true", "false"):
        return None
    if initial is None and syntax != "*":
        return None
    return Registration(name, initial[0] if initial else None, inherits == "true")


def _by_key(rules: list[_Rule]) -> dict[str | None, tuple[int, ...]]:
    keyed: dict[str | None, list[int]] = defaultdict(list)
    for position, rule in enumerate(rules):
        keys = rule.keys
        for key in keys if len(keys) == 1 else dict.fromkeys(keys):
            keyed[key].append(position)
    return {key: tuple(positions) for key, positions in keyed.items()}


@dataclass(frozen=True)
class _Placed:
    """A rule of the page's cascade: where its sheet stands and under what conditions."""

    rule: _Rule
    certain: bool
    layer: tuple[str, ...] | None
    order: tuple[int, int]  # the sheet's place in the page, the rule's in the sheet
    judge: Judge


# Selectors cssselect cannot parse, read by rewriting each such form into a marker it
# does parse (":sleuth-form(N)", N its place in a list kept beside the text) and then
# putting in its place a node of the form: ":not()" of a list or of complex selectors,
# ":nth-child(An+B of S)" and ":nth-last-child()", an attribute test with a case flag
# ("[lang=EN i]"), ":is()" and ":where()" of complex selectors (forgiving: an argument
# with a pseudo-element is dropped) and ":has()" of relative selectors. Only a selector
# that fails to parse is rewritten; a marker written in the page itself is not one of
# the list, and the selector is not read.
_FORM = "sleuth-form"
_FORMS_RE = re.compile(
    rf"{_STRING}|{_ESC}|(:not\(|:nth-child\(|:nth-last-child\(|:is\(|:where\(|:has\(|\[)",
    re.IGNORECASE | re.DOTALL,
)
_COMMAS_RE = re.compile(rf"{_STRING}|{_ESC}|[()\[\],]", re.DOTALL)
_RELATIVE_RE = re.compile(r"\s*([>+~]?)\s*(.*)", re.DOTALL)
_BRACKETS_RE = re.compile(rf"{_STRING}|{_ESC}|[()\[\]]", re.DOTALL)
_NTH_OF_RE = re.compile(r"nth-(?:last-)?child\([^)]*\sof\s", re.IGNORECASE)
_OF_RE = re.compile(r"\s*(\S.*?)\s+of\s+(\S.*?)\s*", re.IGNORECASE | re.DOTALL)
_ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ASCII_LOWER = str.maketrans(_ASCII_UPPER, _ASCII_UPPER.lower())


class _NoneOf(Function):
    """``:not(a, b c)``: an element that matches none of the selectors."""

    def __init__(self, selector: Tree, alternatives: tuple[Selector, ...]) -> None:
        super().__init__(selector, "not", [])
        self.alternatives = tuple(alternative.parsed_tree for alternative in alternatives)


class _NthOf(Function):
    """``:nth-child(An+B of S)``: the element matches S and is the nth of its siblings
    that do."""

    def __init__(
        self, selector: Tree, name: str, series: list[Token], alternatives: tuple[Selector, ...]
    ) -> None:
        super().__init__(selector, name, series)
        self.alternatives = tuple(alternative.parsed_tree for alternative in alternatives)


class _Undecided(Pseudo):
    """An argument of ``:is()`` or ``:where()`` that cannot be read: no single answer
    (a pseudo-element's, which a browser drops, is left out instead)."""

    def __init__(self) -> None:
        super().__init__(Element(), _FORM)


class _Has(Function):
    """``:has()`` of relative selectors: an element with any one of them matching from
    it (``> .a .b``: a child ``.a`` with a descendant ``.b``)."""

    def __init__(self, selector: Tree, relatives: tuple[tuple[str, Tree], ...]) -> None:
        super().__init__(selector, "has", [])
        self.relatives = relatives


class _FlaggedAttribute(Attrib):
    """``[name op value i]`` (the value compared in ASCII lower case) or ``[... s]``
    (compared as written; Chromium drops a rule with it, Firefox applies it: no single
    answer)."""

    def __init__(self, selector: Tree, test: Attrib, flag: str) -> None:
        super().__init__(
            selector, test.namespace, test.attrib, test.operator, cast(Token, test.value)
        )
        self.flag = flag


def _closing(text: str, start: int) -> int | None:
    """Where the bracket opened just before ``start`` closes (the index after it)."""
    depth = 1
    for match in _BRACKETS_RE.finditer(text, start):
        char = match.group()
        if char in ("(", "["):
            depth += 1
        elif char in (")", "]"):
            depth -= 1
            if depth == 0:
                return match.end()
    return None


def _case_flag(test: str) -> tuple[str, str] | None:
    """``name op value i`` as (``name op value``, flag), None without a flag."""
    try:
        tokens = [token for token in tokenize(test) if token.type not in ("S", "EOF")]
    except SelectorError:
        return None
    if len(tokens) < 4 or tokens[-1].type != "IDENT" or tokens[-2].type not in ("IDENT", "STRING"):
        return None
    flag = str(tokens[-1].value).lower()
    if flag not in ("i", "s") or ("DELIM", "=") not in tokens[:-2]:
        return None
    return test[: tokens[-1].pos], flag


def _rewritten(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with each form cssselect cannot parse replaced by a marker, and the
    forms, as (kind, text), in the order of the markers' numbers."""
    parts: list[str] = []
    forms: list[tuple[str, str]] = []
    position = scanned = 0
    while (match := _FORMS_RE.search(text, scanned)) is not None:
        scanned = match.end()
        opener = match.group(1)
        if opener is None:  # a string or an escape
            continue
        end = _closing(text, scanned)
        if end is None:
            break
        inner = text[scanned : end - 1]
        kind = opener[1:-1].lower()
        if opener == "[":
            flagged = _case_flag(inner)
            if flagged is None:
                continue
            inner, flag = flagged
            kind = "attribute " + flag
        elif kind.startswith("nth") and _OF_RE.fullmatch(inner) is None:
            continue  # a plain :nth-child()
        parts.append(f"{text[position : match.start()]}:{_FORM}({len(forms)})")
        forms.append((kind, inner))
        position = scanned = end
    parts.append(text[position:])
    return "".join(parts), forms


def _form(left: Tree, kind: str, text: str) -> Tree:
    """The node of a form the rewrite took out, on the compound ``left`` of it."""
    if kind.startswith("attribute"):
        test = parse(f"*[{text}]")[0].parsed_tree
        if not isinstance(test, Attrib) or test.operator in ("exists", "!="):
            raise SelectorError(text)
        return _FlaggedAttribute(left, test, kind[-1])
    if kind == "not":
        return _NoneOf(left, _alternatives(text))
    if kind in ("is", "where"):
        forgiven = _forgiving(text)
        return Matching(left, forgiven) if kind == "is" else SpecificityAdjustment(left, forgiven)
    if kind == "has":
        return _Has(left, _relatives(text))
    of = _OF_RE.fullmatch(text)
    if of is None:
        raise SelectorError(text)
    series = parse(f":nth-child({of.group(1)})")[0].parsed_tree
    if not isinstance(series, Function):
        raise SelectorError(text)
    parse_series(series.arguments)  # a ValueError for a series that is not An+B
    return _NthOf(left, kind, list(series.arguments), _alternatives(of.group(2)))


def _alternatives(text: str) -> tuple[Selector, ...]:
    """The selector list of a :not() or an "of S", each selector an element's."""
    alternatives = _selector_list(text)
    if not alternatives or any(a.pseudo_element is not None for a in alternatives):
        raise SelectorError(text)
    return alternatives


def _forgiving(text: str) -> list[Tree]:
    """The arguments of ``:is()`` or ``:where()``: one with a pseudo-element is dropped,
    as a browser drops it; one that cannot be read has no single answer."""
    trees: list[Tree] = []
    for argument in _split_selectors(text):
        group = _selector_list(argument)
        if group is None or len(group) != 1:
            trees.append(_Undecided())
        elif group[0].pseudo_element is None:
            trees.append(group[0].parsed_tree)
    return trees


def _relatives(text: str) -> tuple[tuple[str, Tree], ...]:
    """The relative selectors of ``:has()``, each with the combinator that leads to it
    (a descendant's when none is written). One that cannot be read, holds a
    pseudo-element or another ``:has()`` leaves the whole selector unread (a browser
    drops a rule with an invalid one)."""
    relatives: list[tuple[str, Tree]] = []
    arguments = _split_selectors(text)
    depth, commas = 0, 0
    for match in _COMMAS_RE.finditer(text):
        char = match.group()
        depth += (char in "([") - (char in ")]")
        commas += char == "," and depth == 0
    if len(arguments) != commas + 1:
        raise SelectorError(text)  # an empty argument
    for argument in arguments:
        relative = _RELATIVE_RE.fullmatch(argument)
        parsed = None if relative is None else _selector(relative.group(2))
        if relative is None or parsed is None or _holds_has(parsed.parsed_tree):
            raise SelectorError(text)
        relatives.append((relative.group(1) or " ", parsed.parsed_tree))
    return tuple(relatives)


def _children(node: Tree) -> list[Tree]:
    """The nodes a node holds: the compound left of it, the selectors in it."""
    children = [getattr(node, "selector", None), getattr(node, "subselector", None)]
    if isinstance(node, Matching | SpecificityAdjustment):
        children.extend(node.selector_list)
    if isinstance(node, _NoneOf | _NthOf):
        children.extend(node.alternatives)
    if isinstance(node, _Has):
        children.extend(tree for _, tree in node.relatives)
    return [child for child in children if child is not None and not isinstance(child, Selector)]


def _holds_has(node: Tree) -> bool:
    return isinstance(node, _Has | Relation) or any(_holds_has(c) for c in _children(node))


def _resolve(node: Tree, forms: list[tuple[str, str]], used: set[int]) -> Tree:
    """``node`` with each marker replaced by the node of its form."""
    for name in ("selector", "subselector"):
        child = getattr(node, name, None)
        if child is not None and not isinstance(child, Selector):  # (:has() holds none)
            setattr(node, name, _resolve(child, forms, used))
    if isinstance(node, Matching | SpecificityAdjustment):
        node.selector_list = [_resolve(item, forms, used) for item in node.selector_list]
    if not isinstance(node, Function) or node.name != _FORM:
        return node
    number = str(node.arguments[0].value) if len(node.arguments) == 1 else ""
    if not number.isdigit() or int(number) >= len(forms) or int(number) in used:
        raise SelectorError("a marker the page wrote")
    used.add(int(number))
    return _form(node.selector, *forms[int(number)])


@lru_cache(maxsize=16384)
def _selector_list(text: str) -> tuple[Selector, ...] | None:
    """A selector list as cssselect parses it, with the forms it cannot parse read by
    rewriting; None when it cannot be read."""
    try:
        if _NTH_OF_RE.search(text) is None:  # (cssselect takes "of S" for a bad series)
            return tuple(parse(text))
    except SelectorError:
        pass
    except RecursionError:
        return None
    try:
        rewritten, forms = _rewritten(text)
        used: set[int] = set()
        group = tuple(parse(rewritten))
        for selector in group:
            selector.parsed_tree = _resolve(selector.parsed_tree, forms, used)
    except (SelectorError, RecursionError, ValueError):
        return None
    return group if len(used) == len(forms) else None


def _dropped_by_some(node: Tree) -> bool:
    """Whether a browser drops a rule with this selector that another applies (the s
    flag): a rule that shows with it is not read, one that hides is."""
    if isinstance(node, _FlaggedAttribute) and node.flag == "s":
        return True
    return any(_dropped_by_some(child) for child in _children(node))


def _specificity(node: Tree) -> tuple[int, int, int]:
    """A selector's specificity as Selectors 4 counts it. cssselect's leaves the
    compound out of ``:is()`` (``p.a:is(.b)`` is 0,2,1, not 0,1,0) and counts all of a
    compound with ``:where()`` as nothing: a rule that hides lost to one that shows."""
    if isinstance(node, Element):
        return (0, 0, 0) if node.element in (None, "*") else (0, 0, 1)
    if isinstance(node, CombinedSelector | Negation):
        return _plus(_specificity(node.selector), _specificity(node.subselector))
    if isinstance(node, Relation):
        return _plus(_specificity(node.selector), _specificity(node.subselector.parsed_tree))
    own = (0, 1, 0)  # a class, an attribute, a pseudo-class
    if isinstance(node, Hash):
        own = (1, 0, 0)
    elif isinstance(node, SpecificityAdjustment | _Undecided):
        own = (0, 0, 0)
    elif isinstance(node, Matching | _NoneOf | _NthOf | _Has):
        if isinstance(node, Matching):
            arguments = list(node.selector_list)
        else:
            arguments = (
                [t for _, t in node.relatives] if isinstance(node, _Has) else [*node.alternatives]
            )
        most = max((_specificity(argument) for argument in arguments), default=(0, 0, 0))
        own = _plus(most, (0, 1, 0)) if isinstance(node, _NthOf) else most
    return _plus(_specificity(node.selector), own)


def _plus(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


def _selector(text: str) -> Selector | None:
    """One selector that targets an element (not a pseudo-element's box)."""
    group = _selector_list(text)
    if group is None or len(group) != 1 or group[0].pseudo_element is not None:
        return None
    return group[0]


class _Translator(HTMLTranslator):
    """cssselect's HTML translator, with the pseudo-classes it does not know decided: a
    state a static page is never in (hovered, focused, targeted, open) is false; any
    other (``:dir()``, ``:state()``) is ``unknown``, true for a rule that hides."""

    NEVER = frozenset(
        (
            *("hover", "focus", "focus-within", "focus-visible", "active", "target"),
            *("target-within", "visited", "popover-open", "modal", "fullscreen"),
            *("picture-in-picture", "playing", "paused", "seeking", "buffering"),
            *("stalled", "muted", "volume-locked", "autofill", "-webkit-autofill"),
            *("user-invalid", "user-valid", "open", "current", "past", "future"),
            *("local-link", "has-slotted", "-webkit-any-link"),
        )
    )

    def __init__(self, unknown: bool) -> None:
        super().__init__()
        self._unknown = "1" if unknown else "0"

    def xpath_pseudo(self, pseudo: Pseudo) -> XPathExpr:
        try:
            return super().xpath_pseudo(pseudo)
        except ExpressionError:
            xpath = self.xpath(pseudo.selector)
            if pseudo.ident.lower() == "any-link":
                return xpath.add_condition("@href and (name() = 'a' or name() = 'area')")
            if pseudo.ident.lower() == "defined":
                return xpath.add_condition("1")
            known = pseudo.ident.lower() in self.NEVER
            return xpath.add_condition("0" if known else self._unknown)

    # A step that walks (a descendant's, a later sibling's) scans each match of the one
    # before it when it fails: more than two in a :has() argument cost a page's size to
    # the power of their number, so such an argument has no single answer here.
    _HAS_WALKS = 2
    _HAS_AXES: ClassVar[dict[str, str]] = {
        " ": "descendant::*",
        ">": "child::*",
        "+": "following-sibling::*[1]",
        "~": "following-sibling::*",
    }

    def xpath_relation(self, relation: Relation) -> XPathExpr:
        """``:has()`` as cssselect parses it, which it translates wrongly for a compound
        argument (``:has(> p.note)`` puts ``.note`` on the anchor)."""
        xpath = self.xpath(relation.selector)
        combinator = str(relation.combinator.value)
        return xpath.add_condition(self._relative(combinator, relation.subselector.parsed_tree))

    def xpath__has(self, node: _Has) -> XPathExpr:
        xpath = self.xpath(node.selector)
        tests = [self._relative(combinator, tree) for combinator, tree in node.relatives]
        return xpath.add_condition(" or ".join(f"({test})" for test in tests))

    def _relative(self, combinator: str, tree: Tree) -> str:
        """A relative selector read left to right from the anchor, each compound's own
        test nesting the step to the next: ``> .a .b`` is
        ``child::*[.a and descendant::*[.b][1]][1]``."""
        steps: list[tuple[str, Tree]] = []  # right to left: the innermost step first
        while isinstance(tree, CombinedSelector):
            steps.append((tree.combinator, tree.subselector))
            tree = tree.selector
        steps.append((combinator, tree))
        if sum(leading in _WALKS for leading, _ in steps) > self._HAS_WALKS:
            # its failing scans grow with the page's size to the power of the steps; and
            # as "no single answer" the rule would hide every anchor, a whole page for
            # "html:has(...)": left unread, as before :has() was read
            raise ExpressionError(":has() argument too costly to read")
        test = ""
        for leading, compound in steps:
            own = _reversed(self, compound)
            axis = self._HAS_AXES.get(leading)
            if own is None or axis is None:
                return self._unknown
            # [1]: the first match is enough, and lxml stops there instead of nesting a
            # full scan of each step's matches inside the last one's
            test = f"{axis}[{own[0]} and {test}][1]" if test else f"{axis}[{own[0]}][1]"
        return test

    def xpath_matching(self, matching: Matching) -> XPathExpr:
        return self._any_of(matching.selector, matching.selector_list)

    def xpath_specificityadjustment(self, adjustment: SpecificityAdjustment) -> XPathExpr:
        return self._any_of(adjustment.selector, adjustment.selector_list)

    def xpath__undecided(self, node: _Undecided) -> XPathExpr:
        return XPathExpr().add_condition(self._unknown)

    def _any_of(self, anchor: Tree, alternatives: Iterable[Tree]) -> XPathExpr:
        """``:is()`` and ``:where()``: the compound AND any one of the alternatives
        (cssselect ORs them with the whole compound: ``.a:hover:is(p)`` matched every
        ``p``)."""
        xpath = self.xpath(anchor)
        conditions = []
        for alternative in alternatives:
            if isinstance(alternative, CombinedSelector):  # read right to left from it
                predicate = _predicate(self, alternative)
                conditions.append(self._unknown if predicate is None else f"({predicate})")
                continue
            expression = self.xpath(alternative)
            if expression.path:
                conditions.append(self._unknown)
                continue
            expression.add_name_test()
            if not expression.condition:
                return xpath  # an alternative that every element matches
            conditions.append(f"({expression.condition})")
        return xpath.add_condition(" or ".join(conditions) or "0")

    def xpath_function(self, function: Function) -> XPathExpr:
        if function.name == "contains":  # cssselect's own, not CSS: a browser drops the rule
            raise ExpressionError(":contains()")
        try:
            return super().xpath_function(function)
        except ExpressionError:
            return self.xpath(function.selector).add_condition(self._unknown)

    def xpath_attrib_different(self, xpath: XPathExpr, name: str, value: str | None) -> XPathExpr:
        raise ExpressionError("[name!=value] is cssselect's, not CSS: a browser drops the rule")

    @property
    def _opposite(self) -> _Translator:
        """What decides a condition with no single answer inside a negation: the other
        way, so that a rule that hides still applies and one that shows still does not."""
        return _TRANSLATORS[self._unknown == "0"]

    def xpath_negation(self, negation: Negation) -> XPathExpr:
        xpath = self.xpath(negation.selector)
        inner = self._opposite.xpath(negation.subselector)
        inner.add_name_test()
        return xpath.add_condition(f"not({inner.condition})" if inner.condition else "0")

    def xpath__noneof(self, node: _NoneOf) -> XPathExpr:
        xpath = self.xpath(node.selector)
        opposite = self._opposite
        tests = []
        for alternative in node.alternatives:
            predicate = _predicate(opposite, alternative)
            tests.append(opposite._unknown if predicate is None else f"({predicate})")
        return xpath.add_condition(f"not({' or '.join(tests)})")

    def xpath__nthof(self, node: _NthOf) -> XPathExpr:
        """The count of the siblings that match S, as cssselect counts all of them for a
        plain :nth-child(). A sibling with no single answer leaves none for the count."""
        xpath = self.xpath(node.selector)
        tests = []
        for alternative in node.alternatives:
            predicate = _predicate(self, alternative)
            if predicate is None or predicate != _predicate(self._opposite, alternative):
                return xpath.add_condition(self._unknown)
            tests.append(f"({predicate})")
        fits = " or ".join(tests)
        count = XPathExpr(element=f"*[{fits}]")
        last = node.name == "nth-last-child"
        self.xpath_nth_child_function(count, node, last=last, add_name_test=False)
        condition = f"({fits}) and ({count.condition})" if count.condition else fits
        return xpath.add_condition(condition)

    def xpath__flaggedattribute(self, node: _FlaggedAttribute) -> XPathExpr:
        if node.flag == "s":
            return self.xpath_attrib(node)  # (a rule that shows with it is not read)
        xpath = self.xpath(node.selector)
        exists = Attrib(Element(), node.namespace, node.attrib, "exists", None)
        name = self.xpath_attrib(exists).condition  # "@lang", or a test for an odd name
        folded = f"translate({name}, '{_ASCII_UPPER}', '{_ASCII_UPPER.lower()}')"
        operator = self.attribute_operator_mapping[node.operator]
        test = cast(
            "Callable[[XPathExpr, str, str], XPathExpr]", getattr(self, f"xpath_attrib_{operator}")
        )
        value = str(cast(Token, node.value).value).translate(_ASCII_LOWER)
        return xpath.add_condition(f"{name} and ({test(XPathExpr(), folded, value).condition})")


_TRANSLATORS = {True: _Translator(unknown=True), False: _Translator(unknown=False)}


_AXES = {
    " ": "ancestor::*",
    ">": "parent::*",
    "+": "preceding-sibling::*[1]",
    "~": "preceding-sibling::*",
}


def _predicate(translator: _Translator, node: Tree) -> str | None:
    """An XPath predicate true of the element a selector matches, read right to left
    as a browser matches (the element, then its ancestors or siblings): one test per
    element instead of the nested descendant scans a left-to-right path costs."""
    parts = _reversed(translator, node)
    if parts is None:
        return None
    own, relation, _ = parts
    return f"({own}) and {relation}" if relation else own


def _reversed(translator: _Translator, node: Tree) -> tuple[str, str | None, str | None] | None:
    """The last compound's own test, the test of what stands left of it, and the
    combinator between them."""
    if not isinstance(node, CombinedSelector):
        expression = translator.xpath(node)
        if expression.path:
            return None
        tests = [] if expression.element == "*" else [f"self::{expression.element}"]
        if expression.condition:
            tests.append(f"({expression.condition})")
        return " and ".join(tests) or "true()", None, None
    right = _reversed(translator, node.subselector)
    left = _reversed(translator, node.selector)
    axis = _AXES.get(node.combinator)
    if right is None or left is None or axis is None or right[1] is not None:
        return None
    left_own, left_relation, left_combinator = left
    if node.combinator in (" ", "~") and left_combinator in (None, node.combinator):
        # The nearest match on the axis is enough: anything left of a farther one
        # stands left of the nearer one too. One step instead of a nested search.
        step = f"{axis}[{left_own}][1]"
        relation = f"{step}[{left_relation}]" if left_relation else step
    else:
        inner = f"({left_own}) and {left_relation}" if left_relation else left_own
        relation = f"{axis}[{inner}]"
    return right[0], relation, node.combinator


@dataclass(frozen=True)
class _Compiled:
    scan: etree.XPath  # every matching element of the document
    # the matching elements of ``$candidates``: one call into XPath for all of them
    among: etree.XPath | None
    specificity: tuple[int, int, int]


@lru_cache(maxsize=16384)
def _compiled(selector: str, hides: bool) -> _Compiled | None:
    """A selector as XPath with its specificity, None when it targets no element (a
    pseudo-element's box) or cannot be read."""
    parsed = _selector(selector)
    if parsed is None or (not hides and _dropped_by_some(parsed.parsed_tree)):
        return None
    try:
        predicate = _predicate(_TRANSLATORS[hides], parsed.parsed_tree)
        if predicate is None:  # (what right to left cannot say) left to right, in one scan
            scan = etree.XPath(_TRANSLATORS[hides].selector_to_xpath(parsed))
            return _Compiled(scan, None, _specificity(parsed.parsed_tree))
        scan = etree.XPath(f"descendant-or-self::*[{predicate}]")
        among = etree.XPath(f"$candidates[{predicate}]")
        return _Compiled(scan, among, _specificity(parsed.parsed_tree))
    except (SelectorError, ExpressionError, etree.XPathError, RecursionError, ValueError):
        return None


# A class attribute (and a ``~=`` value) is a set of words split on ASCII whitespace.
_ASCII_SPACES = str.maketrans("\t\n\f\r", "    ")


def _words(value: str | None) -> list[str]:
    return (value or "").translate(_ASCII_SPACES).split(" ")


def _attribute_fits(actual: str, operator: str, value: str) -> bool:
    """``[name OP value]`` as cssselect's translation reads it (an empty value to
    ``~=``, ``^=``, ``$=`` or ``*=`` matches nothing)."""
    if operator == "=":
        return actual == value
    if operator == "|=":
        return actual == value or actual.startswith(value + "-")
    if not value:
        return False
    if operator == "~=":
        return _words(value) == [value] and value in _words(actual)  # one word of a list
    if operator == "^=":
        return actual.startswith(value)
    if operator == "$=":
        return actual.endswith(value)
    return value in actual  # "*="


_ATTRIBUTE_OPERATORS = frozenset(("exists", "=", "|=", "~=", "^=", "$=", "*="))


@dataclass(frozen=True)
class _Compound:
    """A compound of a tag, classes, an id, attribute tests, ``:not()`` of such
    compounds and states a static page is never in (``:hover``): what most selectors
    are made of, tested in Python on the candidates the index gives instead of by a
    call into XPath per element."""

    tag: str | None
    classes: frozenset[str]
    ident: str | None
    attributes: tuple[tuple[str, str, str], ...]  # (name, operator, value)
    folded: tuple[tuple[str, str, str], ...]  # with the i flag: the value in lower case
    negations: tuple[_Compound, ...]
    never: bool

    @property
    def key(self) -> str | None:
        """The id, a class or the tag an element needs to fit, as the index names it."""
        if self.ident is not None:
            return "#" + self.ident
        if self.classes:
            return "." + min(self.classes)
        return self.tag

    def fits(self, element: etree._Element) -> bool:
        if self.never or (self.tag is not None and element.tag != self.tag):
            return False
        get = element.get
        if self.ident is not None and get("id") != self.ident:
            return False
        if self.classes:
            classes = get("class")
            # a name not even in the text is the common answer, found at C speed
            if classes is None or any(name not in classes for name in self.classes):
                return False
            if not self.classes.issubset(_words(classes)):
                return False
        for name, operator, value in self.attributes:
            actual = get(name)
            if actual is None:
                return False
            if operator != "exists" and not _attribute_fits(actual, operator, value):
                return False
        for name, operator, value in self.folded:
            actual = get(name)
            if actual is None or not _attribute_fits(
                actual.translate(_ASCII_LOWER), operator, value
            ):
                return False
        return not any(negation.fits(element) for negation in self.negations)


def _compound(node: Tree) -> _Compound | None:
    """The compound ``node`` reads as, None when it holds anything else."""
    classes: set[str] = set()
    idents: set[str] = set()
    attributes: list[tuple[str, str, str]] = []
    folded: list[tuple[str, str, str]] = []
    negations: list[_Compound] = []
    never = False
    while True:
        if isinstance(node, Class):
            classes.add(node.class_name)
        elif isinstance(node, Hash):
            idents.add(node.id)
        elif isinstance(node, _FlaggedAttribute):
            if node.flag != "i" or node.namespace or node.operator not in _ATTRIBUTE_OPERATORS:
                return None  # (the s flag has no single answer: the XPath decides)
            value = str(cast(Token, node.value).value).translate(_ASCII_LOWER)
            folded.append((node.attrib.lower(), node.operator, value))
        elif isinstance(node, Attrib):
            if node.namespace or node.operator not in _ATTRIBUTE_OPERATORS:
                return None
            value = "" if node.value is None else str(node.value.value)
            attributes.append((node.attrib.lower(), node.operator, value))
        elif isinstance(node, Negation | _NoneOf):
            subselectors = [node.subselector] if isinstance(node, Negation) else node.alternatives
            for subselector in subselectors:
                negation = _compound(subselector)
                if negation is None:
                    return None
                negations.append(negation)
        elif isinstance(node, Pseudo):
            if node.ident.lower() not in _Translator.NEVER:
                return None
            never = True
        elif isinstance(node, Element):
            if node.namespace is not None:
                return None
            tag = None if node.element in (None, "*") else node.element.lower()
            ident = next(iter(idents)) if len(idents) == 1 else None
            never = never or len(idents) > 1  # "#a#b"
            return _Compound(
                tag,
                frozenset(classes),
                ident,
                tuple(attributes),
                tuple(folded),
                tuple(negations),
                never,
            )
        else:
            return None
        node = node.selector


@dataclass(frozen=True)
class _Plan:
    """A selector of such compounds joined by combinators."""

    compounds: tuple[_Compound, ...]
    combinators: tuple[str, ...]  # combinators[i] joins compounds[i] and compounds[i + 1]
    specificity: tuple[int, int, int]

    @property
    def walks(self) -> bool:
        """Whether it looks along an axis (a descendant, a later sibling): lxml walks
        one at C speed, a walk in Python costs more than the call into XPath it saves."""
        return " " in self.combinators or "~" in self.combinators

    def matches(self, element: etree._Element) -> bool:
        """Right to left, as a browser matches: for a plan that does not walk."""
        last = len(self.compounds) - 1
        return self.compounds[last].fits(element) and self._left_of(element, last)

    def _left_of(self, element: etree._Element, position: int) -> bool:
        """Whether what stands left of compound ``position`` (which ``element`` fits)
        is found next to ``element``."""
        if position == 0:
            return True
        left = self.compounds[position - 1]
        if self.combinators[position - 1] == ">":
            near = element.getparent()
        else:  # "+"
            near = next(element.itersiblings(etree.Element, preceding=True), None)
        return near is not None and left.fits(near) and self._left_of(near, position - 1)

    def select(self, index: Mapping[str, list[etree._Element]]) -> list[etree._Element] | None:
        """Every element it matches, found left to right from the few elements that fit
        its first compound: each step looks only inside (or beside) those before it,
        where a scan of the document tests every element against the whole selector.
        None when the first compound names nothing to start from, or a step would walk
        from too many elements."""
        first = self.compounds[0]
        key = first.key
        if key is None:
            return None
        fitting = (e for e in index.get(key, ()) if first.fits(e))
        if self.combinators and self.combinators[0] in _WALKS:
            found = list(islice(fitting, _FEW + 1))  # past _FEW the walk is not taken
        else:
            found = list(fitting)
        for compound, combinator in zip(self.compounds[1:], self.combinators, strict=True):
            if not found:
                break
            if combinator in _WALKS and len(found) > _FEW:
                return None
            tag = compound.tag or etree.Element
            if combinator == " ":
                starts = set(found)
                outermost = [e for e in found if not any(a in starts for a in e.iterancestors())]
                near: Iterable[etree._Element] = (
                    d for e in outermost for d in e.iterdescendants(tag)
                )
            elif combinator == ">":
                near = (c for e in found for c in e.iterchildren(tag))
            elif combinator == "+":
                near = (
                    n for e in found if (n := next(e.itersiblings(etree.Element), None)) is not None
                )
            else:  # "~"
                near = _following(found, tag)
            found = list(dict.fromkeys(n for n in near if compound.fits(n)))
        return found


_WALKS = frozenset((" ", "~"))


def _following(starts: Iterable[etree._Element], tag: object) -> Iterator[etree._Element]:
    """The later siblings of each start, each once: a walk stops where an earlier walk
    went, since every sibling after that one was seen then too."""
    seen: set[etree._Element] = set()
    for start in starts:
        for sibling in start.itersiblings(tag):
            if sibling in seen:
                break
            seen.add(sibling)
            yield sibling


@lru_cache(maxsize=16384)
def _plan(selector: str) -> _Plan | None:
    """The selector as compounds and combinators, None when a part of it is left to
    the XPath translation (structural pseudo-classes, ``:is()``, ``:has()``, ...)."""
    parsed = _selector(selector)
    if parsed is None:
        return None
    node: Tree = parsed.parsed_tree
    compounds: list[_Compound] = []
    combinators: list[str] = []
    while isinstance(node, CombinedSelector):
        if node.combinator not in _AXES:
            return None
        right = _compound(node.subselector)
        if right is None:
            return None
        compounds.append(right)
        combinators.append(node.combinator)
        node = node.selector
    first = _compound(node)
    if first is None:
        return None
    compounds.append(first)
    return _Plan(
        tuple(reversed(compounds)), tuple(reversed(combinators)), _specificity(parsed.parsed_tree)
    )


_COMBINATORS = str.maketrans(">+~\t\n\r\f", "       ")


def _key(selector: str) -> str | None:
    """The id (``#x``), class (``.x``) or tag its last compound needs, None when the
    cheap reading cannot tell (a parenthesis or attribute there: always compiled)."""
    tail = selector.translate(_COMBINATORS).rpartition(" ")[2]
    if not tail or "\\" in selector or any(mark in tail for mark in _NOT_PLAIN):
        # a space may stand inside brackets, parentheses or quotes: then the tail is
        # not the last compound ('svg[aria-label="Zoom icon"]' ends in 'icon"]'); and
        # "*|p" names p in any namespace, not a tag "*|p"; and an escape may hold the
        # last space ("#\\31 23" is the id "123")
        return _slow_key(selector)
    tail = tail.partition(":")[0]
    if "#" in tail:
        ident = tail.partition("#")[2]
        for mark in ".#":
            ident = ident.partition(mark)[0]
        return "#" + ident if ident else None
    if "." in tail:
        name = tail.partition(".")[2].partition(".")[0].partition("#")[0]
        return "." + name if name else None
    return tail.lower() if tail and tail != "*" else None


@lru_cache(maxsize=65536)
def _slow_key(selector: str) -> str | None:
    if "\\" not in selector:
        # what stands in brackets or parentheses (an attribute test, the argument of
        # :not() or :nth-child()) never names what the compound needs: it becomes a
        # part that names nothing, in the compound it belongs to
        text = _QUOTED_RE.sub("", selector)
        for _ in range(_GROUP_DEPTH):
            if "[" not in text and "(" not in text:
                break
            text = _GROUP_RE.sub(":_", text)
        if any(mark in text for mark in "[]()\"'"):
            return None  # nested deeper than that, or not CSS: every page may match it
        selector = text
    if len(selector) > 256:
        return None  # a compound this long is read by its compiled XPath alone
    match = _LAST_COMPOUND_RE.search(selector)
    if match is None or not match.group(1):
        return None
    tag = klass = None
    for prefix, name in _KEY_PART_RE.findall(match.group(1)):
        if prefix == "#":
            return "#" + unescape(name)
        if prefix == "." and klass is None:
            klass = "." + unescape(name)
        elif not prefix and name != "*":
            tag = name.lower()
    return klass or tag


_NAMES_RE = re.compile(rf"[.#](?:[\w-]|{_ESC})+", re.DOTALL)


@lru_cache(maxsize=65536)
def _required(selector: str) -> tuple[str, ...]:
    """The classes and ids a selector needs the page to have, outside any ``:not()``,
    ``:is()`` or attribute (which may match without them): one pass, any nesting."""
    depth, bare = 0, []
    if '"' in selector or "'" in selector:  # a quoted "]" or "(" is text, not structure
        selector = _QUOTED_RE.sub('""', selector)
    for char in selector:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(depth - 1, 0)
        elif depth == 0:
            bare.append(char)
    return tuple(unescape(name) for name in _NAMES_RE.findall("".join(bare)))


def _split_selectors(prelude: str) -> list[str]:
    if "(" not in prelude and "[" not in prelude:
        return [part.strip() for part in prelude.split(",") if part.strip()]
    parts, depth, start = [], 0, 0
    # a comma or a bracket in a quoted value is text: read the structure with the
    # strings blanked out, cut the prelude where it says
    structure = _QUOTED_RE.sub(lambda found: " " * len(found.group()), prelude)
    for index, char in enumerate(structure):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(prelude[start:index].strip())
            start = index + 1
    parts.append(prelude[start:].strip())
    return [part for part in parts if part]


def _nest(parents: list[str], child: str) -> list[str]:
    """A nested rule's selectors resolved against each of its parent rule's (CSS
    nesting; one selector per parent, as ``:is()`` of complex selectors would give)."""
    if not parents:
        return [child]
    if "&" in child:
        return [child.replace("&", parent) for parent in parents]
    return [f"{parent} {child}" for parent in parents]


@dataclass
class _CssBlock:
    prelude_start: int
    open: int
    close: int
    parent: int  # index of the enclosing block, -1 at the top


def _structure(css: str) -> list[_CssBlock]:
    """Every block of a sheet with its prelude and parent, from the braces alone (an
    unclosed block ends with the sheet, a stray ``}`` is ignored: CSS error recovery)."""
    blocks: list[_CssBlock] = []
    stack: list[int] = []
    boundary = 0
    pattern = _STRUCTURE_RE if '"' in css or "'" in css else _BRACES_RE
    for match in pattern.finditer(css):
        token = match.group()
        if token == "{":
            start = max(boundary, css.rfind(";", boundary, match.start()) + 1)
            parent = stack[-1] if stack else -1
            blocks.append(_CssBlock(start, match.start(), len(css), parent))
            stack.append(len(blocks) - 1)
            boundary = match.end()
        elif token == "}":
            if stack:
                blocks[stack.pop()].close = match.start()
            boundary = match.end()
    return blocks


def _own_content(css: str, block: _CssBlock, children: list[_CssBlock]) -> str:
    """A block's own declarations, without the rules nested in it."""
    if not children:
        return css[block.open + 1 : block.close]
    parts, position = [], block.open + 1
    for child in children:
        parts.append(css[position : child.prelude_start])
        position = child.close + 1
    parts.append(css[position : block.close])
    return ";".join(parts)


def _plain_at_keyword(match: re.Match[str]) -> str:
    """An escaped at-keyword written plainly, when it spells a name (an escape that
    spells a brace or a space stays as it is: it starts no block)."""
    name = match.group(1)
    if "\\" not in name:
        return match.group()
    plain = unescape(name)
    return "@" + plain.lower() if _AT_NAME_RE.fullmatch(plain) else match.group()


def _at_rule(prelude: str) -> tuple[str, str]:
    name = prelude[1:].partition(" ")[0]
    name = name.split("(")[0] if "(" in name else name
    return name.strip().lower(), prelude[1 + len(name) :].strip()


@lru_cache(maxsize=256)
def _parse_sheet(css: str, judge: Judge) -> _Sheet:
    """The rules of a sheet that set a property bearing on visibility, with the
    conditions and layer each stands in, and the layers the sheet names in order."""
    if "/*" in css:
        css = _COMMENT_RE.sub("", css)
    css = css[:MAX_CSS]
    if "\\" in css:
        css = _AT_KEYWORD_RE.sub(_plain_at_keyword, css)
    blocks = _structure(css)
    hide_positions = _hiding_positions(css)
    children: dict[int, list[_CssBlock]] = defaultdict(list)
    for block in blocks:
        if block.parent >= 0:
            children[block.parent].append(block)
    layers: list[tuple[str, ...]] = []
    rules: list[_Rule] = []
    # Per block: (condition, layer path, selectors of enclosing style rules), from its parent.
    context: list[tuple[Truth, tuple[str, ...] | None, list[str]] | None] = []
    anonymous = 0
    statements = _layer_statements(css)
    positions = [position for position, _ in statements]
    registered: list[Registration] = []
    for index, block in enumerate(blocks):
        inherited = context[block.parent] if block.parent >= 0 else (True, None, [])
        if inherited is None or inherited[0] is False:
            context.append(None)
            continue
        truth, layer, parents = inherited
        for _, named in statements[: bisect_right(positions, block.open)]:
            if named not in layers:  # "@layer a, b;" before this block
                layers.append(named)
        prelude = css[block.prelude_start : block.open].strip()
        selectors: list[str] = []
        if prelude.startswith("@"):
            name, condition = _at_rule(prelude)
            if name == "media":
                truth = _and(truth, media_matches(condition))
            elif name == "supports":
                truth = _and(truth, supports_matches(condition))
            elif name == "layer":
                anonymous += 1
                step = condition.strip() or f"\x00{anonymous}"
                layer = (*(layer or ()), *step.split("."))
                layers.append(layer)
            elif name in _UNDECIDED_AT_RULES:
                truth = _and(truth, None)
            elif name == "property" and truth is True and block.parent < 0:
                found = _registration(unescape(condition), css[block.open + 1 : block.close])
                registered += [found] if found is not None else []
                context.append(None)
                continue
            else:  # @font-face, @keyframes ... and unknown at-rules hold no page rules
                context.append(None)
                continue
            context.append((truth, layer, parents))
            if truth is False or not parents:
                continue
            selectors = parents  # declarations in an at-rule nested in a style rule
        else:
            selectors = [n for s in _split_selectors(prelude) for n in _nest(parents, s)]
            context.append((truth, layer, selectors))
        content = _own_content(css, block, children.get(index, []))
        if not selectors:
            continue
        first = bisect_right(hide_positions, block.open)
        may_hide = first < len(hide_positions) and hide_positions[first] < block.close
        if truth is None and not may_hide:
            continue  # no single answer: only what hides applies
        keys = tuple(_key(s) for s in selectors)
        rules.append(
            _Rule(
                tuple(selectors),
                keys,
                content,
                may_hide,
                truth is True,
                layer,
                len(rules),
            )
        )
    for _, named in statements:
        if named not in layers:
            layers.append(named)
    return _Sheet(tuple(rules), tuple(layers), _by_key(rules), tuple(registered))


_LAYER_STATEMENT_RE = re.compile(r"@layer\s{1,8}([^{};]{1,512});", re.IGNORECASE)


def _layer_statements(css: str) -> list[tuple[int, tuple[str, ...]]]:
    """``@layer a, b.c;``: layers declared (ordered) before any rule uses them."""
    if "@" not in css:
        return []
    return [
        (match.start(), tuple(name.strip().split(".")))
        for match in _LAYER_STATEMENT_RE.finditer(css)
        for name in match.group(1).split(",")
        if name.strip()
    ]


def _and(a: Truth, b: Truth) -> Truth:
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


class _PageSheets:
    """The page's sheets in cascade order."""

    def __init__(self, styles: Styles | None, judge: Judge) -> None:
        self.styles = styles
        self.judge = judge
        self.sheets: list[tuple[_Sheet, Truth, tuple[str, ...] | None]] = []
        self.layer_order: list[tuple[str, ...]] = []
        self.registered: dict[str, Registration] = {}  # the last of each name wins

    def placed(self, keys: AbstractSet[str]) -> list[_Placed]:
        """The rules of every sheet whose selectors can match an element with ``keys``
        (a tag, ``.class`` or ``#id``), in cascade order."""
        found: list[_Placed] = []
        for number, (sheet, truth, layer) in enumerate(self.sheets):
            by_key = sheet.by_key
            positions = set(by_key.get(None, ()))
            for key in by_key.keys() & keys:  # a set operation walks the smaller side
                positions.update(by_key[key])
            for position in sorted(positions):
                rule = sheet.rules[position]
                rule_layer = layer if rule.layer is None else (*(layer or ()), *rule.layer)
                certain = truth is True and rule.certain
                order = (number, position)
                found.append(_Placed(rule, certain, rule_layer, order, self.judge))
        return found

    def add_text(
        self,
        css: str,
        base: str | None,
        truth: Truth,
        layer: tuple[str, ...] | None,
        depth: int = 0,
    ) -> None:
        for item in parse_imports(css):
            self._add_import(
                item.url,
                media=item.media,
                supports=item.supports,
                named=item.layer,
                base=base,
                truth=truth,
                layer=layer,
                depth=depth,
            )
        sheet = _parse_sheet(css, self.judge)
        for named in sheet.layers:
            self._declare((*(layer or ()), *named))
        if truth is True:
            self.registered.update((found.name, found) for found in sheet.registered)
        if sheet.rules:
            self.sheets.append((sheet, truth, layer))

    def _add_import(
        self,
        href: str,
        *,
        media: str,
        supports: str | None,
        named: str | None,
        base: str | None,
        truth: Truth,
        layer: tuple[str, ...] | None,
        depth: int,
    ) -> None:
        if self.styles is None or depth >= MAX_IMPORT_DEPTH:
            return
        condition = _and(truth, media_matches(media))
        if supports is not None:
            condition = _and(condition, supports_matches(supports))
        if condition is False:
            return
        if named is not None:
            layer = (*(layer or ()), named or f"\x00import{len(self.sheets)}")
            self._declare(layer)
        url = urljoin(base or "", href)
        text = self.styles.load(url)
        if text is not None:
            self.add_text(text, url, condition, layer, depth + 1)

    def _declare(self, layer: tuple[str, ...]) -> None:
        for length in range(1, len(layer) + 1):
            if layer[:length] not in self.layer_order:
                self.layer_order.append(layer[:length])

    def layer_rank(self, layer: tuple[str, ...] | None) -> tuple[int, ...]:
        """Where a layer stands: a sublayer before its parent's own rules, every layer
        before the rules in none (for normal declarations)."""
        if layer is None:
            return (_INFINITY,)
        rank = []
        for length in range(1, len(layer) + 1):
            prefix = layer[:length]
            siblings = [
                named
                for named in self.layer_order
                if len(named) == length and named[:-1] == prefix[:-1]
            ]
            rank.append(siblings.index(prefix) if prefix in siblings else _INFINITY - 1)
        return (*rank, _INFINITY)


def _sheets(root: etree._Element, page: _PageSheets) -> None:
    """The page's ``<style>`` blocks and linked sheets in document order."""
    styles = page.styles
    base = styles.base if styles is not None else None
    for element in root.iter("style", "link"):
        media = element.get("media") or ""
        truth = media_matches(media) if media else True
        if truth is False:
            continue
        if element.tag == "style":
            if element.text:
                page.add_text(element.text, base, truth, None)
            continue
        href = (element.get("href") or "").strip()
        if styles is None or not href or not is_stylesheet_link(element.get("rel")):
            continue
        url = urljoin(base or "", href)
        text = styles.load(url)
        if text is not None:
            page.add_text(text, url, truth, None)


def _index(elements: Iterable[etree._Element]) -> dict[str, list[etree._Element]]:
    """Elements by tag, ``.class`` and ``#id``."""
    index: dict[str, list[etree._Element]] = defaultdict(list)
    for element in elements:
        index[str(element.tag)].append(element)
        classes = element.get("class")
        if classes:
            names = classes.split()
            if not classes.isascii() or not classes.isprintable():
                # a browser splits on ASCII whitespace alone: "a\vb" is one word to it
                names += [word for word in _words(classes) if word]
            for name in set(names):
                index["." + name].append(element)
        ident = element.get("id")
        if ident:
            index["#" + ident].append(element)
    return index


_Match = tuple[_Placed, tuple[int, int, int]]
# A walk from more elements than this is not taken (see ``_Plan.select``).
_FEW = 48
# The elements that have a selector's last compound are tested against it in one call
# into XPath: in Python, one by one, when they are this few and the selector is one
# compound (a call costs as much as that many tests) ...
_IN_PYTHON = 8
# ... and when they are more than this many, the selector is walked left to right from
# its first compound instead, where it can be (measured fastest on both benchmarks).
_BATCH = 48


def _match(
    root: etree._Element,
    placed: Iterable[_Placed],
    index: dict[str, list[etree._Element]],
    *,
    hiding: bool,
    within: set[etree._Element] | None = None,
    local: dict[str, list[etree._Element]] | None = None,
) -> Iterator[tuple[etree._Element, _Match]]:
    """Each element a rule's selector matches (only those of ``within``, indexed as
    ``local``, when given), skipping a selector whose last compound no such element has."""
    local = local if local is not None else index
    for item in placed:
        rule = item.rule
        for selector, key in zip(rule.selectors, rule.keys, strict=True):
            if key is not None and key not in local:
                continue
            if any(name not in index for name in _required(selector)):
                continue
            compiled = _compiled(selector, hiding)
            plan = _plan(selector)
            if compiled is not None:
                specificity = compiled.specificity
            elif plan is not None:  # a name XPath cannot spell ("\\b "): Python alone
                specificity = plan.specificity
            else:
                continue
            if key is not None:
                candidates: list[etree._Element] | None = local[key]
            else:
                candidates = list(within) if within is not None else None
            among = compiled.among if compiled is not None else None
            few = candidates is not None and len(candidates) <= _BATCH
            try:
                if (
                    candidates is not None
                    and plan is not None
                    and not plan.walks
                    and (among is None or len(candidates) <= _IN_PYTHON)
                ):
                    found = [e for e in candidates if plan.matches(e)]
                elif candidates is not None and among is not None and few:
                    found = elements(among, root, candidates=candidates)
                elif plan is not None and (selected := plan.select(index)) is not None:
                    found = selected if within is None else [e for e in selected if e in within]
                elif candidates is not None and among is not None:
                    found = elements(among, root, candidates=candidates)
                elif compiled is not None:
                    found = cast("list[etree._Element]", compiled.scan(root))
                    if within is not None:
                        found = [e for e in found if e in within]
                elif plan is not None and not plan.walks:
                    found = [e for e in root.iter(etree.Element) if plan.matches(e)]
                else:
                    continue
            except etree.XPathError:
                continue
            for element in found:
                yield element, (item, specificity)


# Elements found by their attributes (``//@style/..``): libxml2 reaches attributes by that
# path several times faster than it tests every element (``//*[@style]``).
_WITH_STYLE = etree.XPath("//@style/..")
_WITH_HIDDEN = etree.XPath("//@hidden/..")
_READS_VARIABLES = etree.XPath("boolean(//@style[contains(translate(., 'VAR', 'var'), 'var(')])")
_DECLARES_VARIABLES = etree.XPath("//@style[contains(., '--')]/..")


_OFFSETS = frozenset(
    (
        *("left", "right", "top", "bottom", "inset", "inset-inline-start"),
        *("inset-block-start", "margin", "margin-left", "margin-top", "margin-inline-start"),
        *("margin-block-start", "text-indent", "position"),
    )
)
_SIZES = frozenset(("height", "max-height", "width", "max-width", "overflow", "padding"))
_PADDINGS = frozenset(("padding-top", "padding-bottom", "padding-left", "padding-right"))
_COLOURS = frozenset(
    ("color", "-webkit-text-fill-color", "background-clip", "-webkit-background-clip")
)
# The properties that decide whether a hiding declaration of one property holds: the
# rules that set them are the ones that may show the element again.
_GROUPS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("opacity", "filter"), frozenset(("opacity", "filter"))),
    **dict.fromkeys(("font-size", "font"), frozenset(("font-size", "font"))),
    **dict.fromkeys(_COLOURS, _COLOURS | _BACKGROUND),
    **dict.fromkeys(_OFFSETS, _OFFSETS),
    **dict.fromkeys(("clip", "clip-path"), frozenset(("clip", "clip-path"))),
    **dict.fromkeys(
        ("transform", "scale", "translate", "backface-visibility"),
        frozenset(("transform", "scale", "translate", "backface-visibility")),
    ),
    **dict.fromkeys(_SIZES | _PADDINGS, _SIZES | _PADDINGS),
}


def _group(prop: str) -> frozenset[str]:
    return _GROUPS.get(prop, frozenset((prop,)))


def apply(root: etree._Element, styles: Styles | None, judge: Judge) -> None:
    """Write into each element's ``style`` the declarations bearing on visibility that
    the cascade of the page's sheets gives it (``judge(prop, value)``: whether one
    declaration alone can hide, see ``sanitize.declaration_hides``)."""
    page = _PageSheets(styles, judge)
    _sheets(root, page)
    if not page.sheets and not _READS_VARIABLES(root):
        return
    index = _index(root.iter(etree.Element))
    placed = page.placed(index.keys())
    variables = _Variables(root, placed, page)
    hides = variables.may_hide
    hiding = [p for p in placed if p.rule.may_hide and any(hides(d) for d in _rule_declarations(p))]
    matched: dict[etree._Element, list[_Match]] = defaultdict(list)
    # What may hide each element, and whether only its own style says so (then only an
    # !important rule can undo it): from the rules that matched, its own style, the
    # hidden attribute (the user agent's display:none, which any author rule undoes).
    hidden_by: dict[etree._Element, dict[str, bool]] = defaultdict(dict)
    for element, found in _match(root, hiding, index, hiding=True):
        matched[element].append(found)
        for d in _rule_declarations(found[0]):
            if hides(d):
                hidden_by[element][d.prop] = False
    for element in cast("list[etree._Element]", _WITH_STYLE(root)):
        style = element.get("style") or ""
        css = weighted_declarations(style)
        for prop, (value, important) in css.items():
            if prop not in RELEVANT:
                continue
            if _reads_variables(prop, value):
                raw = raw_declarations(style).get(prop, (value, important))[0]
                if not variables.may_hide(Declaration(prop, value, important, False, raw)):
                    continue
                matched.setdefault(element, [])  # written once its variables are known
            elif not judge(prop, value):
                continue
            if important:  # nothing in a sheet undoes it
                continue
            hidden_by[element].setdefault(prop, True)
    for element in cast("list[etree._Element]", _WITH_HIDDEN(root)):
        hidden_by[element]["display"] = False
    # The rules that may show them again: those setting a property that decides, on
    # the element; the same inherited property (visibility, size, colour) on a
    # descendant; the background a colour is judged against, on an ancestor.
    scopes: dict[etree._Element, set[str]] = defaultdict(set)
    wanted: dict[tuple[frozenset[str], bool], set[etree._Element]] = defaultdict(set)
    for element, props in hidden_by.items():
        for prop, inline_only in props.items():
            group = _group(prop)
            scopes[element].update(group)
            wanted[group, inline_only].add(element)
            if prop in _RESHOWING:
                inherited = _group(prop) & _RESHOWING
                for descendant in element.iterdescendants(etree.Element):
                    scopes[descendant].update(inherited)
                    wanted[inherited, False].add(descendant)
            if prop in _COLOURS:
                for ancestor in element.iterancestors():
                    scopes[ancestor].update(_BACKGROUND)
                    wanted[_BACKGROUND, False].add(ancestor)
    hiding_ids = {id(p) for p in hiding}
    by_key: dict[str | None, list[_Placed]] = defaultdict(list)
    for p in placed:
        if id(p) not in hiding_ids:
            for key in set(p.rule.keys):
                by_key[key].append(p)
    for (group, important_only), scope in wanted.items():
        local = _index(scope)
        candidates = {id(p): p for key in (*local, None) for p in by_key.get(key, ())}
        rules = [
            p
            for p in sorted(candidates.values(), key=lambda p: p.order)
            if _sets(p.rule.content, p.certain, p.judge, group, important_only)
        ]
        if not rules:
            continue
        for element, found in _match(root, rules, index, hiding=False, within=scope, local=local):
            if found not in matched[element]:
                matched[element].append(found)
    variables.read(root, index, matched)
    for element, found_rules in matched.items():
        _write(element, found_rules, page, frozenset(scopes.get(element, ())), variables)


def _weight(
    page: _PageSheets, placed: _Placed, specificity: tuple[int, int, int], important: bool
) -> tuple[object, ...]:
    """Where a rule's declaration stands in the cascade (an element's own style is
    ``(important, 1)``: above every rule of the same importance)."""
    rank = page.layer_rank(placed.layer)
    if important:
        rank = tuple(-part for part in rank)
    return (important, 0, rank, specificity, placed.order)


class _Variables:
    """The page's custom properties, read only where a value that may hide uses them:
    which rules to match for such a value, then what each element computes."""

    def __init__(self, root: etree._Element, placed: list[_Placed], page: _PageSheets) -> None:
        self._root = root
        self._placed = placed
        self._page = page
        self._values: dict[str, set[str]] | None = None
        self._verdicts: dict[tuple[str, str], bool] = {}
        # per element, per custom property it declares: the cascade weight and value
        self._declared: dict[etree._Element, dict[str, tuple[tuple[object, ...], str]]] = {}
        self._computed: dict[tuple[etree._Element, str], str | None] = {}
        self._depth = 0

    def may_hide(self, declaration: Declaration) -> bool:
        """Whether the declaration hides, or could with some value the page gives the
        custom properties it reads (a value too tangled to tell may)."""
        if declaration.hides or declaration.raw is None:
            return declaration.hides
        key = (declaration.prop, declaration.raw)
        verdict = self._verdicts.get(key)
        if verdict is None:
            options = could_be(declaration.raw, self._page_values())
            verdict = options is None or any(
                (value := _computed(declaration.prop, option)) is not None
                and self._hides(declaration.prop, value)
                for option in options
            )
            self._verdicts[key] = verdict
        return verdict

    def _page_values(self) -> dict[str, set[str]]:
        if self._values is None:
            values: dict[str, set[str]] = defaultdict(set)
            blocks = [p.rule.content for p in self._placed]
            declaring = cast("list[etree._Element]", _DECLARES_VARIABLES(self._root))
            blocks += [element.get("style") or "" for element in declaring]
            for block in blocks:
                for name, value, _ in _custom_properties(block):
                    values[name].add(value)
            for registration in self._page.registered.values():
                if registration.initial is not None:
                    values[registration.name].add(registration.initial)
            self._values = values
        return self._values

    def read(
        self,
        root: etree._Element,
        index: dict[str, list[etree._Element]],
        matched: Mapping[etree._Element, list[_Match]],
    ) -> None:
        """The custom properties declared on the elements whose values read them and on
        their ancestors (from which they inherit)."""
        needing = [
            element
            for element, found in matched.items()
            if uses_variables(element.get("style") or "")
            or any(d.raw is not None for p, _ in found for d in _rule_declarations(p))
        ]
        if not needing:
            return
        chain = set(needing)
        for element in needing:
            chain.update(element.iterancestors())
        declared = self._declared
        for element in chain:
            style = element.get("style")
            if style and "--" in style:
                own = declared.setdefault(element, {})
                for name, value, important in _custom_properties(style):
                    own[name] = ((important, 1), value)
        defining = [p for p in self._placed if p.certain and _custom_properties(p.rule.content)]
        if not defining:
            return
        found = _match(root, defining, index, hiding=False, within=chain, local=_index(chain))
        for element, (placed, specificity) in found:
            own = declared.setdefault(element, {})
            for name, value, important in _custom_properties(placed.rule.content):
                weight = _weight(self._page, placed, specificity, important)
                current = own.get(name)
                if current is None or weight > current[0]:
                    own[name] = (weight, value)

    def _hides(self, prop: str, value: str) -> bool:
        if prop in _TEXT_COLOURS:
            return alpha(value) <= _SEE_THROUGH
        return self._page.judge(prop, value)

    def value(self, element: etree._Element, prop: str, raw: str) -> str | None:
        """What ``prop: raw`` computes to on ``element``; None: invalid, so unset.

        A colour stays as written (a colour nobody can judge, as before it was read)
        unless it is see-through: a theme's light text is painted over a background a
        sibling layer draws, which a reader of ancestors' backgrounds cannot see, so a
        palette's colours would read as light text on white."""
        substituted = substitute(raw, lambda name: self._custom(element, name))
        computed = None if substituted is None else _computed(prop, substituted)
        if prop in _TEXT_COLOURS:
            return computed if computed is not None and alpha(computed) <= _SEE_THROUGH else raw
        return computed

    def _custom(self, element: etree._Element, name: str) -> str | None:
        """The custom property's computed value on ``element``: its own declaration's,
        else its parent's (None: it has none, the guaranteed-invalid value)."""
        registration = self._page.registered.get(name)
        initial = registration.initial if registration is not None else None
        inherits = registration is None or registration.inherits
        path: list[etree._Element] = []
        node: etree._Element | None = element
        value: str | None = initial
        while node is not None:
            key = (node, name)
            if key in self._computed:
                value = self._computed[key]
                break
            path.append(node)
            own = self._declared.get(node, {}).get(name)
            keyword = own[1].strip().lower() if own is not None else ""
            if own is not None and keyword not in INHERITING:
                if keyword != INITIAL:
                    self._computed[key] = None  # a property that reads itself is invalid
                    value = self._resolve(node, own[1])
                break
            if not inherits and keyword != "inherit":
                break  # a registered property that does not inherit: its initial value
            node = node.getparent()
        for step in path:
            self._computed[step, name] = value
        return value

    def _resolve(self, element: etree._Element, raw: str) -> str | None:
        if self._depth >= _VARIABLE_DEPTH:
            return None
        self._depth += 1
        try:
            return substitute(raw, lambda name: self._custom(element, name))
        finally:
            self._depth -= 1


# Custom properties that read others this deep are taken to be invalid.
_VARIABLE_DEPTH = 32
_TEXT_COLOURS = frozenset(("color", "-webkit-text-fill-color"))
# A colour this see-through is no ink (as ``sanitize`` judges a faint colour).
_SEE_THROUGH = 0.05


def _computed(prop: str, value: str) -> str | None:
    """The value a browser keeps for ``prop: value`` (None: it drops it)."""
    kept = weighted_declarations(f"{prop}:{value}").get(prop)
    return None if kept is None or uses_variables(kept[0]) else kept[0]


def _rule_declarations(placed: _Placed) -> tuple[Declaration, ...]:
    return _declarations(placed.rule.content, placed.certain, placed.judge)


@lru_cache(maxsize=65536)
def _sets(
    content: str, certain: bool, judge: Judge, group: frozenset[str], important_only: bool
) -> bool:
    """Whether a rule declares a property of ``group`` (``!important`` when only such a
    declaration can win): whether it may show an element hidden through that group."""
    return any(
        d.prop in group and (d.important or not important_only)
        for d in _declarations(content, certain, judge)
    )


def _write(
    element: etree._Element,
    found: list[_Match],
    page: _PageSheets,
    scope: frozenset[str],
    variables: _Variables,
) -> None:
    """Cascade the matched rules and the element's own style, and write the winners
    (a value that reads custom properties as the element computes it; None: the
    property is unset)."""
    style = element.get("style") or ""
    inline = weighted_declarations(style)
    winners: dict[str, tuple[tuple[object, ...], str | None, bool]] = {}
    for prop, (value, important) in inline.items():
        if _reads_variables(prop, value):
            raw = raw_declarations(style).get(prop, (value, important))[0]
            winners[prop] = ((important, 1), variables.value(element, prop, raw), False)
        else:
            winners[prop] = ((important, 1), value, True)
    for placed, specificity in found:
        for declaration in _rule_declarations(placed):
            prop = declaration.prop
            if prop not in scope:
                continue
            computed: str | None = declaration.value
            hides = declaration.hides
            if declaration.raw is not None:  # known once the element's variables are
                computed = variables.value(element, prop, declaration.raw)
                hides = computed is not None and page.judge(prop, computed)
            if not placed.certain and not hides:
                continue
            weight = _weight(page, placed, specificity, declaration.important)
            current = winners.get(prop)
            if current is None or weight > current[0]:
                winners[prop] = (weight, computed, False)
    author_display = winners.get("display")
    hidden = element.get("hidden")
    if (
        hidden is not None
        and hidden.strip().lower() != "until-found"
        and author_display is not None
        and author_display[1] != "none"
    ):
        del element.attrib["hidden"]  # the user agent's display:none, overridden
    if all(from_inline for _, _, from_inline in winners.values()):
        return
    written = (f"{prop}:{value}" for prop, (_, value, _) in winners.items() if value is not None)
    element.set("style", "; ".join(written))

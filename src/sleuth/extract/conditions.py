"""At-rule conditions (``@media``, ``@supports``, ``<link media>``) decided for one reader.

A style sheet's rules apply or not depending on the screen: sleuth reads every page as
one assumed desktop screen shows it (1280×800 CSS pixels, light scheme, a mouse,
scripts on), so a rule for phones or for print does not hide text on it and a rule for
wide screens does. A condition is ``True``, ``False`` or ``None`` when it has no single
answer for that reader (a container query, a property this reader does not know); the
cascade then lets a rule that hides apply and a rule that shows not.

Conditions are parsed with tinycss2 (the CSS Syntax tokens: comments, escapes and error
recovery as in a browser), and Chromium's answers are followed where they differ from
the spec's three-valued logic: a media query that names an unknown feature or type is
false, as it is there.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache

import tinycss2
from tinycss2 import ast as css_ast

from sleuth.extract.css import property_accepts

Truth = bool | None

WIDTH, HEIGHT = 1280.0, 800.0
_LENGTH_PX = {
    **{"px": 1.0, "em": 16.0, "rem": 16.0, "ex": 8.0, "ch": 8.0, "pt": 4 / 3, "pc": 16.0},
    **{"in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4, "q": 96 / 101.6},
    **{"vw": WIDTH / 100, "vh": HEIGHT / 100, "vmin": HEIGHT / 100, "vmax": WIDTH / 100},
}
_RESOLUTION_DPPX = {"dppx": 1.0, "x": 1.0, "dpi": 1 / 96, "dpcm": 2.54 / 96}
# Media types: "all" and "screen" match this reader; the other known ones do not, and
# neither does an unknown one (Chromium).
_MATCHING_TYPES = frozenset(("all", "screen"))
# Features with a number (length, ratio, resolution, integer) on this screen.
_NUMERIC: dict[str, float] = {
    "width": WIDTH,
    "height": HEIGHT,
    "device-width": WIDTH,
    "device-height": HEIGHT,
    "aspect-ratio": WIDTH / HEIGHT,
    "device-aspect-ratio": WIDTH / HEIGHT,
    "resolution": 1.0,
    "-webkit-device-pixel-ratio": 1.0,
    "color": 8.0,
    "color-index": 0.0,
    "monochrome": 0.0,
    "grid": 0.0,
}
# Features with a keyword, and the keyword this reader has.
_KEYWORD: dict[str, str] = {
    "orientation": "landscape",
    "hover": "hover",
    "any-hover": "hover",
    "pointer": "fine",
    "any-pointer": "fine",
    "prefers-color-scheme": "light",
    "prefers-reduced-motion": "no-preference",
    "prefers-reduced-transparency": "no-preference",
    "prefers-reduced-data": "no-preference",
    "prefers-contrast": "no-preference",
    "forced-colors": "none",
    "inverted-colors": "none",
    "display-mode": "browser",
    "scripting": "enabled",
    "update": "fast",
    "dynamic-range": "standard",
    "video-dynamic-range": "standard",
    "color-gamut": "srgb",
    "overflow-block": "scroll",
    "overflow-inline": "scroll",
    "scan": "progressive",
}
# A keyword feature in a boolean context ("(hover)") is false only for these values.
_FALSE_KEYWORDS = frozenset(("none", "no-preference"))
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "=": operator.eq,
}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}


class _Invalid(Exception):
    """A condition a browser cannot parse."""


def _significant(tokens: Sequence[css_ast.Node]) -> list[css_ast.Node]:
    return [t for t in tokens if t.type not in ("whitespace", "comment")]


def _split_commas(tokens: Sequence[css_ast.Node]) -> list[list[css_ast.Node]]:
    parts: list[list[css_ast.Node]] = [[]]
    for token in tokens:
        if token.type == "literal" and token.value == ",":
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _ident(token: css_ast.Node | None) -> str | None:
    return token.lower_value if isinstance(token, css_ast.IdentToken) else None


def _and3(values: Iterator[Truth]) -> Truth:
    result: Truth = True
    for value in values:
        if value is False:
            return False
        if value is None:
            result = None
    return result


def _or3(values: Iterator[Truth]) -> Truth:
    result: Truth = False
    for value in values:
        if value is True:
            return True
        if value is None:
            result = None
    return result


def _not3(value: Truth) -> Truth:
    return None if value is None else not value


@lru_cache(maxsize=2048)
def media_matches(text: str) -> Truth:
    """A media query list (``screen and (min-width: 40em), print``) on this screen."""
    if not text.strip():
        return True
    tokens = tinycss2.parse_component_value_list(text, skip_comments=True)
    return media_tokens_match(tokens)


def media_tokens_match(tokens: Sequence[css_ast.Node]) -> Truth:
    results: list[Truth] = []
    for query in _split_commas(tokens):
        try:
            results.append(_query(_significant(query)))
        except _Invalid:
            results.append(False)  # "not all": a malformed query matches nothing
    return _or3(iter(results))


def _query(tokens: list[css_ast.Node]) -> Truth:
    if not tokens:
        raise _Invalid
    first = _ident(tokens[0])
    negate = first == "not" and len(tokens) > 1 and _ident(tokens[1]) is not None
    if first == "only" or negate:
        tokens = tokens[1:]
    kind = _ident(tokens[0])
    if kind is not None and kind not in ("not", "and", "or"):
        rest = tokens[1:]
        if rest and _ident(rest[0]) != "and":
            raise _Invalid
        matched = _and3(
            iter([kind in _MATCHING_TYPES, _condition(rest[1:], _feature) if rest else True])
        )
    else:
        if negate:
            raise _Invalid
        matched = _condition(tokens, _feature)
    return _not3(matched) if negate else matched


def _condition(
    tokens: list[css_ast.Node], leaf: Callable[[css_ast.ParenthesesBlock], Truth]
) -> Truth:
    """``not A``, ``A and B and …``, ``A or B or …`` of parenthesised leaves."""
    if not tokens:
        raise _Invalid
    if _ident(tokens[0]) == "not":
        if len(tokens) != 2:
            raise _Invalid
        return _not3(_in_parens(tokens[1], leaf))
    operands = [_in_parens(tokens[0], leaf)]
    joiner = None
    for index in range(1, len(tokens), 2):
        word = _ident(tokens[index])
        if word not in ("and", "or") or (joiner and word != joiner) or index + 1 >= len(tokens):
            raise _Invalid
        joiner = word
        operands.append(_in_parens(tokens[index + 1], leaf))
    return _or3(iter(operands)) if joiner == "or" else _and3(iter(operands))


def _in_parens(token: css_ast.Node, leaf: Callable[[css_ast.ParenthesesBlock], Truth]) -> Truth:
    if isinstance(token, css_ast.FunctionBlock):
        return leaf_function(token)
    if not isinstance(token, css_ast.ParenthesesBlock):
        raise _Invalid
    inner = _significant(token.content)
    if inner and (_ident(inner[0]) == "not" or isinstance(inner[0], css_ast.ParenthesesBlock)):
        return _condition(inner, leaf)
    return leaf(token)


def leaf_function(token: css_ast.FunctionBlock) -> Truth:
    """``selector()``, ``font-tech()`` and the like in ``@supports``: Chromium knows them,
    but whether a given argument is supported has no answer here."""
    return None


def _number(token: css_ast.Node, feature: str) -> float | None:
    if isinstance(token, css_ast.NumberToken):
        return float(token.value)
    if isinstance(token, css_ast.DimensionToken):
        unit = token.lower_unit
        table = _RESOLUTION_DPPX if feature.endswith("resolution") else _LENGTH_PX
        factor = table.get(unit)
        return None if factor is None else float(token.value) * factor
    return None


def _value(tokens: list[css_ast.Node], feature: str) -> float | str | None:
    """A feature's value: a number (with a ratio ``16/9`` divided out) or a keyword."""
    if len(tokens) == 1:
        word = _ident(tokens[0])
        return word if word is not None else _number(tokens[0], feature)
    is_ratio = (
        len(tokens) == 3 and tokens[1].type == "literal" and getattr(tokens[1], "value", "") == "/"
    )
    if is_ratio:
        top, bottom = _number(tokens[0], feature), _number(tokens[2], feature)
        if top is not None and bottom:
            return top / bottom
    return None


def _feature(block: css_ast.ParenthesesBlock) -> Truth:
    tokens = _significant(block.content)
    comparators = [
        i for i, t in enumerate(tokens) if t.type == "literal" and t.value in "<>=" and t.value
    ]
    if comparators:
        return _range(tokens)
    if len(tokens) == 1:
        name = _ident(tokens[0])
        if name in _NUMERIC:
            return _NUMERIC[name] != 0
        if name in _KEYWORD:
            return _KEYWORD[name] not in _FALSE_KEYWORDS
        raise _Invalid
    if len(tokens) < 3 or tokens[1].type != "literal" or tokens[1].value != ":":
        raise _Invalid
    name = _ident(tokens[0]) or ""
    vendor = "-webkit-" if name.startswith("-webkit-") else ""  # -webkit-min-device-pixel-ratio
    prefix, _, base = name.removeprefix(vendor).partition("-")
    bound = prefix if prefix in ("min", "max") and base else None
    feature = vendor + base if bound else name
    value = _value(tokens[2:], feature)
    if feature in _KEYWORD and bound is None:
        return value == _KEYWORD[feature]
    actual = _NUMERIC.get(feature)
    if actual is None or not isinstance(value, float):
        raise _Invalid
    if bound == "min":
        return actual >= value
    if bound == "max":
        return actual <= value
    return actual == value


def _range(tokens: list[css_ast.Node]) -> Truth:
    """``(width >= 600px)``, ``(400px <= width < 700px)``."""
    parts: list[list[css_ast.Node]] = [[]]
    operators: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "literal" and token.value in ("<", ">", "="):
            symbol = token.value
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if (
                symbol != "="
                and following is not None
                and following.type == "literal"
                and following.value == "="
            ):
                symbol += "="
                index += 1
            operators.append(symbol)
            parts.append([])
        else:
            parts[-1].append(token)
        index += 1
    if len(parts) not in (2, 3) or any(not part for part in parts):
        raise _Invalid
    names = [_ident(part[0]) if len(part) == 1 else None for part in parts]
    position = next((i for i, n in enumerate(names) if n in _NUMERIC), None)
    if position is None:
        raise _Invalid
    feature = str(names[position])
    actual = _NUMERIC[feature]
    checks: list[bool] = []
    for i, symbol in enumerate(operators):
        left, right = parts[i], parts[i + 1]
        if i + 1 == position:  # value OP feature
            bound = _value(left, feature)
            compare = _COMPARE[_FLIPPED[symbol]]
        elif i == position:  # feature OP value
            bound = _value(right, feature)
            compare = _COMPARE[symbol]
        else:
            raise _Invalid
        if not isinstance(bound, float):
            raise _Invalid
        checks.append(compare(actual, bound))
    return all(checks)


@lru_cache(maxsize=2048)
def supports_matches(text: str) -> Truth:
    """An ``@supports`` condition: true only for a declaration a browser accepts."""
    tokens = _significant(tinycss2.parse_component_value_list(text, skip_comments=True))
    try:
        return _condition(tokens, _declaration_supported)
    except _Invalid:
        return False


def _declaration_supported(block: css_ast.ParenthesesBlock) -> Truth:
    tokens = _significant(block.content)
    if len(tokens) < 3 or tokens[1].type != "literal" or tokens[1].value != ":":
        raise _Invalid
    name = _ident(tokens[0])
    if name is None:
        raise _Invalid
    value = tinycss2.serialize(block.content).partition(":")[2].strip().lower()
    return property_accepts(name, value)

"""Inline CSS read as a browser reads it, so that obfuscation cannot hide a rule.

A ``style`` attribute is page-controlled: comments (``display:/**/none``), escapes
(``display:\\6e one``), odd spacing and case, a later declaration that a browser
drops as invalid, all must resolve to the value the browser applies, or hidden text
slips past the sanitiser. Lengths are turned into CSS pixels against an assumed
small viewport so one threshold serves every unit.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache

# An unterminated comment runs to the end of the style, as in a browser.
_COMMENT_RE = re.compile(r"/\*.*?(?:\*/|\Z)", re.DOTALL)
# A hex escape (up to six digits, one optional whitespace after) or an escaped character.
_ESCAPE_RE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})(?:\r\n|[ \t\r\n\f])?|(.))", re.DOTALL)
_SPACE_RE = re.compile(r"\s+")
# Spaces around separators and inside parentheses carry no meaning.
_PUNCTUATION_SPACE_RE = re.compile(r" ?([,/]) ?|(?<=\() | (?=\))")
_IMPORTANT_RE = re.compile(r" ?! ?important$")
_RAW_IMPORTANT_RE = re.compile(r"\s*!\s*important\s*$", re.IGNORECASE)
_GLOBAL_KEYWORDS = frozenset(("inherit", "initial", "unset", "revert", "revert-layer"))
# Values a browser accepts for the properties that hide; it drops any other value, so a
# junk declaration after ``display:none`` must not count as overriding it.
_KEYWORDS = {
    "display": _GLOBAL_KEYWORDS
    | {
        *("none", "block", "inline", "inline-block", "flex", "inline-flex", "grid"),
        *("inline-grid", "flow", "flow-root", "contents", "list-item", "run-in", "ruby"),
        *("ruby-base", "ruby-text", "ruby-base-container", "ruby-text-container", "math"),
        *("table", "inline-table", "table-row", "table-cell", "table-column"),
        *("table-row-group", "table-column-group", "table-header-group"),
        *("table-footer-group", "table-caption", "-webkit-box", "-webkit-inline-box"),
        *("-ms-flexbox", "-ms-inline-flexbox", "-ms-grid", "-ms-inline-grid"),
    },
    "visibility": _GLOBAL_KEYWORDS | {"visible", "hidden", "collapse"},
    "content-visibility": _GLOBAL_KEYWORDS | {"visible", "auto", "hidden"},
}
# Written so no string of digits can be split two ways: no backtracking blow-up.
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?"
_QUANTITY_RE = re.compile(f"({_NUMBER})([a-z%]*)")
_MATH_RE = re.compile(r"(?:calc|min|max|clamp)\(")
# What is left of a math expression once its quantities are numbers.
_ARITHMETIC_RE = re.compile(r"(?:calc|min|max|clamp|[\d.e+\-*/(), ])*")
_MATH_FUNCTIONS: Mapping[str, Callable[..., float]] = {
    "calc": lambda x: x,
    "min": min,
    "max": max,
    "clamp": lambda low, value, high: max(low, min(value, high)),
}
# Starts only at a word's start and never gives back what it matched: linear time on
# page-controlled input.
_FUNCTION_RE = re.compile(r"(?<![a-z0-9-])([a-z][a-z0-9-]*+)\(((?:[^()]|\([^()]*+\))*+)\)")

# CSS pixels per unit; viewport units assume a 500px-wide screen, so -100vw is -500px.
ABSOLUTE_UNITS: Mapping[str, float] = {
    "": 1.0,  # quirks mode takes unitless lengths as pixels
    "px": 1.0,
    "pt": 4 / 3,
    "pc": 16.0,
    "in": 96.0,
    "cm": 96 / 2.54,
    "mm": 96 / 25.4,
    "q": 96 / 101.6,
    "rem": 16.0,
    **dict.fromkeys(
        ("vw", "vh", "vi", "vb", "vmin", "vmax", "svw", "svh", "lvw", "lvh", "dvw", "dvh"), 5.0
    ),
}
# Units relative to the element's own font size (16px assumed).
FONT_RELATIVE_UNITS: Mapping[str, float] = {"em": 16.0, "ex": 8.0, "ch": 8.0, "lh": 19.2}
NUMBER_UNITS: Mapping[str, float] = {"": 1.0, "%": 0.01}


def _unescape(match: re.Match[str]) -> str:
    digits, char = match.groups()
    if digits is None:
        return str(char)
    code = int(digits, 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def unescape(text: str) -> str:
    """CSS escapes (``\\6e``, ``\\:``) resolved to the characters they stand for."""
    return _ESCAPE_RE.sub(_unescape, text) if "\\" in text else text


def _normalise(text: str) -> str:
    if "\\" in text:
        text = _ESCAPE_RE.sub(_unescape, text)
    text = _SPACE_RE.sub(" ", text).strip().lower()
    return _PUNCTUATION_SPACE_RE.sub(r"\1", text)


@lru_cache(maxsize=4096)
def declarations(style: str) -> Mapping[str, str]:
    """The declarations a browser applies from a style attribute, names and values normalised.

    Later declarations win unless an earlier one is ``!important`` or the later value
    is one a browser rejects.
    """
    return {name: value for name, (value, _) in weighted_declarations(style).items()}


def _written(block: str) -> Iterator[tuple[str, str]]:
    """Each declaration of a block as written, name and value (comments out)."""
    if "/*" in block:
        block = _COMMENT_RE.sub("", block)
    for part in block.split(";"):
        name, colon, raw = part.partition(":")
        if colon:
            yield name, raw


@lru_cache(maxsize=8192)
def weighted_declarations(block: str) -> Mapping[str, tuple[str, bool]]:
    """The declarations of a style attribute or a rule's block, each with whether it is
    ``!important``: one reader for both, so a sheet cannot hide what the attribute reader
    would catch."""
    applied: dict[str, tuple[str, bool]] = {}
    for name, raw in _written(block):
        prop = _normalise(name)
        value, flagged = _IMPORTANT_RE.subn("", _normalise(raw))
        allowed = _KEYWORDS.get(prop)
        if not value or (prop in applied and applied[prop][1] and not flagged):
            continue
        if allowed is not None and "var(" not in value and not set(value.split()) <= allowed:
            continue  # a value with var() is valid until it is computed, as in a browser
        applied[prop] = (value, bool(flagged))
    return applied


@lru_cache(maxsize=8192)
def raw_declarations(block: str) -> Mapping[str, tuple[str, bool]]:
    """The declarations of a block with their values as written: the name of a custom
    property (``--x``), and the names ``var()`` reads, are case-sensitive."""
    found: dict[str, tuple[str, bool]] = {}
    for written, raw in _written(block):
        name = unescape(written.strip())
        if not name.startswith("--"):
            name = name.lower()
        value, flagged = _RAW_IMPORTANT_RE.subn("", raw)
        if name in found and found[name][1] and not flagged:
            continue
        found[name] = (value.strip(), bool(flagged))
    return found


# Properties Chromium knows, for ``@supports``: a condition on any other is false there.
# Those this reader has no list for are "unknown", which lets a hiding rule apply.
_KNOWN_PROPERTIES = frozenset(
    (
        *("display", "visibility", "content-visibility", "opacity", "color", "background"),
        *("background-color", "background-image", "background-clip", "position", "top"),
        *("left", "right", "bottom", "inset", "margin", "padding", "width", "height"),
        *("min-width", "min-height", "max-width", "max-height", "overflow", "overflow-x"),
        *("overflow-y", "clip", "clip-path", "transform", "translate", "scale", "rotate"),
        *("zoom", "filter", "backdrop-filter", "font", "font-size", "font-family"),
        *("font-weight", "font-style", "line-height", "text-indent", "text-align"),
        *("text-decoration", "text-transform", "white-space", "word-break", "gap"),
        *("grid", "grid-template-columns", "grid-template-rows", "grid-area", "flex"),
        *("flex-direction", "flex-wrap", "align-items", "justify-content", "order"),
        *("border", "border-radius", "box-shadow", "box-sizing", "outline", "cursor"),
        *("transition", "animation", "float", "clear", "z-index", "content", "contain"),
        *("container-type", "aspect-ratio", "object-fit", "mask", "mask-image"),
        *("-webkit-mask", "-webkit-mask-image", "appearance", "-webkit-appearance"),
        *("backface-visibility", "perspective", "will-change", "isolation"),
        *("mix-blend-mode", "accent-color", "caret-color", "color-scheme", "inset-inline"),
        *("margin-inline", "padding-inline", "position-anchor", "anchor-name"),
        *("text-wrap", "hyphens", "tab-size", "scroll-behavior", "touch-action"),
        *("user-select", "-webkit-user-select", "-webkit-text-fill-color"),
        *("-webkit-background-clip", "-webkit-line-clamp", "-webkit-box-orient"),
        *("field-sizing", "interpolate-size", "view-transition-name", "text-box"),
    )
)
_FOREIGN_PREFIXES = ("-moz-", "-ms-", "-o-")


def property_accepts(name: str, value: str) -> bool | None:
    """Whether a browser accepts ``name: value`` (``@supports``); None: cannot tell."""
    if name.startswith(_FOREIGN_PREFIXES) or not value:
        return False
    allowed = _KEYWORDS.get(name)
    if allowed is not None:
        return set(value.split()) <= allowed
    return True if name in _KNOWN_PROPERTIES else None


def _evaluate(node: ast.AST) -> float:
    match node:
        case ast.Expression(body=body):
            return _evaluate(body)
        case ast.Constant(value=float() | int() as value):
            return float(value)
        case ast.UnaryOp(op=ast.USub(), operand=operand):
            return -_evaluate(operand)
        case ast.UnaryOp(op=ast.UAdd(), operand=operand):
            return _evaluate(operand)
        case ast.BinOp(left=left, op=ast.Add(), right=right):
            return _evaluate(left) + _evaluate(right)
        case ast.BinOp(left=left, op=ast.Sub(), right=right):
            return _evaluate(left) - _evaluate(right)
        case ast.BinOp(left=left, op=ast.Mult(), right=right):
            return _evaluate(left) * _evaluate(right)
        case ast.BinOp(left=left, op=ast.Div(), right=right):
            return _evaluate(left) / _evaluate(right)
        case ast.Call(func=ast.Name(id=name), args=args) if name in _MATH_FUNCTIONS:
            return _MATH_FUNCTIONS[name](*(_evaluate(arg) for arg in args))
    raise ValueError("not CSS arithmetic")


def measure(value: str | None, units: Mapping[str, float]) -> float | None:
    """A quantity (``-9999px``, ``1e4em``, ``calc(-100vw - 10px)``) scaled by ``units``.

    None when the value is not such a quantity or uses a unit outside ``units``.
    """
    if not value:
        return None
    simple = _QUANTITY_RE.fullmatch(value)
    if simple:
        factor = units.get(simple.group(2))
        return None if factor is None else float(simple.group(1)) * factor
    if not _MATH_RE.match(value):
        return None
    missing = False

    def scaled(match: re.Match[str]) -> str:
        nonlocal missing
        factor = units.get(match.group(2))
        missing = missing or factor is None
        return f"({float(match.group(1)) * (factor or 0.0)!r})"

    expression = _QUANTITY_RE.sub(scaled, value)
    if missing or not _ARITHMETIC_RE.fullmatch(expression):
        return None
    try:
        return _evaluate(ast.parse(expression, mode="eval"))
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, RecursionError, OverflowError):
        return None


def numbers(value: str) -> list[float]:
    """Every number in a value, units dropped (enough for ``rect()`` and ``inset()``)."""
    return [float(number) for number, _ in _QUANTITY_RE.findall(value)]


def tokens(value: str, separators: str = ", /") -> list[str]:
    """Top-level parts of a value: what a function's parentheses hold stays in one part."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(value):
        depth += (char == "(") - (char == ")")
        if depth == 0 and char in separators:
            parts.append(value[start:index])
            start = index + 1
    parts.append(value[start:])
    return [part for part in parts if part]


def functions(value: str) -> list[tuple[str, list[str]]]:
    """The functions of a value such as a transform list, each with its arguments."""
    return [(name, tokens(arguments)) for name, arguments in _FUNCTION_RE.findall(value)]


def alpha(color: str) -> float:
    """The opacity of a colour value: 0 for ``transparent``, 1 when there is no alpha."""
    if color == "transparent":
        return 0.0
    if color.startswith("#") and len(color) in (5, 9):
        digits = color[4:] if len(color) == 5 else color[7:]
        try:
            return int(digits, 16) / (15 if len(digits) == 1 else 255)
        except ValueError:
            return 1.0
    match = _FUNCTION_RE.fullmatch(color)
    if not match or not match.group(1).startswith(("rgb", "hsl", "hwb", "lab", "lch", "ok")):
        return 1.0
    body = match.group(2)
    arguments = tokens(body)
    if "/" in body:
        value = body.rpartition("/")[2].strip()
    elif len(arguments) == 4:
        value = arguments[3]
    else:
        return 1.0
    level = measure(value, NUMBER_UNITS)
    return 1.0 if level is None else level


# The named colours pages use for text and backgrounds; any other name stays a name,
# so two equal names still compare equal.
_NAMED_COLOURS = {
    "white": (255, 255, 255),
    "black": (0, 0, 0),
    "red": (255, 0, 0),
    "green": (0, 128, 0),
    "blue": (0, 0, 255),
    "yellow": (255, 255, 0),
    "gray": (128, 128, 128),
    "grey": (128, 128, 128),
    "silver": (192, 192, 192),
    "navy": (0, 0, 128),
    "whitesmoke": (245, 245, 245),
}


def solid_colour(value: str) -> tuple[int, int, int] | str | None:
    """An opaque colour as RGB (a name outside the common ones as itself), else None.

    Only opaque colours can make text match its background; a translucent one blends.
    """
    value = value.strip()
    if value in _NAMED_COLOURS:
        return _NAMED_COLOURS[value]
    if value.startswith("#"):
        digits = value[1:]
        if len(digits) in (3, 4):
            digits = "".join(d * 2 for d in digits)
        if len(digits) == 8 and digits[6:] == "ff":
            digits = digits[:6]
        if len(digits) != 6:
            return None
        try:
            return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))
        except ValueError:
            return None
    match = _FUNCTION_RE.fullmatch(value)
    if match:
        if not match.group(1).startswith("rgb") or alpha(value) < 1:
            return None
        channels = [measure(part, {"": 1.0, "%": 2.55}) for part in tokens(match.group(2))[:3]]
        if len(channels) != 3 or any(c is None for c in channels):
            return None
        return (round(channels[0] or 0), round(channels[1] or 0), round(channels[2] or 0))
    return value if value.isalpha() and value not in ("transparent", "currentcolor") else None

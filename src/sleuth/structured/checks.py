"""The deterministic checks on one proposed leaf: is the quote on the page, is the value in it.

Matching folds whitespace and case and nothing else, so a quote is the page's words as
a reader sees them. The text searched is the reader-visible text the fetch path made:
hidden text was never in it, and the spans a reader does not find on the page word for
word (``not_verbatim``) are barriers no quote crosses.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

BARRIER = "\x00"  # not whitespace, never in a quote: a match cannot cross it

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"
_YMD = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_NUMERIC = re.compile(r"(?<!\d)(\d{1,2})[-/.](\d{1,2})[-/.](\d{4}|\d{2})(?!\d)")
_DAY_MONTH = re.compile(
    rf"(?<!\d)(\d{{1,2}}){_ORD}\.?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})(?!\d)", re.I
)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD},?\s+(\d{{4}})(?!\d)", re.I)
_ISO_VALUE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$")
# A number as pages write it: a sign, thousands groups (comma, dot, apostrophe, spaces),
# a decimal point or comma. A currency sign around it is simply not part of the match.
_GROUPS = r"\d{1,3}(?:[,.'\u00a0\u202f\u2009 ]\d{3})+(?:[.,]\d+)?"
_NUMBER = re.compile(rf"(?<![\w.,])([-\u2212]?)({_GROUPS}|\d+(?:[.,]\d+)?)(?![\d])")


def visible_text(text: str, not_verbatim: Iterable[Sequence[int]] = ()) -> str:
    """``text`` with the spans a reader does not find on the page as barriers (offsets kept)."""
    spans = sorted((int(s), int(e)) for s, e in not_verbatim)
    if not spans:
        return text
    out = list(text)
    for start, end in spans:
        for index in range(max(start, 0), min(end, len(out))):
            out[index] = BARRIER
    return "".join(out)


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """Where ``quote`` is in ``text``, whitespace and case folded; None when it is not."""
    words = quote.split()
    if not words or BARRIER in quote:
        return None
    found = re.search(r"\s+".join(map(re.escape, words)), text, re.IGNORECASE)
    return (found.start(), found.end()) if found else None


def fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _numbers(quote: str) -> set[float]:
    """Every number ``quote`` can be read as: ``1,234`` is 1234 or 1.234, ``1.234,5`` 1234.5."""
    values: set[float] = set()
    for sign, body in _NUMBER.findall(quote):
        negative = -1.0 if sign else 1.0
        parts = re.split(r"\D", body)
        if len(parts) == 1:
            values.add(negative * float(body))
            continue
        if all(len(part) == 3 for part in parts[1:]):
            values.add(negative * float("".join(parts)))  # every separator groups thousands
        last = max(body.rfind("."), body.rfind(","))
        if last >= 0:  # the last dot or comma is the decimal point
            whole = re.sub(r"\D", "", body[:last])
            values.add(negative * float(f"{whole}.{body[last + 1 :]}"))
    return values


def number_in(value: float, quote: str) -> bool:
    return any(math.isclose(value, found, rel_tol=1e-9, abs_tol=1e-9) for found in _numbers(quote))


def _year(text: str) -> int:
    year = int(text)
    if len(text) == 2:
        year += 2000 if year < 70 else 1900
    return year


def _valid(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def dates_in(quote: str) -> set[date]:
    """The dates ``quote`` writes in common ways; ``03/04/2024`` is both 3 April and 4 March."""
    found: list[date | None] = []
    for y, m, d in _YMD.findall(quote):
        found.append(_valid(int(y), int(m), int(d)))
    for a, b, y in _NUMERIC.findall(quote):
        found.append(_valid(_year(y), int(b), int(a)))
        found.append(_valid(_year(y), int(a), int(b)))
    for d, month, y in _DAY_MONTH.findall(quote):
        found.append(_valid(int(y), _MONTHS[month.lower()], int(d)))
    for month, d, y in _MONTH_DAY.findall(quote):
        found.append(_valid(int(y), _MONTHS[month.lower()], int(d)))
    return {day for day in found if day is not None}


def date_value(value: Any) -> date | None:
    """An ISO date (or the date of an ISO date-time) as the schema's ``format`` asks."""
    match = _ISO_VALUE.match(value) if isinstance(value, str) else None
    return _valid(*(int(part) for part in match.groups())) if match else None


def value_in_quote(kind: str, value: Any, quote: str) -> str | None:
    """How the value is borne out by its quote: ``"value"`` (found in it), ``"quote"``
    (a boolean or a choice: the quote stands for it), or None (it is not in the quote)."""
    if kind == "choice" or isinstance(value, bool):
        return "quote"
    if kind == "date":
        day = date_value(value)
        return "value" if day is not None and day in dates_in(quote) else None
    if isinstance(value, (int, float)):
        return "value" if number_in(float(value), quote) else None
    if isinstance(value, str):
        return "value" if value.strip() and fold(value) in fold(quote) else None
    return None


def same(a: Any, b: Any) -> bool:
    """Whether two proposals are the same value (numbers by value, text folded)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(a, str) and isinstance(b, str):
        return fold(a) == fold(b)
    return bool(a == b)

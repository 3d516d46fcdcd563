"""Words and index terms for ranking and duplicate detection.

Terms are lowercase unicode word tokens with common English function words
removed and a light suffix stemmer applied, so ``caching``, ``cached`` and
``caches`` meet. Version-like numbers (``3.12``) stay whole. Scripts written
without spaces (Chinese, Japanese, Korean) become overlapping character pairs,
which is what keeps them searchable without a dictionary.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\d+(?:[.,]\d+)+|\w+")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")

_STOP_LIST = """
    a about above after again against all am an and any are aren as at be because been
    before being below between both but by can could did didn do does doesn doing don down
    during each few for from further had has have having he her here hers herself him himself
    his how i if in into is isn it its itself just me more most my myself no nor not of off on
    once only or other our ours ourselves out over own same she should so some such than that
    the their theirs them themselves then there these they this those through to too under
    until up very was wasn we were what when where which while who whom why will with would
    you your yours yourself yourselves s t
"""
STOP_WORDS = frozenset(_STOP_LIST.split())
_KEEP_DOUBLED = frozenset("lszaeiou")
_MAX_CACHED_TOKENS = 200_000


def stem(word: str) -> str:
    """A light English stemmer: plural, -ing, -ed, a final -e or -y, doubled consonant."""
    if len(word) < 4 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3 and any(v in base for v in "aeiouy"):
            word = base
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in _KEEP_DOUBLED:
                word = word[:-1]
            break
    if len(word) > 3 and word[-1] == "e":
        word = word[:-1]
    elif len(word) > 3 and word[-1] == "y":
        word = word[:-1] + "i"
    return word


def words(text: str) -> list[str]:
    """Lowercase word tokens, nothing removed (for comparing passages)."""
    return _WORD.findall(text.lower())


def _cjk_terms(token: str) -> list[str]:
    out: list[str] = []
    last = 0
    for run in _CJK_RUN.finditer(token):
        if run.start() > last:
            out.append(token[last : run.start()])
        chars = run.group()
        out.extend(chars[i : i + 2] for i in range(max(1, len(chars) - 1)))
        last = run.end()
    if last < len(token):
        out.append(token[last:])
    return out


def _token_terms(token: str) -> tuple[str, ...]:
    if token in STOP_WORDS:
        return ()
    if token.isascii():
        return (stem(token),)
    return tuple(stem(part) for part in _cjk_terms(token) if part not in STOP_WORDS)


class _TermCache(dict[str, tuple[str, ...]]):
    """Terms per token, computed once per process (pages repeat their words)."""

    def __missing__(self, token: str) -> tuple[str, ...]:
        found = _token_terms(token)
        if len(self) < _MAX_CACHED_TOKENS:
            self[token] = found
        return found


_TERMS = _TermCache()


def terms(text: str) -> list[str]:
    """Index terms of ``text`` in order."""
    cache = _TERMS
    return [term for token in _WORD.findall(text.lower()) for term in cache[token]]


def needle(term: str) -> str:
    """A lowercase substring found in any text that yields ``term``.

    Every stem is a prefix of the words it comes from, except that a final
    ``y`` became ``i``; dropping that letter keeps the promise.
    """
    return term[:-1] if len(term) > 3 and term.endswith("i") else term

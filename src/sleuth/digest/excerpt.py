"""Trimming a passage to a bullet: whole sentences, the most relevant ones, within a cap.

The result is always a span of the page text, so a bullet can be checked
against its source verbatim; nothing is added (no ellipsis, no rewording).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from sleuth.digest.segment import Span, sentence_spans
from sleuth.digest.tokenize import terms

_CLAUSE_END = re.compile(r"[,;:](?=\s)|[、，；：]")


def _cut_long(text: str, start: int, end: int, max_chars: int) -> Span:
    """The head of one over-long sentence, ended at a clause mark or else between words."""
    limit = start + max_chars
    clause_cuts = [m.end() for m in _CLAUSE_END.finditer(text, start + max_chars // 2, limit)]
    if clause_cuts:
        cut = clause_cuts[-1]
    else:
        space = text.rfind(" ", start + 1, limit + 1)
        cut = space if space > start else limit
    while cut > start and text[cut - 1].isspace():
        cut -= 1
    return start, min(cut, end)


def excerpt(text: str, start: int, end: int, weights: Mapping[str, float], max_chars: int) -> Span:
    """The best window of consecutive sentences of ``text[start:end]`` that fits ``max_chars``.

    Windows start at a sentence with a query term where there is one (a bullet
    should lead with its point) and are scored by the summed weight of the
    distinct query terms they contain; ties go to the earlier window.
    """
    if end - start <= max_chars:
        return start, end
    sentences = sentence_spans(text, start, end)
    found = [set(terms(text[s:e])) & weights.keys() for s, e in sentences]
    starts = [i for i, hits in enumerate(found) if hits] or range(len(sentences))
    best: Span | None = None
    best_score = -1.0
    for i in starts:
        first_start, first_end = sentences[i]
        if first_end - first_start > max_chars:
            window: Span = _cut_long(text, first_start, first_end, max_chars)
            covered = set(terms(text[window[0] : window[1]])) & weights.keys()
        else:
            j = i
            covered = set()
            while j < len(sentences) and sentences[j][1] - first_start <= max_chars:
                covered |= found[j]
                j += 1
            window = (first_start, sentences[j - 1][1])
        score = sum(weights[t] for t in covered)
        if score > best_score:
            best, best_score = window, score
    assert best is not None  # a passage longer than the cap has at least one sentence
    return best

"""Ranking passages of all fetched pages against the question and the focus.

The score of a passage is BM25 over every passage read for this question,
scaled by how much of the query it covers, by matched query word pairs
(``connection pool`` beats ``pool`` near ``connection`` somewhere), by its
source's prior, by how much of the text around it is prose (main content is
paragraphs; menus, teaser lists and sidebars are short lines) and, gently,
by how early it appears in its page. Chrome that extraction kept (headings,
teasers, label lines, calls to action, repeated lines) is never a candidate;
see :mod:`sleuth.digest.chrome`.
Selection then walks down the ranking, trims each passage to a bullet,
spreads bullets over pages and folds near-duplicates into the bullet that
already says the same thing, citing both pages.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from sleuth.digest.bm25 import BM25
from sleuth.digest.chrome import RepeatedLines, finding_span, line_of, prose_share
from sleuth.digest.dedupe import Shingles, near_duplicate, shingles
from sleuth.digest.excerpt import excerpt
from sleuth.digest.segment import lowercase, matching_passages
from sleuth.digest.tokenize import needle, terms

FOCUS_WEIGHT = 1.5
PAIR_BONUS = 0.2
MAX_PAIR_HITS = 3
POSITION_BONUS = 0.1
SAME_PAGE_DECAY = 0.75
MIN_RELATIVE_SCORE = 0.2
POOL_SIZE = 64
MAX_CANDIDATES = 256
PROSE_FLOOR = 0.5


@dataclass(frozen=True, slots=True)
class Query:
    """Weighted index terms and the adjacent term pairs worth a bonus."""

    weights: dict[str, float]
    pairs: frozenset[tuple[str, str]]

    @property
    def empty(self) -> bool:
        return not self.weights


def _pairs(tokens: Sequence[str]) -> set[tuple[str, str]]:
    return set(pairwise(tokens))


def build_query(question: str, focus: str | None = None) -> Query:
    """Question terms weigh 1; focus terms weigh more, since they say what matters most."""
    question_terms = terms(question)
    focus_terms = terms(focus) if focus else []
    weights = dict.fromkeys(question_terms, 1.0)
    for term in set(focus_terms):
        weights[term] = weights.get(term, 0.0) + FOCUS_WEIGHT
    return Query(weights, frozenset(_pairs(question_terms) | _pairs(focus_terms)))


@dataclass(frozen=True, slots=True)
class Scored:
    page: int
    start: int
    end: int
    score: float


def _shortlist(
    texts: Sequence[str], candidates: list[tuple[int, int, int]], query: Query, collection: int
) -> tuple[list[tuple[int, int, int]], dict[str, int]]:
    """The ``MAX_CANDIDATES`` most promising passages, and every term's frequency over all.

    A word that appears everywhere on a huge page would otherwise send
    thousands of paragraphs through exact scoring; a cheap substring score
    (weighted, idf-like, no term counts) decides which ones go on.
    """
    by_needle: dict[str, list[str]] = {}
    for term in query.weights:
        by_needle.setdefault(needle(term), []).append(term)
    found = [
        [n for n in by_needle if n in lowercase(texts[page][start:end])]
        for page, start, end in candidates
    ]
    df = Counter(n for hits in found for n in hits)
    value = {
        n: max(query.weights[t] for t in by_needle[n]) * math.log(1.0 + collection / df[n])
        for n in df
    }
    order = sorted(range(len(candidates)), key=lambda i: -sum(value[n] for n in found[i]))
    keep = sorted(order[:MAX_CANDIDATES])
    frequency = {t: df[n] for n in df for t in by_needle[n]}
    return [candidates[i] for i in keep], frequency


def _findings_only(
    texts: Sequence[str], candidates: list[tuple[int, int, int]]
) -> list[tuple[int, int, int]]:
    """The candidates that are findings, trimmed of chrome; see :mod:`sleuth.digest.chrome`."""
    repeated: dict[int, RepeatedLines] = {}
    kept: list[tuple[int, int, int]] = []
    for page, start, end in candidates:
        text = texts[page]
        if page not in repeated:
            repeated[page] = RepeatedLines(text)
        if line_of(text, start) in repeated[page]:
            continue
        span = finding_span(text, start, end)
        if span is not None:
            kept.append((page, *span))
    return kept


def rank_passages(texts: Sequence[str], priors: Sequence[float], query: Query) -> list[Scored]:
    """Every passage that shares a term with the query (up to a cap), best first.

    Only passages containing a query term's needle are tokenised; the rest of
    each page counts for the collection size through its line count.
    """
    if query.empty:
        return []
    needles = sorted({needle(term) for term in query.weights})
    candidates: list[tuple[int, int, int]] = []
    collection = 0
    for page, text in enumerate(texts):
        collection += text.count("\n") + 1
        candidates.extend((page, s, e) for s, e in matching_passages(text, needles))
    frequency: dict[str, int] | None = None
    if len(candidates) > MAX_CANDIDATES:
        candidates, frequency = _shortlist(texts, candidates, query, collection)
    candidates = _findings_only(texts, candidates)
    tokenised = [terms(texts[page][start:end]) for page, start, end in candidates]
    index = BM25(tokenised, collection_size=collection, document_frequency=frequency)
    base = index.scores(query.weights)
    total_weight = sum(query.weights.values())
    ranked: list[Scored] = []
    for (page, start, end), tokens, score in zip(candidates, tokenised, base, strict=True):
        if score <= 0:
            continue
        coverage = sum(query.weights[t] for t in set(tokens) & query.weights.keys()) / total_weight
        pair_hits = min(MAX_PAIR_HITS, len(_pairs(tokens) & query.pairs))
        position = 1.0 + POSITION_BONUS * (1.0 - start / max(1, len(texts[page])))
        prose = PROSE_FLOOR + (1.0 - PROSE_FLOOR) * prose_share(texts[page], start, end)
        value = (
            score
            * (0.5 + coverage)
            * (1.0 + PAIR_BONUS * pair_hits)
            * priors[page]
            * position
            * prose
        )
        ranked.append(Scored(page, start, end, value))
    ranked.sort(key=lambda s: s.score, reverse=True)
    return ranked


@dataclass(slots=True)
class KeySpan:
    """A bullet-sized span of ``pages[0]``; further pages say nearly the same."""

    pages: list[int]
    start: int
    end: int
    score: float
    marks: Shingles = field(default=frozenset(), repr=False)


def select(
    ranked: Sequence[Scored],
    texts: Sequence[str],
    query: Query,
    *,
    max_findings: int,
    max_chars: int,
) -> list[KeySpan]:
    """The best distinct findings, spread over pages, each at most ``max_chars`` long."""
    if not ranked:
        return []
    floor = ranked[0].score * MIN_RELATIVE_SCORE
    pool = [s for s in ranked[:POOL_SIZE] if s.score >= floor]
    per_page: Counter[int] = Counter()
    findings: list[KeySpan] = []
    while pool and len(findings) < max_findings:
        best = max(pool, key=lambda s: s.score * SAME_PAGE_DECAY ** per_page[s.page])
        pool.remove(best)
        text = texts[best.page]
        start, end = excerpt(text, best.start, best.end, query.weights, max_chars)
        marks = shingles(text[start:end])
        twin = next((f for f in findings if near_duplicate(marks, f.marks)), None)
        if twin is not None:
            if best.page not in twin.pages:
                twin.pages.append(best.page)
            continue
        findings.append(KeySpan([best.page], start, end, best.score, marks))
        per_page[best.page] += 1
    return findings

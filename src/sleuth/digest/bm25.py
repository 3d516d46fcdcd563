"""Okapi BM25 over passages, with an inverted index so scoring touches only query terms."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence


class BM25:
    """Scores a fixed collection of tokenised documents against weighted queries.

    ``k1`` caps how much repeating a term helps; ``b`` sets how strongly long
    documents are discounted. The idf is the non-negative variant
    ``ln(1 + (N - df + 0.5) / (df + 0.5))``, so a term found everywhere still
    counts a little instead of going negative.

    When only some documents of a larger collection are scored, the caller
    passes that collection's size and, if it knows them better than the
    scored documents do, its document frequencies.
    """

    def __init__(
        self,
        documents: Iterable[Sequence[str]],
        *,
        collection_size: int | None = None,
        document_frequency: Mapping[str, int] | None = None,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> None:
        self.k1 = k1
        self.b = b
        self._df = document_frequency
        self.lengths: list[int] = []
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for index, tokens in enumerate(documents):
            self.lengths.append(len(tokens))
            for term, count in Counter(tokens).items():
                self._postings.setdefault(term, []).append((index, count))
        total = sum(self.lengths)
        self.average_length = total / len(self.lengths) if total else 1.0
        self.collection_size = max(collection_size or 0, len(self.lengths))

    def __len__(self) -> int:
        return len(self.lengths)

    def document_frequency(self, term: str) -> int:
        scored = len(self._postings.get(term, ()))
        return max(scored, self._df.get(term, 0)) if self._df is not None else scored

    def idf(self, term: str) -> float:
        df = self.document_frequency(term)
        return math.log(1.0 + (self.collection_size - df + 0.5) / (df + 0.5))

    def scores(self, query: Mapping[str, float]) -> list[float]:
        """One score per document for query terms weighted by ``query[term]``."""
        result = [0.0] * len(self)
        k1, b, avg = self.k1, self.b, self.average_length
        for term, weight in query.items():
            postings = self._postings.get(term)
            if not postings or weight <= 0:
                continue
            idf = self.idf(term) * weight
            for index, tf in postings:
                norm = k1 * (1.0 - b + b * self.lengths[index] / avg)
                result[index] += idf * tf * (k1 + 1.0) / (tf + norm)
        return result

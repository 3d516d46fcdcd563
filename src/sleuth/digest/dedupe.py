"""Near-duplicate passages: the same statement syndicated, quoted or mirrored on several pages.

Two passages are near-duplicates when their word 3-shingle sets overlap by
Jaccard similarity, or when most of the shorter one is contained in the
longer one (an excerpt of a paragraph that another page carries whole).
Exact set arithmetic is used: a digest compares tens of passages, far below
where MinHash sketches would pay off.
"""

from __future__ import annotations

from sleuth.digest.tokenize import words

Shingles = frozenset[int]

SHINGLE_WORDS = 3
JACCARD_THRESHOLD = 0.5
CONTAINMENT_THRESHOLD = 0.8


def shingles(text: str, size: int = SHINGLE_WORDS) -> Shingles:
    """Hashes of every run of ``size`` consecutive words (fewer for very short text)."""
    tokens = words(text)
    size = max(1, min(size, len(tokens)))
    return frozenset(hash(tuple(tokens[i : i + size])) for i in range(len(tokens) - size + 1))


def near_duplicate(a: Shingles, b: Shingles) -> bool:
    if not a or not b:
        return False
    common = len(a & b)
    if common / min(len(a), len(b)) >= CONTAINMENT_THRESHOLD:
        return True
    return common / (len(a) + len(b) - common) >= JACCARD_THRESHOLD

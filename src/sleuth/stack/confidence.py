"""How sure a finding is, from what its evidence is made of.

A parsed manifest alone reaches the bar at which the LLM fallback is no longer consulted;
a lockfile, sources in the same language and a declared framework each add to it; a manifest
that could not be parsed takes it back below the bar. Positive kinds count once, each
problem counts separately.
"""

from __future__ import annotations

from collections.abc import Iterable

from sleuth.stack.model import Evidence, EvidenceKind

# At or above this, deterministic findings are trusted and the fallback is not asked.
CONFIDENT = 0.5

WEIGHTS: dict[EvidenceKind, float] = {
    "manifest": 0.5,
    "weak_manifest": 0.3,
    "lockfile": 0.15,
    "sources": 0.2,
    "dependency": 0.1,
    "config": 0.05,
    "workspace": 0.05,
    "marker": 0.05,
    "guess": 0.3,
    "problem": -0.25,
    "skipped": -0.05,
    "note": 0.0,
}


def score(evidence: Iterable[Evidence]) -> float:
    """A confidence in [0, 1], rounded to two places."""
    best: dict[EvidenceKind, float] = {}
    penalty = 0.0
    for item in evidence:
        value = WEIGHTS[item.kind] * item.strength
        if value < 0:
            penalty += value
        elif value > best.get(item.kind, 0.0):
            best[item.kind] = value
    total = sum(best.values()) + penalty
    return round(min(1.0, max(0.0, total)), 2)

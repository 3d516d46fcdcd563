"""The deterministic decision over ecosystem matches: quality filter, ranking, choice.

The filter uses OR logic per registry (a package passes on downloads or on its
version count); ranking is downloads, then versions, then a fixed priority. A
leader only wins outright with a ten-fold popularity gap backed by a history and
a repository; anything closer is a choice for a person, or, in batch runs, the
top match flagged as high risk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sleuth.discovery.models import ProbeResult

# builder -> (minimum downloads, minimum versions); None means that signal never passes.
THRESHOLDS: dict[str, tuple[int | None, int | None]] = {
    "crates.io": (100, 5),
    "npm": (100, 5),
    "rubygems": (1000, 5),
    "pypi": (None, 3),
    "go": (None, 3),
    "cpan": (1, 3),
}
ALWAYS_PASS = frozenset({"homebrew", "cask"})  # curated: a formula is reviewed before it lands
PRIORITY: dict[str, int] = {
    "cask": 1,
    "homebrew": 2,
    "crates.io": 3,
    "pypi": 4,
    "npm": 5,
    "rubygems": 6,
    "go": 7,
    "cpan": 8,
}
GAP = 10
MIN_LEADER_VERSIONS = 3
Reason = Literal["single_match", "10x_popularity_gap", "ambiguous"]


def builder_of(result: ProbeResult) -> str:
    return result.source.split(":", 1)[0]


def passes(result: ProbeResult) -> bool:
    builder = builder_of(result)
    if builder in ALWAYS_PASS:
        return True
    downloads, versions = THRESHOLDS.get(builder, (None, None))
    return (downloads is not None and result.downloads >= downloads) or (
        versions is not None and result.version_count >= versions
    )


def rank(results: list[ProbeResult]) -> list[ProbeResult]:
    return sorted(
        results,
        key=lambda r: (-r.downloads, -r.version_count, PRIORITY.get(builder_of(r), 99)),
    )


@dataclass
class Decision:
    ranked: list[ProbeResult]  # the matches that passed the filter, best first
    reason: Reason | None  # None: nothing passed
    downloads_ratio: float | None = None

    @property
    def leader(self) -> ProbeResult | None:
        return self.ranked[0] if self.ranked else None


def ratio(leader: ProbeResult, runner: ProbeResult) -> float | None:
    """The leader's downloads over the runner-up's, unrounded: JSON is read by programs,
    and only the human display rounds."""
    if leader.downloads > 0 and runner.downloads > 0:
        return leader.downloads / runner.downloads
    return None


def decide(found: list[ProbeResult]) -> Decision:
    ranked = rank([result for result in found if passes(result)])
    if not ranked:
        return Decision(ranked, None)
    if len(ranked) == 1:
        return Decision(ranked, "single_match")
    leader, runner = ranked[0], ranked[1]
    gap = ratio(leader, runner)
    if (
        gap is not None
        and leader.version_count >= MIN_LEADER_VERSIONS
        and leader.has_repository
        and leader.downloads >= GAP * runner.downloads
    ):
        return Decision(ranked, "10x_popularity_gap", gap)
    return Decision(ranked, "ambiguous", gap)

"""A last, weak guess for folders no manifest explains: the language most of their files use.

It never reaches the confidence bar, so in ``full`` mode the LLM fallback is still asked; in
``static`` mode it is what gets reported.
"""

from __future__ import annotations

from sleuth.stack.candidate import Candidate
from sleuth.stack.ecosystems.common import HERE, StaticDetector, ev
from sleuth.stack.finding import Finding
from sleuth.stack.languages import dominant


class SourcesDetector(StaticDetector):
    name = "sources"

    def detect(self, candidate: Candidate) -> Finding | None:
        counts = candidate.languages()
        language = dominant(counts)
        if language is None:
            return None
        total = sum(counts.values())
        share = counts[language] / total
        reason = f"{counts[language]} of {total} source files are {language}; no manifest"
        return Finding(language=language, evidence=[ev("guess", HERE, reason, share)])

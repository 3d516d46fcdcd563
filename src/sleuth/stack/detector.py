"""The one interface every detector answers through, deterministic or LLM-backed.

The walker hands each candidate folder to the deterministic detectors and keeps the most
confident finding; when none reaches :data:`~sleuth.stack.confidence.CONFIDENT`, it awaits the
fallback, registered last. Which kind answered shows only in ``source``, which each detector
declares about itself. Deterministic detectors are synchronous because they only read small
files; the fallback is a coroutine because it waits on a model.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from sleuth.stack.candidate import Candidate
from sleuth.stack.finding import Finding
from sleuth.stack.model import Source


@runtime_checkable
class Detector(Protocol):
    """Recognises projects in a candidate folder without waiting on anything."""

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> Source: ...

    def detect(self, candidate: Candidate) -> Finding | None:
        """A finding, or None when this folder is not this detector's kind of project."""
        ...


@runtime_checkable
class FallbackDetector(Protocol):
    """Asked, last, about candidates the deterministic detectors could not place."""

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> Source: ...

    async def detect(self, candidate: Candidate) -> Finding | None:
        """A finding, or None to leave the folder unreported (or to its weak static guess)."""
        ...

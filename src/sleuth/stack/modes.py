"""Which detectors may answer: deterministic ones, the LLM fallback, or both."""

from __future__ import annotations

from typing import Literal

from sleuth.errors import UsageError

Mode = Literal["full", "static", "llm"]
MODES: tuple[Mode, ...] = ("full", "static", "llm")
_SYNONYMS: dict[str, Mode] = {"llm_only": "llm", "llm-only": "llm"}


def normalize_mode(mode: str) -> Mode:
    """The canonical mode for ``mode``; ``llm_only`` is accepted because older configs use it."""
    key = mode.strip().lower()
    if key in _SYNONYMS:
        return _SYNONYMS[key]
    for known in MODES:
        if key == known:
            return known
    raise UsageError(
        f"unknown detection mode {mode!r}",
        hint=f"use one of: {', '.join(MODES)} (llm_only is accepted for llm)",
    )
